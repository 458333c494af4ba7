import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import {
  confirmRequestSchema,
  confirmResponseSchema,
  confirmStateResponseSchema,
  subscribeRequestSchema,
  subscribeResponseSchema,
  unsubscribeRequestSchema,
  unsubscribeResponseSchema,
} from "../../../contract/newsletter.ts";
import { ApiError, routesTagged } from "../errors.ts";
import { assertNoHoneypot, requestSubscription } from "../newsletter-rules.ts";
import { formTokenRoute, type RouteDeps } from "./deps.ts";

const route = routesTagged("newsletter");

const unknownLink = (link: string) =>
  new ApiError(404, "unknown_token", `This ${link} link is not known; it may have been mistyped.`);
const spentLink = {
  expired: "has expired; subscribe again to get a new one",
  used: "has already been used",
};

export const subscriberRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { engagement, newsletter, readers } = deps;

  formTokenRoute(
    app,
    "newsletter",
    "A signed timestamp for the subscription form (its minimum time to fill)",
    newsletter.formTokens,
  );

  app.post(
    "/subscribers",
    route(
      "Ask to subscribe: the address is pending until confirmed from the mail sent to it",
      { 202: subscribeResponseSchema },
      { body: subscribeRequestSchema },
    ),
    async (request, reply) => {
      const { email, formToken, website } = request.body;
      assertNoHoneypot(website);
      // One token, one address: a program cannot subscribe a list with one fetch.
      const timing = await newsletter.formTokens.admit(formToken);
      if (timing) throw new ApiError(timing.status, timing.code, timing.message);
      await requestSubscription(deps, email, request.ip, reply);
      // The same answer whether or not a new mail went out: it tells nobody
      // more than that the address is not confirmed.
      return reply.code(202).send({ pending: true });
    },
  );

  app.get(
    "/subscribers/confirm",
    route("What a confirmation link can still do, without using it", confirmStateResponseSchema, {
      querystring: confirmRequestSchema,
    }),
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return { state: await engagement.subscribers.confirmationState(request.query.token) };
    },
  );

  app.post(
    "/subscribers/confirm",
    route(
      "Confirm a subscription with the token of the confirmation link (single use, 48 h)",
      { 200: confirmResponseSchema },
      { body: confirmRequestSchema },
    ),
    async (request) => {
      const outcome = await engagement.subscribers.confirm(request.body.token);
      if (outcome === "unknown") throw unknownLink("confirmation");
      if (outcome !== "confirmed") {
        throw new ApiError(
          410,
          `token_${outcome}`,
          `This confirmation link ${spentLink[outcome]}.`,
        );
      }
      await readers.attribute(request, "subscription");
      return { confirmed: true as const };
    },
  );

  app.post(
    "/unsubscribe",
    route(
      "Remove a subscription with the token of its unsubscribe link (idempotent)",
      { 200: unsubscribeResponseSchema },
      { body: unsubscribeRequestSchema },
    ),
    async (request) => {
      const outcome = await engagement.subscribers.unsubscribe(request.body.token);
      if (outcome === "unknown") throw unknownLink("unsubscribe");
      return { unsubscribed: true as const, already: outcome === "already" };
    },
  );
};
