import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import {
  errorResponseSchema,
  subscribeRequestSchema,
  subscribeResponseSchema,
  unsubscribeRequestSchema,
  unsubscribeResponseSchema,
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

  app.post(
    "/unsubscribe",
    {
      schema: {
        summary: "Remove a subscription with the token of its unsubscribe link (idempotent)",
        tags: ["newsletter"],
        body: unsubscribeRequestSchema,
        response: {
          200: unsubscribeResponseSchema,
          "4xx": errorResponseSchema,
          "5xx": errorResponseSchema,
        },
      },
    },
    async (request) => {
      const outcome = await engagement.subscribers.unsubscribe(request.body.token);
      if (outcome === "unknown") {
        throw new ApiError(
          404,
          "unknown_token",
          "This unsubscribe link is not known; it may have been mistyped.",
        );
      }
      return { unsubscribed: true as const };
    },
  );
};
