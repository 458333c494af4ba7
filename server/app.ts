import path from "node:path";
import proxyAddr from "@fastify/proxy-addr";
import { serializerCompiler, validatorCompiler } from "@fastify/type-provider-zod";
import Fastify, { type FastifyReply, type FastifyServerOptions, LogController } from "fastify";
import { engagementCatalogOf, loadItemIndex, loadServiceTitles } from "../content/catalog.ts";
import { limits } from "../contract/limits.ts";
import { siteErrorHandler } from "./api/errors.ts";
import { engagementApi } from "./api/index.ts";
import { fastBeacon } from "./api/routes/readers.ts";
import { createStreamSlots } from "./api/stream-slots.ts";
import { assistantIndexFile } from "./assistant/index-path.ts";
import { assistantPages } from "./assistant/pages.ts";
import { createAssistant, readIndexFile } from "./assistant/service.ts";
import { createWriter } from "./assistant/writer.ts";
import { bookingPages } from "./bookings/pages.ts";
import { createBookings } from "./bookings/service.ts";
import { replyComposers } from "./comments/reply-mails.ts";
import { replyMailRoutes } from "./comments/reply-pages.ts";
import { createReplyWatches } from "./comments/reply-watches.ts";
import type { Config } from "./config.ts";
import { createInsightsRepository } from "./console/insights-repository.ts";
import { createOwnerRepository } from "./console/owner-repository.ts";
import { ownerCookieName } from "./console/owner-session.ts";
import { createOwnerVoice } from "./console/owner-voice.ts";
import { concernsConsole, consolePages } from "./console/pages.ts";
import { consoleRoutes } from "./console/routes/index.ts";
import { itemTitles } from "./console/titles.ts";
import { isDatabaseUnavailable } from "./db/errors.ts";
import { createSpentFormTokens } from "./db/spent-form-tokens.ts";
import type { Catalog } from "./engagement/catalog.ts";
import { resolveCookieSecret } from "./engagement/visitor.ts";
import { createWriterKeys } from "./engagement/writer-keys.ts";
import { enquiryPages } from "./enquiries/pages.ts";
import { createEnquiries } from "./enquiries/service.ts";
import { createFediverse } from "./fediverse/service.ts";
import { webmentionLink } from "./fediverse/webmentions.ts";
import { createFormTokens } from "./lib/form-token.ts";
import { accessLog } from "./logging.ts";
import { createBlocklist } from "./moderation/blocklist.ts";
import { createCommentDefences, createCommentFormTokens } from "./moderation/defences.ts";
import { startBounceMailbox } from "./newsletter/bounce-mailbox.ts";
import { clickKeyOf, editionClicks } from "./newsletter/clicks.ts";
import { newsletterLinkPages } from "./newsletter/link-pages.ts";
import { createListHealth } from "./newsletter/list-health.ts";
import { amazonSnsHosts, providerWebhooks, type SnsTrust } from "./newsletter/provider-webhooks.ts";
import { createEditionSchedules, startEditionSchedules } from "./newsletter/schedules.ts";
import { createNewsletter } from "./newsletter/service.ts";
import { commentActionRoutes } from "./notifications/action-routes.ts";
import { createNotifications, type NotificationOptions } from "./notifications/service.ts";
import { type MailOptions, startOutbox } from "./outbox/service.ts";
import { verpKeyOf } from "./outbox/verp.ts";
import { createReadersReport } from "./readers/report.ts";
import { createReaders, type Readers } from "./readers/service.ts";
import { openStoreAndBus, startEngagement } from "./startup.ts";
import { engagementPages } from "./web/engagement-pages.ts";
import type { FastPages } from "./web/fast-pages.ts";
import { clientErrorHandler, httpServer, requestIdOf } from "./web/http-server.ts";
import { inlineScriptHashes } from "./web/inline-scripts.ts";
import { searchPage } from "./web/search-page.ts";
import { securityHeaders } from "./web/security-headers.ts";
import { htmlPages } from "./web/site-files.ts";
import { fastStaticPages, loadBuiltSite, staticSite } from "./web/static-site.ts";

