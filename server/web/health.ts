import type { FastifyInstance } from "fastify";
import type { Store } from "../db/store.ts";
import type { EventBus } from "../events/bus.ts";

/** What `/readyz` says while the database answers but cannot write. */
const storeCannotWrite =
  "the database cannot write (its disk is full, failing or read-only): nothing can be saved";

/** `/healthz` (the process answers) and `/readyz` (it can serve: docs/health.md). */
export function healthRoutes(
  app: FastifyInstance,
  {
    store,
    bus,
  }: { store: Pick<Store, "ping" | "writable" | "kind">; bus: Pick<EventBus, "healthy"> },
) {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const reachable = await store.ping().then(
      () => true,
      () => false,
    );
    // A database that answers but refuses writes (a full disk, read-only)
    // is not ready either; the check writes only after a write failed so.
    const writable = reachable && (await store.writable());
    const ready = reachable && writable;
    return reply.code(ready ? 200 : 503).send({
      status: ready ? "ready" : "unavailable",
      database: store.kind,
      liveEvents: bus.healthy ? "listening" : "reconnecting",
      ...(reachable && !writable ? { reason: storeCannotWrite } : {}),
    });
  });
}
