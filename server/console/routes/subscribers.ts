import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import {
  addressRequestSchema,
  subscriberSearchSchema,
  subscribersResponseSchema,
} from "../../../contract/console.ts";
import {
  suppressionLiftSchema,
  suppressionSearchSchema,
  suppressionsResponseSchema,
} from "../../../contract/list-pages.ts";
import { notFound } from "../../api/errors.ts";
import { subscriberActions, suppressionActions } from "../../newsletter/owner-actions.ts";
import { type ConsoleContext, csvDownload, noContent, route, sendCsv } from "./context.ts";

/** Subscribers: counts, search, removal and the CSV export; the suppressed addresses. */
export const subscriberRoutes: FastifyPluginAsyncZod<ConsoleContext> = async (app, context) => {
  const { config, engagement, insights, actor } = context;
  const actions = subscriberActions(engagement.subscribers, config.siteUrl);
  const { suppressions } = context;
  const lifting = suppressionActions(suppressions, context.replyWatches.resume);

  app.post(
    "/subscribers/search",
    route(
      "Subscribers by state, and the newest addresses (matching a search, when given)",
      subscribersResponseSchema,
      {
        description: "A POST, so that the address searched for is in no URL and no request log.",
        body: subscriberSearchSchema,
      },
    ),
    async (request) => ({
      counts: await insights.subscriberCounts(),
      subscribers: await insights.searchSubscribers(request.body),
    }),
  );

  app.post(
    "/subscribers/remove",
    route(
      "Remove one address (any letter case), or forget the mails sent to one that left",
      noContent,
      {
        description:
          "The address is in the body, never in a URL; the audit trail records the removal without it.",
        body: addressRequestSchema,
      },
    ),
    async (request) => {
      if (!(await actions.remove(actor(request), request.body.email))) {
        throw notFound("No subscriber has this address, and no mail sent to it is kept.");
      }
    },
  );

  app.get(
    "/subscribers/export",
    csvDownload("Confirmed subscribers as CSV (email, subscribed_at, unsubscribe_url)"),
    async (request, reply) => {
      const { csv } = await actions.exportCsv(actor(request));
      return sendCsv(reply, `subscribers-${new Date().toISOString().slice(0, 10)}`, csv);
    },
  );

  app.post(
    "/suppressions/search",
    route(
      "A page of the addresses no mail goes to, newest first, each with the reason and when; or one address",
      suppressionsResponseSchema,
      {
        description:
          "A POST, so that the address searched for, and the cursor that holds one, are in no URL and no request log.",
        body: suppressionSearchSchema,
      },
    ),
    async (request) => {
      const page = await suppressions.list(request.body);
      return { suppressions: page.entries, next: page.next };
    },
  );

  app.post(
    "/suppressions/lift",
    route("Let mail go to a suppressed address again (it is not subscribed again)", noContent, {
      description:
        "The address, or the `id` of its row in the list, is in the body, never in a URL; the audit trail records the lifting without it.",
      body: suppressionLiftSchema,
    }),
    async (request) => {
      if (!(await lifting.lift(actor(request), request.body))) {
        throw notFound("This address is not suppressed.");
      }
    },
  );
};
