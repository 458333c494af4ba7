import { readFileSync } from "node:fs";
import path from "node:path";
import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import {
  auditResponseSchema,
  healthResponseSchema,
  overviewResponseSchema,
} from "../../../contract/console.ts";
import { maskedSettings } from "../settings.ts";
import { type ConsoleContext, route } from "./context.ts";

const version = (
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../../package.json"), "utf8")) as {
    version: string;
  }
).version;

/** The overview's charts, the site's health, and the audit trail. */
export const healthRoutes: FastifyPluginAsyncZod<ConsoleContext> = async (app, context) => {
  const { config, store, bus, owner, insights, editionStore, fediverse, bookings } = context;

  app.get(
    "/overview",
    route(
      "Charts: activity per day, subscribers, most engaged items, editions; held and spam counts",
      overviewResponseSchema,
    ),
    async () => {
      // The comments screen's own counts: the two never disagree.
      const { pending: held, spam } = await insights.commentCounts();
      return {
        ...(await insights.overview()),
        editions: await editionStore.progress(),
        moderation: { held, spam },
      };
    },
  );

  app.get(
    "/health",
    route(
      "Database, live events, outbox backlog, Fediverse messages given up in the last 30 days, the busy calendar's reads, version and masked settings",
      healthResponseSchema,
    ),
    async () => {
      const reachable = await store.ping().then(
        () => true,
        () => false,
      );
      return {
        database: { kind: store.kind, reachable },
        liveEvents: bus.healthy ? ("listening" as const) : ("reconnecting" as const),
        outbox: await insights.outboxBacklog(),
        fediverseGivenUp: await fediverse.repository.givenUp(),
        busyCalendar: bookings.busyCalendar(),
        version,
        node: process.version,
        settings: maskedSettings(config),
      };
    },
  );

  app.get(
    "/audit",
    route("The newest 200 entries of the audit trail", auditResponseSchema),
    async () => ({ entries: await owner.auditTrail() }),
  );
};
