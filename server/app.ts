import fastifyRateLimit from "@fastify/rate-limit";
import Fastify, { type FastifyServerOptions } from "fastify";
import {
  engagementCatalogOf,
  type ItemIndex,
  loadItemIndex,
  loadServiceTitles,
} from "../content/catalog.ts";
import { siteErrorHandler } from "./api/errors.ts";
import { engagementApi } from "./api/index.ts";
import { fastBeacon } from "./api/routes/readers.ts";
import { createStreamSlots } from "./api/stream-slots.ts";
import { assistantPages } from "./assistant/pages.ts";
import { firstCallPages } from "./bookings/first-call-pages.ts";
import { bookingPages } from "./bookings/pages.ts";
import { replyMailRoutes } from "./comments/reply-pages.ts";
import { createInsightsRepository } from "./console/insights-repository.ts";
import { createOwnerVoice } from "./console/owner-voice.ts";
import { concernsConsole, consolePages } from "./console/pages.ts";
import { consoleRoutes } from "./console/routes/index.ts";
import { signInChallenges } from "./console/sign-in-challenge.ts";
import { itemTitles } from "./console/titles.ts";
import { isDatabaseUnavailable } from "./db/errors.ts";
import type { Catalog } from "./engagement/catalog.ts";
import { enquiryPages } from "./enquiries/pages.ts";
import { webmentionLink } from "./fediverse/webmentions.ts";
import { type AddressCount, countByAddress } from "./lib/address-limit.ts";
import { accessLog } from "./logging.ts";
import { clickKeyOf, editionClicks } from "./newsletter/clicks.ts";
import { newsletterLinkPages } from "./newsletter/link-pages.ts";
import { providerWebhooks, senderDomain } from "./newsletter/provider-webhooks.ts";
import { amazonSnsHosts, type SnsTrust } from "./newsletter/sns-certificates.ts";
import { createSnsMessages } from "./newsletter/sns-messages.ts";
import { commentActionRoutes } from "./notifications/action-routes.ts";
import { createReadersReport } from "./readers/report.ts";
import type { Readers } from "./readers/service.ts";
import { type ServiceOptions, startServices } from "./services.ts";
import { engagementPages } from "./web/engagement-pages.ts";
import { offerSent } from "./web/etag.ts";
import type { FastPages } from "./web/fast-pages.ts";
import { fastifyOptions, requestIdOf, trustedProxies } from "./web/http-server.ts";
import { inlineScriptHashes } from "./web/inline-scripts.ts";
import { searchPage } from "./web/search-page.ts";
import { securityHeaders } from "./web/security-headers.ts";
import { bytesOf, htmlPages } from "./web/site-files.ts";
import { fastStaticPages, loadBuiltSite, staticSite } from "./web/static-site.ts";

export type AppOptions = ServiceOptions & {
  /** Where the prerendered site lives: CLIENT_ROOT, else BUILD_DIR/client; tests point this at their own build. */
  clientRoot?: string;
  logger?: FastifyServerOptions["logger"];
  /** Stories and science posts that take reactions and comments; defaults to the content folder's. */
  catalog?: Catalog;
  /** Interval of the keep-alive comments on event streams. */
  heartbeatMs?: number;
  /** Where SNS's signing certificates may come from (tests trust a host of their own). */
  snsTrust?: SnsTrust;
  /** The items' and services' titles, read from the content unless given (tests read them once per process). */
  content?: { items: ItemIndex; services: ReturnType<typeof loadServiceTitles> };
};

declare module "fastify" {
  interface FastifyInstance {
    /** Readership counted without cookies (server/readers/); tests write its counts at once. */
    readers: Readers;
    /** Looks for due mail at once (server/outbox/); tests wake it after the command line queued some. */
    wakeOutbox: () => void;
  }
}

/** What `/readyz` says while the database answers but cannot write. */
const storeCannotWrite =
  "the database cannot write (its disk is full, failing or read-only): nothing can be saved";

