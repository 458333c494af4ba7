import { randomUUID } from "node:crypto";
import path from "node:path";
import Fastify, { type FastifyReply, type FastifyServerOptions } from "fastify";
import { loadEngagementCatalog } from "../content/catalog.ts";
import { engagementApi } from "./api/index.ts";
import type { Config } from "./config.ts";
import type { Catalog } from "./engagement/catalog.ts";
import { startEngagement } from "./engagement/service.ts";
import { resolveCookieSecret } from "./engagement/visitor.ts";
import { type MailOptions, startNewsletter } from "./newsletter/service.ts";
import { inlineScriptHashes } from "./web/inline-scripts.ts";
import { securityHeaders } from "./web/security-headers.ts";
import { staticSite } from "./web/static-site.ts";

export type AppOptions = {
  config: Config;
  /** Where the prerendered site lives: CLIENT_ROOT, else build/client; tests point this at their own build. */
  clientRoot?: string;
  logger?: FastifyServerOptions["logger"];
  /** Stories and science posts that take reactions and comments; defaults to the content folder's. */
  catalog?: Catalog;
  /** Interval of the keep-alive comments on event streams. */
  heartbeatMs?: number;
  /** The outbox worker's timings (tests shorten them). */
  mail?: MailOptions;
};

export const defaultClientRoot = path.resolve(import.meta.dirname, "../build/client");

/** A request id from the proxy in front is kept if it looks like one; otherwise a new one. */
const acceptableRequestId = /^[\w.:-]{1,64}$/;

/** Builds the whole site as a Fastify instance; `main.ts` listens, tests `inject`. */
export async function buildApp({
  config,
  clientRoot = config.CLIENT_ROOT ? path.resolve(config.CLIENT_ROOT) : defaultClientRoot,
  logger = false,
  catalog = loadEngagementCatalog(),
  heartbeatMs = 15_000,
  mail = {},
}: AppOptions) {
  const app = Fastify({
    logger,
    trustProxy: config.TRUST_PROXY,
    bodyLimit: 16 * 1024,
    genReqId(request) {
      const given = request.headers["x-request-id"];
      return typeof given === "string" && acceptableRequestId.test(given) ? given : randomUUID();
    },
    // A URL that cannot be decoded never reaches a route or its error handler.
    frameworkErrors: (_error, _request, reply) => {
      (reply as FastifyReply)
        .code(400)
        .send({ error: { code: "validation_failed", message: "The URL is malformed." } });
    },
  });

  await securityHeaders(app, {
    inlineScriptHashes: inlineScriptHashes(clientRoot),
    chatbotOrigin: config.CHATBOT_SCRIPT_URL
      ? new URL(config.CHATBOT_SCRIPT_URL).origin
      : undefined,
  });

  // Clients and proxies can quote it when they report a problem; the logs carry the same id.
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });

  // A request still in flight when the server starts closing is answered, but
  // its kept-alive connection would then hold the process open until the
  // client leaves: ask the client to close it.
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onSend", async (_request, reply) => {
    if (closing) reply.header("connection", "close");
  });

  const { store, bus, engagement, close: closeEngagement } = await startEngagement(config, app.log);
  const cookieSecret = resolveCookieSecret(config);
  const newsletter = startNewsletter(store, config, cookieSecret, app.log, mail);
  const close = async () => {
    // The message in hand is finished and recorded before the database closes.
    await newsletter.stop();
    await closeEngagement();
  };
  // After the API's own preClose hook has ended the event streams.
  app.addHook("onClose", close);

  try {
    app.get("/healthz", async () => ({ status: "ok" }));
    app.get("/readyz", async (_request, reply) => {
      const reachable = await store.ping().then(
        () => true,
        () => false,
      );
      return reply.code(reachable ? 200 : 503).send({
        status: reachable ? "ready" : "unavailable",
        database: store.kind,
        liveEvents: bus.healthy ? "listening" : "reconnecting",
      });
    });

    await app.register(engagementApi, {
      prefix: "/api",
      engagement,
      bus,
      catalog,
      siteUrl: config.siteUrl,
      cookieSecret,
      newsletter: newsletter.deps,
      rateLimits: {
        perVisitor: config.RATE_LIMIT_WRITES_PER_VISITOR,
        perIp: config.RATE_LIMIT_WRITES_PER_IP,
        windowMs: config.RATE_LIMIT_WINDOW_SECONDS * 1000,
      },
      streams: { maxStreams: config.EVENT_STREAMS_MAX, heartbeatMs },
    });

    // The no-JavaScript form's second page posts to its own address, which
    // carries the sealed ticket; 307 keeps the POST on its way to the API.
    await app.register(async (scope) => {
      scope.addContentTypeParser(
        "application/x-www-form-urlencoded",
        { parseAs: "string", bodyLimit: 1024 },
        (_request, _body, done) => done(null, undefined),
      );
      scope.post("/newsletter/continue", async (request, reply) => {
        const { ticket } = request.query as { ticket?: unknown };
        const safe = typeof ticket === "string" && /^[A-Za-z0-9_-]{1,800}$/.test(ticket);
        return reply.redirect(`/api/newsletter/continue?ticket=${safe ? ticket : ""}`, 307);
      });
    });

    await staticSite(app, { root: clientRoot });
  } catch (error) {
    await close();
    throw error;
  }
  return app;
}
