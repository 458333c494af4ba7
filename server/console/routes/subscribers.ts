import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { z } from "zod";
import { subscriberSearchSchema, subscribersResponseSchema } from "../../../contract/console.ts";
import { notFound } from "../../api/errors.ts";
import { toCsv } from "../../lib/csv.ts";
import { type ConsoleContext, consoleTag, errors } from "./context.ts";

/** Subscribers: counts, search, removal and the CSV export. */
export const subscriberRoutes: FastifyPluginAsyncZod<ConsoleContext> = async (app, context) => {
  const { config, engagement, insights, audit } = context;
  const { siteUrl } = config;

  app.get(
    "/subscribers",
    {
      schema: {
        ...consoleTag,
        summary: "Subscribers by state, and addresses matching a search",
        querystring: subscriberSearchSchema,
        response: { 200: subscribersResponseSchema, ...errors },
      },
    },
    async (request) => ({
      counts: await insights.subscriberCounts(),
      subscribers: await insights.searchSubscribers(request.query),
    }),
  );

  app.delete(
    "/subscribers/:email",
    {
      schema: {
        ...consoleTag,
        summary: "Remove one address (any letter case)",
        params: z.object({ email: z.string().min(1).max(254) }),
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      if (!(await engagement.subscribers.remove(request.params.email))) {
        throw notFound("No subscriber has this address.");
      }
      await audit(request, "subscriber remove", request.params.email);
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/subscribers/export",
    {
      schema: {
        ...consoleTag,
        summary: "Confirmed subscribers as CSV (email, subscribed_at, unsubscribe_url)",
        description:
          "Cells that a spreadsheet would run as a formula start with a ' (README, The owner's command line).",
        produces: ["text/csv"],
        response: { 200: z.string().describe("CSV, RFC 4180"), ...errors },
      },
    },
    async (request, reply) => {
      const subscribers = await engagement.subscribers.list();
      const csv = toCsv([
        ["email", "subscribed_at", "unsubscribe_url"],
        ...subscribers.map((s) => [
          s.email,
          s.subscribedAt,
          `${siteUrl}/unsubscribe?token=${encodeURIComponent(s.unsubscribeToken)}`,
        ]),
      ]);
      await audit(request, "subscribers export", `${subscribers.length} addresses`);
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .type("text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="subscribers-${day}.csv"`)
        .send(csv);
    },
  );
};
