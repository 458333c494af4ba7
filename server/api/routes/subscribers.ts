import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import {
  errorResponseSchema,
  subscribeRequestSchema,
  subscribeResponseSchema,
} from "../../../contract/api.ts";
import { ApiError } from "../errors.ts";
import type { RouteDeps } from "./deps.ts";

export const subscriberRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { engagement }) => {
  app.post(
    "/subscribers",
    {
      schema: {
        summary: "Subscribe to the newsletter",
        tags: ["newsletter"],
        body: subscribeRequestSchema,
        response: {
          201: subscribeResponseSchema,
          "4xx": errorResponseSchema,
          "5xx": errorResponseSchema,
        },
      },
    },
    async (request, reply) => {
      const outcome = await engagement.subscribers.add(request.body.email);
      if (outcome === "already_subscribed") {
        throw new ApiError(409, "already_subscribed", "This email address is already subscribed.");
      }
      return reply.code(201).send({ subscribed: true });
    },
  );
};
