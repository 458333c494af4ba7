import fastifyCookie from "@fastify/cookie";
import { fastifySSE } from "@fastify/sse";
import fastifySwagger from "@fastify/swagger";
import {
  type FastifyPluginAsyncZod,
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
} from "@fastify/type-provider-zod";
import type { Assistant } from "../assistant/service.ts";
import type { Bookings } from "../bookings/service.ts";
import type { Enquiries } from "../enquiries/service.ts";
import type { Readers } from "../readers/service.ts";
import { apiErrorHandler, notFound } from "./errors.ts";
import {
  assertSameOrigin,
  createVisitorReader,
  createWriteLimiter,
  isWrite,
  type RateLimits,
} from "./guards.ts";
import { assistantRoutes, type QuestionLimits } from "./routes/assistant.ts";
import { bookingRoutes } from "./routes/bookings.ts";
import { commentRoutes } from "./routes/comments.ts";
import type { RouteDeps } from "./routes/deps.ts";
import { enquiryRoutes } from "./routes/enquiries.ts";
import { eventRoutes } from "./routes/events.ts";
import { newsletterFormRoutes } from "./routes/newsletter-form.ts";
import { oneClickRoutes } from "./routes/one-click.ts";
import { reactionRoutes } from "./routes/reactions.ts";
import { readerRoutes } from "./routes/readers.ts";
import { subscriberRoutes } from "./routes/subscribers.ts";
import { yourDataRoutes } from "./routes/your-data.ts";
import type { StreamSlots } from "./stream-slots.ts";

type ApiOptions = RouteDeps & {
  /** Where the API is registered (`/api`): the routes are registered under it, not again under it. */
  prefix?: string;
  /** The canonical origin of the site; writes must come from it. */
  siteUrl: string;
  cookieSecret: string;
  /** The server's clock: the visitor cookie's old name is read until its date. */
  clock: () => Date;
  rateLimits: RateLimits;
  streams: { slots: StreamSlots; heartbeatMs: number };
  enquiries: Enquiries;
  readers: Readers;
  /** Whether a path is one of the site's pages, which the readers' beacon may count. */
  isPage(path: string): boolean;
  bookings: Bookings;
  assistant: Assistant;
  questionLimits: QuestionLimits;
  /**
   * Registers the owner's console API, under /api/admin
   * (docs/decisions/012-owner-console.md), inside this plugin: behind the
   * same guards and error answers, and in the same OpenAPI document.
   */
  registerConsole(api: Parameters<FastifyPluginAsyncZod>[0]): PromiseLike<unknown>;
};

/** The engagement API, registered under `/api`. */
export const engagementApi: FastifyPluginAsyncZod<ApiOptions> = async (app, options) => {
  const { siteUrl, cookieSecret, rateLimits, streams } = options;
  // The routes get what this plugin got, less its prefix.
  const { prefix: _prefix, ...deps } = options;
  const siteOrigin = new URL(siteUrl).origin;

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(apiErrorHandler);

  // JSON only: form posts and text/plain (what a cross-site form can send) get
  // 415. The one exception, the newsletter form, is same-origin checked too.
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    // A DELETE sent by a client that always labels its requests JSON has no body.
    if (body === "") done(null, undefined);
    else parseJson(request, body as string, done);
  });

  await app.register(fastifyCookie, { secret: cookieSecret });
  await app.register(fastifySSE, { heartbeatInterval: streams.heartbeatMs });
  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Engage with Engineer — engagement API",
        version: "1.0.0",
        description:
          "Newsletter, reactions and comments, and the owner's console under /api/admin. Writes need a same-origin Origin header and JSON bodies; the first write sets the visitor cookie. Console routes (tag `console`) answer 401 without the owner's session cookie.",
      },
    },
    transform: jsonSchemaTransform,
  });

  const limitWrites = createWriteLimiter(app, rateLimits);
  const readVisitor = createVisitorReader(siteUrl, options.clock);
  app.decorateRequest("visitorId", null);
  // A callback rather than a promise: reads, most requests, finish at once.
  app.addHook("onRequest", (request, reply, done) => {
    request.visitorId = readVisitor(request, reply);
    if (!isWrite(request)) return done();
    try {
      if (request.routeOptions.config.crossSite !== true) assertSameOrigin(request, siteOrigin);
    } catch (error) {
      return done(error as Error);
    }
    // A page view is not a reader's write: it must never use up their comments' allowance.
    if (request.routeOptions.config.beacon === true) return done();
    limitWrites(request).then(() => done(), done);
  });
  // A visitor's write changes what they own: this instance forgets what it kept
  // of theirs before it answers (docs/architecture.md, "Reads").
  app.addHook("onSend", (request, _reply, payload, done) => {
    if (request.visitorId && isWrite(request) && request.routeOptions.config.beacon !== true)
      options.reads.forgetVisitor(request.visitorId);
    done(null, payload);
  });

  await app.register(subscriberRoutes, deps);
  await app.register(newsletterFormRoutes, deps);
  await app.register(oneClickRoutes, deps);
  await app.register(reactionRoutes, deps);
  await app.register(commentRoutes, deps);
  await app.register(yourDataRoutes, deps);
  await app.register(enquiryRoutes, { ...deps, attribute: deps.readers.attribute });
  await app.register(readerRoutes, deps);
  await app.register(bookingRoutes, { ...deps, attribute: deps.readers.attribute });
  await app.register(assistantRoutes, { ...deps, limits: deps.questionLimits });
  await app.register(eventRoutes, { ...deps, slots: streams.slots });
  await options.registerConsole(app);

  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  // Everything under /api is answered here, in JSON, even paths the router
  // cannot match (a parameter over its length limit), which would otherwise
  // fall through to the static site.
  app.all("/*", { schema: { hide: true } }, async () => {
    throw notFound("No such endpoint.");
  });
};