export type AppOptions = {
  config: Config;
  /** Where the prerendered site lives: CLIENT_ROOT, else BUILD_DIR/client; tests point this at their own build. */
  clientRoot?: string;
  logger?: FastifyServerOptions["logger"];
  /** Stories and science posts that take reactions and comments; defaults to the content folder's. */
  catalog?: Catalog;
  /** Interval of the keep-alive comments on event streams. */
  heartbeatMs?: number;
  /** The outbox worker's timings (tests shorten them). */
  mail?: MailOptions;
  /** How often scheduled editions are looked for (5 s; tests shorten it). */
  scheduleEveryMs?: number;
  /**
   * The owner's notifications: `approve` turns on the approve links
   * (docs/decisions/011-owner-notifications.md); the clock is `mail.clock`.
   */
  notifications?: Omit<NotificationOptions, "clock">;
  /** The clock of the console's links and sessions and of comments' times (tests move it on). */
  clock?: () => Date;
  /**
   * How long a request waits for a free PostgreSQL connection before it is
   * answered 503 (5 s by default). Tests that send hundreds of requests at
   * once on a loaded 2-core machine let them wait longer.
   */
  databaseWaitMs?: number;
  /** How often the readers' counts are written (5 s), and their clock (`clock` by default): tests set both. */
  readers?: { flushMs?: number; clock?: () => Date };
  /** Where SNS's signing certificates may come from (tests trust a host of their own). */
  snsTrust?: SnsTrust;
  /** A migrated empty SQLite database, copied at a first start (server/db/new-database.ts). */
  newDatabase?: string;
  /** The assistant's index (server/assistant/index-file.ts); by default the one built beside the pages. */
  assistantIndex?: () => string | null;
};

declare module "fastify" {
  interface FastifyInstance {
    /** Readership counted without cookies (server/readers/); tests write its counts at once. */
    readers: Readers;
  }
}

/**
 * Fastify's own hop count trusts no hop at all (it cannot tell a proxy from a
 * client that sends enough of them), so the count is applied here: the peer
 * and the N - 1 hops before it are proxies, the hop they name is the client.
 * docs/proxy.md, "The client's address": only when the server is reachable through
 * the proxy alone.
 */
function trustedProxies(
  setting: Config["TRUST_PROXY"],
): false | ((address: string, hop: number) => boolean) {
  if (setting === false) return false;
  if (typeof setting !== "number") return proxyAddr.compile(setting);
  return (_address: string, hop: number) => hop < setting;
}

/** The content folder, where the owner's picture is. */
const contentRoot = path.resolve(import.meta.dirname, "../content");

const pictureTypes: Record<string, string> = { ".png": "image/png", ".webp": "image/webp" };
const pictureTypeOf = (file: string) =>
  pictureTypes[path.extname(file).toLowerCase()] ?? "image/jpeg";

/**
 * Fastify's compiler factories, giving zod's compilers: Fastify's types name
 * Ajv's and fast-json-stringify's signatures, which zod's do not share.
 */
const zodCompilers = {
  buildValidator: () => validatorCompiler,
  buildSerializer: () => serializerCompiler,
} as unknown as NonNullable<
  NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]