/** Builds the whole site as a Fastify instance; `main.ts` listens, tests `inject`. */
export async function buildApp({
  config,
  clientRoot = config.clientRoot,
  logger = false,
  catalog: givenCatalog,
  heartbeatMs = 15_000,
  snsTrust = amazonSnsHosts,
  clock = () => new Date(),
  content,
  ...options
}: AppOptions) {
  // The stories' and science posts' ids and titles, read from the content once
  // (content/catalog.ts) for the engagement catalog, notifications and console.
  const items = content?.items ?? loadItemIndex();
  // Read once: served from memory, its pages' inline scripts hashed for the CSP.
  const siteFiles = loadBuiltSite(clientRoot);
  const catalog = givenCatalog ?? engagementCatalogOf(items);
  // Made below, once the page headers and the readers are known; the
  // server's listener asks them first.
  let fastPages: FastPages | undefined;
  let beacon: ReturnType<typeof fastBeacon> | undefined;
  const app = Fastify(
    fastifyOptions(config, logger, (request, response, handler) =>
      Boolean(beacon?.(request, response, handler) || fastPages?.serve(request, response)),
    ),
  );

  // Before any route or plugin, whose scopes start from it: no failure of
  // ours answers with its error's text (server/api/errors.ts).
  app.setErrorHandler(siteErrorHandler);

  const accessLine = accessLog(app, {
    sampleReads: config.LOG_SAMPLE_READS,
    trusted: trustedProxies(config.TRUST_PROXY),
  });

  const securedBy = await securityHeaders(app, {
    inlineScriptHashes: inlineScriptHashes(htmlPages(siteFiles)),
    chatbotOrigin: config.CHATBOT_SCRIPT_URL
      ? new URL(config.CHATBOT_SCRIPT_URL).origin
      : undefined,
    https: config.siteUrl.startsWith("https:"),
    link: webmentionLink(config.siteUrl),
  });

  // Clients and proxies can quote it when they report a problem; the logs carry the same id.
  // Hooks on every request take a callback rather than return a promise: on a
  // cached read, each promise is a measurable share of the work
  // (docs/decisions/020-api-headers-and-cheap-hooks.md).
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    done();
  });

  // A request still in flight when the server starts closing is answered, but
  // its kept-alive connection would then hold the process open until the
  // client leaves: ask the client to close it.
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
    fastPages?.stop();
  });
  fastPages = fastStaticPages(siteFiles, {
    pageHeaders: securedBy.page,
    apiHeaders: securedBy.api,
    guarded: concernsConsole,
    requestId: requestIdOf,
    accessLog: accessLine,
  });
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (closing) reply.header("connection", "close");
    done(null, payload);
  });

  const eventStreams = createStreamSlots({
    max: config.EVENT_STREAMS_MAX,
    perIp: config.EVENT_STREAMS_PER_IP,
    perNetwork: config.EVENT_STREAMS_PER_NETWORK,
    perVisitor: config.EVENT_STREAMS_PER_VISITOR,
  });
  app.decorate("eventStreams", eventStreams);

  const services = await startServices({
    config,
    ...options,
    clock,
    clientRoot,
    log: app.log,
    items,
    catalog,
    services: content?.services ?? loadServiceTitles(),
    bookable: () => siteFiles.has("/book"),
  });
  const { store, bus, cookieSecret, engagement, reads, moderation, defences, spam } = services;
  const { enquiries, bookings, fediverse, owner, newsletter, mailOut, replyWatches } = services;
  const { listHealth, ownerConsole, readers, assistant } = services;
  app.decorate("readers", readers);
  app.decorate("wakeOutbox", mailOut.wake);
  // The pages the beacon may count: the built site's, not the console's or the 404 page.
  const isPage = (address: string) =>
    Boolean(siteFiles.get(address)?.file.endsWith(".html")) &&
    !address.startsWith("/admin") &&
    !address.startsWith("/404");
  beacon = fastBeacon({
    readers,
    isPage,
    siteOrigin: new URL(config.siteUrl).origin,
    trusted: trustedProxies(config.TRUST_PROXY),
    apiHeaders: securedBy.api,
    requestId: requestIdOf,
    accessLog: accessLine,
    open: () => !closing,
  });
  // After the API's own preClose hook has ended the event streams.
  app.addHook("onClose", services.close);

  try {
    // The one registration of rate limits: every count made with `createRateLimit`
    // (the Fediverse's reads, posts and webmentions, the API's writes and questions,
    // the console's sign-in, the search and booking pages) is its own. Global off, it
    // adds no hook: it only counts where a route or hook asks it.
    await app.register(fastifyRateLimit, { global: false });
    // Before every route: its hook takes the Fediverse's requests and no others.
    await fediverse.routes(app);
    app.addHook("onListen", (done) => {
      fediverse.start();
      done();
    });
    // `/healthz` (the process answers) and `/readyz` (it can serve: docs/health.md).
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

    // The questions one address asks the assistant a minute: one count for the API
    // and the question form of pages without JavaScript.
    // Each also from one network, ten times the address's (`countByAddress`).
    const questionsByMinute = countByAddress(app, {
      name: "assistant",
      max: config.ASSISTANT_QUESTIONS_PER_MINUTE_PER_IP,
      timeWindow: 60_000,
    });
    // And a day: each question is kept for ASSISTANT_RETENTION_DAYS, whoever sent it.
    const questionsByDay = countByAddress(app, {
      name: "assistant day",
      max: config.ASSISTANT_QUESTIONS_PER_DAY_PER_IP,
      timeWindow: 86_400_000,
    });
    const questionsByIp: AddressCount = async (request) =>
      (await questionsByMinute(request)) ?? questionsByDay(request);

    await app.register(engagementApi, {
      prefix: "/api",
      fast: fastPages,
      engagement,
      reads,
      bus,
      catalog,
      siteUrl: config.siteUrl,
      cookieSecret,
      clock,
      newsletter: newsletter.routeDeps(mailOut.wake),
      moderation,
      defences,
      enquiries,
      readers,
      isPage,
      bookings,
      assistant,
      questionLimits: {
        perVisitor: config.ASSISTANT_QUESTIONS_PER_MINUTE,
        byIp: questionsByIp,
      },
      rateLimits: {
        perVisitor: config.RATE_LIMIT_WRITES_PER_VISITOR,
        perIp: config.RATE_LIMIT_WRITES_PER_IP,
        windowMs: config.RATE_LIMIT_WINDOW_SECONDS * 1000,
      },
      streams: { slots: eventStreams, heartbeatMs },
      ownerVoice: createOwnerVoice({ owner: ownerConsole, config }),
      replyMail: replyWatches,
      registerConsole: (api) =>
        api.register(consoleRoutes, {
          prefix: "/admin",
          // The site served here, whose pages the editions' links are checked against.
          config: { ...config, clientRoot },
          store,
          engagement,
          bus,
          owner: ownerConsole,
          moderation,
          defences,
          spam: spam.filter,
          insights: createInsightsRepository(store, itemTitles(items), clock, bookings.ownerZone),
          mailer: mailOut.mailer,
          mailQueued: mailOut.wake,
          enquiries,
          readers: createReadersReport(readers, options.readers?.clock ?? clock),
          bookings,
          assistant,
          replyWatches,
          challenges: signInChallenges(cookieSecret, clock),
          suppressions: mailOut.suppressions,
          fediverse,
          editionStore: newsletter.editions,
        }),
    });

    await app.register(commentActionRoutes, owner.routes);
    await app.register(replyMailRoutes, { watches: replyWatches, siteUrl: config.siteUrl });
    await app.register(newsletterLinkPages, {
      engagement,
      siteUrl: config.siteUrl,
      attribute: readers.attribute,
    });
    await app.register(editionClicks, {
      editions: newsletter.editions,
      key: clickKeyOf(cookieSecret),
      siteUrl: config.siteUrl,
    });
    await app.register(providerWebhooks, {
      health: listHealth,
      messages: createSnsMessages(store),
      snsTopics: (config.SES_SNS_TOPIC_ARN ?? "")
        .split(",")
        .map((arn) => arn.trim())
        .filter(Boolean),
      postmarkSecret: config.POSTMARK_WEBHOOK_SECRET,
      snsTrust,
      senderDomains: [config.mailFrom, config.BOUNCE_ADDRESS ?? ""]
        .map(senderDomain)
        .filter(Boolean),
    });
    await app.register(enquiryPages, {
      enquiries,
      siteUrl: config.siteUrl,
      trail: ownerConsole.actor(null),
      attribute: readers.attribute,
    });
    await bookingPages(app, {
      bookings,
      root: clientRoot,
      siteUrl: config.siteUrl,
      booked: (request) => readers.attribute(request, "booking"),
    });
    await firstCallPages(app, {
      bookings,
      root: clientRoot,
      pageOf: (address) => {
        const file = siteFiles.get(address);
        return file && bytesOf(file);
      },
      offer: (request, reply, page, headers, current) =>
        offerSent(fastPages, request, reply, page, { headers }, current),
    });
    await app.register(assistantPages, {
      assistant,
      siteUrl: config.siteUrl,
      limit: questionsByIp,
    });
    await consolePages(app, { files: siteFiles, owner: ownerConsole, siteUrl: config.siteUrl });
    await engagementPages(app, {
      files: siteFiles,
      reads,
      bus,
      siteUrl: config.siteUrl,
      fast: fastPages,
      databaseAway: isDatabaseUnavailable,
      openWeb: fediverse.openWeb,
    });
    searchPage(app, { root: clientRoot, files: siteFiles });
    await staticSite(app, { files: siteFiles, fast: fastPages });
  } catch (error) {
    await services.close();
    throw error;
  }
  return app;
}