>;

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
  mail = {},
  scheduleEveryMs,
  notifications: notificationOptions = {},
  clock = () => new Date(),
  databaseWaitMs,
  readers: readerOptions = {},
  snsTrust = amazonSnsHosts,
  newDatabase,
  // Beside the pages it was built with: BUILD_DIR's, or that of a site given by path (tests).
  assistantIndex = readIndexFile(
    assistantIndexFile(
      clientRoot === config.clientRoot ? config.buildDir : path.dirname(clientRoot),
    ),
  ),
}: AppOptions) {
  // The stories' and science posts' ids and titles, read from the content once
  // (content/catalog.ts) for the engagement catalog, notifications and console.
  const items = loadItemIndex();
  // Read once: served from memory, its pages' inline scripts hashed for the CSP.
  const siteFiles = loadBuiltSite(clientRoot);
  const catalog = givenCatalog ?? engagementCatalogOf(items);
  // The services' ids and titles, for the enquiry and booking forms.
  const services = loadServiceTitles();
  const headersTimeout = config.HEADERS_TIMEOUT_SECONDS * 1000;
  const timeouts = {
    requestTimeout: config.REQUEST_TIMEOUT_SECONDS * 1000,
    connectionTimeout: config.IDLE_TIMEOUT_SECONDS * 1000,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
  };
  const serverOptions = {
    headersTimeout,
    connectionsCheckingInterval: Math.min(
      1000,
      Math.min(headersTimeout, timeouts.requestTimeout) / 2,
    ),
  };
  // Made below, once the page headers and the readers are known; the
  // server's listener asks them first.
  let fastPages: FastPages | undefined;
  let beacon: ReturnType<typeof fastBeacon> | undefined;
  const app = Fastify({
    logger,
    // One line per request, at its end (accessLog below).
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: trustedProxies(config.TRUST_PROXY),
    bodyLimit: limits.bodyBytesMax,
    // A client that sends its request slowly, or stops half-way, would hold a
    // connection forever (Fastify's defaults are no timeouts). Node checks the
    // headers and request deadlines on an interval, 30 s by default: make it
    // short enough that they hold to about a second. The event stream's own
    // socket is exempted from the idle timeout in its route.
    http: serverOptions,
    ...timeouts,
    clientErrorHandler,
    genReqId: requestIdOf,
    // Every schema is zod's, compiled as the API compiles it: Fastify then
    // builds none of its JSON Schema compilers (Ajv, fast-json-stringify),
    // and a start does not load them (docs/decisions/038-start-and-idle.md).
    schemaController: { compilersFactory: zodCompilers },
    // The HTTP server Fastify makes by default, with the same settings, and the
    // built site's fast path in front of it (server/web/fast-pages.ts).
    serverFactory: (handler) =>
      httpServer(
        handler,
        (request, response) =>
          Boolean(beacon?.(request, response, handler) || fastPages?.serve(request, response)),
        { serverOptions, ...timeouts },
      ),
    // A URL that cannot be decoded never reaches a route or its error handler.
    frameworkErrors: (_error, _request, reply) => {
      (reply as FastifyReply)
        .code(400)
        .send({ error: { code: "validation_failed", message: "The URL is malformed." } });
    },
  });

  // Before any route or plugin, whose scopes start from it: no failure of
  // ours answers with its error's text (server/api/errors.ts).
  app.setErrorHandler(siteErrorHandler);

  const logThis = accessLog(app, { sampleReads: config.LOG_SAMPLE_READS });

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
    logThis,
  });
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (closing) reply.header("connection", "close");
    done(null, payload);
  });

  const eventStreams = createStreamSlots({
    max: config.EVENT_STREAMS_MAX,
    perIp: config.EVENT_STREAMS_PER_IP,
    perVisitor: config.EVENT_STREAMS_PER_VISITOR,
  });
  app.decorate("eventStreams", eventStreams);

  // The composition root, read top to bottom: the store and the event bus;
  // secrets and keys, each derived once; the domain modules, each after those
  // it uses (docs/architecture.md, "Server floors"); then the routes.
  const {
    store,
    events,
    bus,
    close: closeStore,
  } = await openStoreAndBus(config, app.log, {
    ...(databaseWaitMs ? { connectionWaitMs: databaseWaitMs } : {}),
    ...(newDatabase ? { newDatabase } : {}),
  });
  // Made after the database, which is refused when it is empty beside a
  // secret of an earlier start (server/startup.ts): a first start that stops
  // before its database exists leaves no secret behind.
  let cookieSecret: string;
  try {
    cookieSecret = resolveCookieSecret(config);
  } catch (error) {
    await closeStore();
    throw error;
  }
  const writerKeys = createWriterKeys(cookieSecret);
  const notifications = createNotifications(config, {
    titles: items.science,
    ...notificationOptions,
    ...(mail.clock ? { clock: mail.clock } : {}),
  });
  // Readers' reply mails (docs/product.md, "Reply mails").
  const replyWatches = createReplyWatches(store, {
    clock: mail.clock ?? (() => new Date()),
    maxPerIpPerHour: config.SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR,
  });
  const {
    engagement,
    reads,
    moderation,
    spam,
    stop: stopEngagement,
  } = startEngagement({
    store,
    events,
    bus,
    keys: writerKeys,
    notifier: notifications.notifier,
    replies: replyWatches.notifier,
    clock,
    moderationMode: config.MODERATION,
    spamConfig: config,
    log: app.log,
  });
  const blocklist = createBlocklist(config.DATA_DIR, app.log);
  const spentFormTokens = createSpentFormTokens(store);
  const defences = createCommentDefences({
    config,
    blocklist,
    keys: writerKeys,
    formTokens: createCommentFormTokens(
      cookieSecret,
      config.COMMENT_MIN_SECONDS * 1000,
      spentFormTokens,
    ),
    comments: engagement.comments,
    moderation,
    spam: spam.filter,
  });
  // Enquiries and booked calls (docs/product.md), with the same form defences.
  const formDeps = (purpose: string) => ({
    store,
    config,
    cookieSecret,
    services,
    blocklist,
    keys: writerKeys,
    formTokens: createFormTokens(cookieSecret, {
      purpose,
      minimumMs: config.COMMENT_MIN_SECONDS * 1000,
      spent: spentFormTokens,
    }),
    moderation,
    ...(mail.clock ? { clock: mail.clock } : {}),
  });
  const enquiries = createEnquiries({ ...formDeps("enquiry form timing"), spam: spam.filter });
  const bookings = createBookings(formDeps("booking form timing"));
  // The site on the Fediverse (docs/fediverse.md): Fedify loads on first use.
  const photo = config.owner.photo;
  const fediverse = createFediverse({
    store,
    bus,
    siteUrl: config.siteUrl,
    clientRoot,
    handle: config.fediverseHandle,
    profile: {
      name: config.owner.name,
      summary: config.owner.role,
      links: config.owner.links,
      picture: photo ? { path: "/fediverse/picture", mediaType: pictureTypeOf(photo.src) } : null,
    },
    pictureFile: photo
      ? { file: path.join(contentRoot, "images", photo.src), type: pictureTypeOf(photo.src) }
      : null,
    allowPrivateAddresses: config.FEDIVERSE_ALLOW_PRIVATE_ADDRESSES_IN_TESTS,
    softwareVersion: "1.0.0",
    log: app.log,
    inbox: {
      comments: engagement.comments,
      defences,
      commentable: (postId) => catalog.science.has(postId),
    },
    ownerComment: async (id) => engagement.comments.getForOwner(id),
    // "/science/soap" is the topic "science:soap": the pages showing it render again.
    changed: (itemPath) => reads.invalidate(itemPath.slice(1).replace("/", ":")),
    moderation: config.MODERATION,
  });
  const owner = notifications.attach(
    store,
    engagement,
    async (id) => (await moderation.approveComment(id)) === "approved",
  );
  const newsletter = createNewsletter(store, config, cookieSecret);
  const verpKey = verpKeyOf(cookieSecret);
  const mailOut = startOutbox(
    store,
    config,
    app.log,
    mail,
    {
      ...newsletter.composers,
      ...owner.composers,
      ...enquiries.composers,
      ...bookings.composers,
      ...replyComposers({
        siteUrl: config.siteUrl,
        titles: notificationOptions.titles ?? items.science,
      }),
    },
    verpKey,
  );
  notifications.onQueued(mailOut.wake);
  replyWatches.onQueued(mailOut.wake);
  enquiries.onQueued(mailOut.wake);
  bookings.onQueued(mailOut.wake);
  const webhooks = owner.start(mailOut.outbox, app.log, mail);
  // Bounces and complaints, from the bounce mailbox and providers' webhooks.
  const listHealth = createListHealth({
    store,
    suppressions: mailOut.suppressions,
    subscribers: engagement.subscribers,
    bounceAddress: config.BOUNCE_ADDRESS,
    verpKey,
  });
  const bounceMailbox = config.BOUNCE_IMAP_URL
    ? startBounceMailbox({
        url: config.BOUNCE_IMAP_URL,
        everyMs: config.BOUNCE_IMAP_POLL_SECONDS * 1000,
        health: listHealth,
        log: app.log,
      })
    : null;
  const ownerConsole = createOwnerRepository(store, clock);
  // Editions sent later: each instance looks every few seconds; one claims each (docs/mail.md).
  const scheduledEditions = startEditionSchedules({
    schedules: createEditionSchedules(store),
    editions: newsletter.editions,
    ...(scheduleEveryMs ? { everyMs: scheduleEveryMs } : {}),
    queued: mailOut.wake,
    started: (slug, count) =>
      ownerConsole.audit(null, "newsletter scheduled send", `${slug} (${count} queued)`),
    log: app.log,
  });
  // Readership (docs/product.md, "Readers"): counted in memory, written every few seconds.
  const readers = createReaders({
    store,
    enabled: config.ANALYTICS,
    rawDays: config.ANALYTICS_RAW_DAYS,
    perMinutePerAddress: config.ANALYTICS_VIEWS_PER_MINUTE_PER_IP,
    siteUrl: config.siteUrl,
    ownerCookie: ownerCookieName(config.siteUrl),
    clock,
    ...readerOptions,
  });
  app.decorate("readers", readers);
  const counting = readers.start(app.log);
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
    logThis,
    open: () => !closing,
  });
  const auditDeleted = (action: string) => (count: number) =>
    ownerConsole.audit(null, action, `${count} deleted`);
  const retention = enquiries.startRetention(app.log, auditDeleted("enquiries retention"));
  const bookingRetention = bookings.startRetention(app.log, auditDeleted("bookings retention"));
  // The site's own assistant: its index is read at the first question.
  const assistant = createAssistant({
    store,
    indexJson: assistantIndex,
    cookieSecret,
    retentionDays: config.ASSISTANT_RETENTION_DAYS,
    bookings: () => siteFiles.has("/book"),
    writer:
      config.ASSISTANT_LLM_URL && config.ASSISTANT_LLM_MODEL
        ? createWriter({
            url: config.ASSISTANT_LLM_URL,
            model: config.ASSISTANT_LLM_MODEL,
            apiKey: config.ASSISTANT_LLM_API_KEY,
            timeoutMs: config.ASSISTANT_LLM_TIMEOUT_MS,
            log: app.log,
          })
        : null,
    attribute: readers.attribute,
    clock,
  });
  const questionRetention = assistant.startRetention(app.log, auditDeleted("questions retention"));
  const close = async () => {
    retention.stop();
    await fediverse.stop();
    await counting.stop();
    bookingRetention.stop();
    questionRetention.stop();
    // The message in hand is finished and recorded before the database closes.
    await scheduledEditions.stop();
    await Promise.all([mailOut.stop(), webhooks.stop(), bounceMailbox?.stop()]);
    stopEngagement();
    await closeStore();
  };
  // After the API's own preClose hook has ended the event streams.
  app.addHook("onClose", close);

  try {
    // Before every route: its hook takes the Fediverse's requests and no others.
    await fediverse.routes(app);
    app.addHook("onListen", (done) => {
      fediverse.start();
      done();
    });
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

    await app.register(engagementApi, {
      prefix: "/api",
      fast: fastPages,
      engagement,
      reads,
      bus,
      catalog,
      siteUrl: config.siteUrl,
      cookieSecret,
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
        perIp: config.ASSISTANT_QUESTIONS_PER_MINUTE_PER_IP,
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
          insights: createInsightsRepository(store, itemTitles(items), clock),
          mailer: mailOut.mailer,
          mailQueued: mailOut.wake,
          enquiries,
          readers: createReadersReport(readers, readerOptions.clock ?? clock),
          bookings,
          assistant,
          fediverse,
        }),
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
    });
    await app.register(providerWebhooks, {
      health: listHealth,
      snsTopics: (config.SES_SNS_TOPIC_ARN ?? "")
        .split(",")
        .map((arn) => arn.trim())
        .filter(Boolean),
      postmarkSecret: config.POSTMARK_WEBHOOK_SECRET,
      snsTrust,
    });
    await app.register(enquiryPages, {
      enquiries,
      siteUrl: config.siteUrl,
      onDeletedBySender: auditDeleted("enquiry deleted by its sender"),
      attribute: readers.attribute,
    });
    await bookingPages(app, {
      bookings,
      root: clientRoot,
      siteUrl: config.siteUrl,
      booked: (request) => readers.attribute(request, "booking"),
    });
    await app.register(assistantPages, {
      assistant,
      siteUrl: config.siteUrl,
      perMinute: config.ASSISTANT_QUESTIONS_PER_MINUTE_PER_IP,
    });
    await consolePages(app, {
      files: siteFiles,
      owner: ownerConsole,
      cookieName: ownerCookieName(config.siteUrl),
    });
    await engagementPages(app, {
      files: siteFiles,
      reads,
      bus,
      siteUrl: config.siteUrl,
      fast: fastPages,
      databaseAway: isDatabaseUnavailable,
      openWeb: fediverse.openWeb,
    });
    await searchPage(app, { root: clientRoot });
    await staticSite(app, { files: siteFiles, fast: fastPages });
  } catch (error) {
    await close();
    throw error;
  }
  return app;
}
