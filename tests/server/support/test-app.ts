import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance, FastifyServerOptions } from "fastify";
import { inject } from "vitest";
import { z } from "zod";
import { firstLoaded, type LoadedComments } from "../../../app/lib/comment-list.ts";
import { loadItemIndex, loadServiceTitles } from "../../../content/catalog.ts";
import { type OwnerProfile, readOwnerProfile } from "../../../content/owner.ts";
import { commentsResponseSchema } from "../../../contract/api.ts";
import { type AppOptions, buildApp } from "../../../server/app.ts";
import { loadConfig } from "../../../server/config.ts";
import { sqliteFileOf } from "../../../server/db/store-config.ts";
import type { Catalog } from "../../../server/engagement/catalog.ts";
import { resolveCookieSecret } from "../../../server/engagement/visitor.ts";
import { createFormTickets, createFormTokens } from "../../../server/lib/form-token.ts";
import { type AddressKey, suppressionKey } from "../../../server/lib/mailbox.ts";
import { type StandingLinks, standingLinks } from "../../../server/lib/tokens.ts";
import { createCommentFormTokens } from "../../../server/moderation/defences.ts";
import { fakeBuiltSite } from "../../support/built-site.ts";
import { createDatabase, dropDatabase } from "../../support/postgres.ts";
import { generousLimits, type LogLine } from "../../support/server-process.ts";
import {
  type Visitor as AnyVisitor,
  type InjectResponse,
  injectVisitor,
} from "../../support/visitor.ts";

export const backends = ["sqlite", "postgres"] as const;
export type Backend = (typeof backends)[number];

export const siteUrl = "http://ewe.test";
export const siteOrigin = { origin: siteUrl };

/** The built site's feed.json with one item, /science/soap: the Fediverse's items are read from it. */
export const soapFeed = {
  version: "https://jsonfeed.org/version/1.1",
  items: [
    {
      id: `${siteUrl}/science/soap`,
      url: `${siteUrl}/science/soap`,
      title: "How does soap clean?",
      summary: "Soap molecules hold on to grease with one end and to water with the other.",
      content_html:
        "<p>Soap molecules hold on to grease with one end and to water with the other.</p>",
      image: `${siteUrl}/og/science/soap.png`,
      date_published: "2026-05-01T00:00:00.000Z",
      date_modified: "2026-05-02T00:00:00.000Z",
    },
  ],
};

/**
 * The real ids, plus spare ones so each test can start from an untouched item:
 * enough for every file a worker runs, since the files share this module
 * (vitest.server.config.ts, `isolate: false`).
 */
const spareItems = 2000;
export const testCatalog: Catalog = {
  mythology: new Set([
    "sita-faith",
    "rama-duty",
    "garuda",
    ...Array.from({ length: spareItems }, (_, i) => `story-${i}`),
  ]),
  science: new Set([
    "wifi",
    "ironing",
    "soap",
    ...Array.from({ length: spareItems }, (_, i) => `post-${i}`),
  ]),
};

let spare = 0;
/** An item no other test in this file touches. */
export function freshItem(kind: "mythology" | "science"): string {
  spare += 1;
  if (spare >= spareItems) throw new Error(`more than ${spareItems} fresh items in one worker`);
  return kind === "mythology" ? `story-${spare}` : `post-${spare}`;
}

export type TestAppOptions = {
  env?: Record<string, string>;
  /** The owner's profile, instead of content/owner.md's, and the folder its picture is in. */
  ownerProfile?: OwnerProfile;
  contentRoot?: string;
  heartbeatMs?: number;
  /** Reuse a database (several instances on one PostgreSQL, or a restart on one SQLite file). */
  databaseUrl?: string;
  /**
   * A new database, on either backend, starts as a copy of one the global
   * setup migrated; `emptyDatabase` gives an empty one, which the app
   * migrates. A given `dataDir` keeps whatever SQLite file is in it.
   */
  emptyDatabase?: boolean;
  dataDir?: string;
  /** Extra files of the built site, by path under its root (e.g. "science/index.html"). */
  clientFiles?: Record<string, string | Buffer>;
  /** Fastify's logger options; by default the app logs nothing. */
  logger?: FastifyServerOptions["logger"];
  mail?: AppOptions["mail"];
  /**
   * How often scheduled editions are looked for: the server's 5 s unless
   * given. The tests of scheduled sending give 200 ms, so as not to wait
   * out the server's pace; every other app looking 5 times a second for
   * editions it never has cost about half of an idle app's CPU.
   */
  scheduleEveryMs?: number;
  /** How soon the bounce mailbox is first read: the server's 5 s unless given. */
  bounceFirstMs?: number;
  /** The console's clock (sign-in links and sessions), the readers' days and the assistant's day. */
  clock?: AppOptions["clock"];
  /** The readers' counting: how often it writes. */
  readers?: AppOptions["readers"];
  /** Where SNS's signing certificates may come from. */
  snsTrust?: AppOptions["snsTrust"];
  /** The assistant's built index; by default none beside the fake built site. */
  assistantIndex?: AppOptions["assistantIndex"];
  /** The private addresses Fediverse deliveries may reach, as if public. */
  privateInboxesAllowed?: AppOptions["privateInboxesAllowed"];
  /** Where the owner's busy calendar may be read from (a stand-in on loopback), and how often. */
  busyCalendar?: AppOptions["busyCalendar"];
  /** How the app imports Fedify's side of the site (a test makes a load fail). */
  importFederation?: NonNullable<AppOptions["fediverse"]>["importFederation"];
  /**
   * How long a Fediverse delivery's post waits for its answer (the server's 15 s unless given),
   * or a function of its first post's inbox.
   */
  fediverseAnswerMs?: NonNullable<AppOptions["fediverse"]>["answerMs"];
};

export type TestApp = {
  app: FastifyInstance;
  backend: Backend;
  databaseUrl: string | undefined;
  dataDir: string;
  /** The built site it serves (`clientFiles`). */
  clientRoot: string;
  /** A new browser; `ip` is the address it writes from (127.0.0.1 unless given). */
  visitor(options?: { ip?: string }): Visitor;
  /** A newsletter form token as the page would hold it after a person filled the form. */
  formToken(): string;
  /** The newsletter form's sealed address without JavaScript, as a person's second step sends it. */
  formTicket(email: string): string;
  /** A comment form token as the page holds it once a person has had time to write. */
  commentToken(): string;
  /** The digest the site keeps a suppressed address under (server/outbox/suppressions.ts). */
  addressKey: AddressKey;
  /** The site's standing links: a seed's unsubscribe or stop link (server/lib/tokens.ts). */
  links: StandingLinks;
  close(): Promise<void>;
};

/**
 * What an app reads of content/ at its start, read once per worker: each
 * app's configuration and each command run with `admin` parsed the owner's
 * profile again, and each app every item's and service's frontmatter.
 */
let ownerProfile: OwnerProfile | undefined;
export const siteOwnerProfile = () => (ownerProfile ??= readOwnerProfile());
let content: AppOptions["content"];
const siteContent = () => (content ??= { items: loadItemIndex(), services: loadServiceTitles() });

/** The outboxes of the apps running in this process, woken after a command (support/admin.ts). */
const outboxes = new Set<() => void>();

/**
 * Has every running app look for mail now: what the command line queued,
 * instead of at its next poll, a second later.
 */
export function wakeOutboxes() {
  for (const wake of outboxes) wake();
}

/**
 * A built app on a fresh SQLite file or a fresh PostgreSQL database (migrated
 * already, unless `emptyDatabase` or, on SQLite, a `dataDir` is given). Databases this creates are dropped by
 * `close`; shared ones (`databaseUrl`) are not.
 */
export async function startTestApp(
  backend: Backend,
  options: TestAppOptions = {},
): Promise<TestApp> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "ewe-test-"));
  const clientRoot = fakeBuiltSite(options.clientFiles, path.join(scratch, "client"));
  const dataDir = options.dataDir ?? path.join(scratch, "data");

  const ownsDatabase = backend === "postgres" && !options.databaseUrl;
  const databaseUrl =
    backend === "postgres"
      ? (options.databaseUrl ??
        (await createDatabase(
          inject("postgresUrl"),
          "ewe_test",
          options.emptyDatabase ? undefined : inject("postgresTemplate"),
        )))
      : undefined;

  const config = loadConfig(
    {
      NODE_ENV: "test",
      DATA_DIR: dataDir,
      SITE_URL: siteUrl,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...generousLimits,
      // Mail as fast as the sink takes it: at the server's 60 a minute, a test
      // waiting for its second mail waited out a second. The pace is tested
      // where it is given (tests/server/faults/newsletter-faults.test.ts).
      MAIL_RATE_PER_MINUTE: "0",
      ...options.env,
    },
    { ownerProfile: options.ownerProfile ?? siteOwnerProfile() },
  );
  if (backend === "sqlite" && !options.dataDir && !options.emptyDatabase) {
    // The app opens it as it would its own (the folder 0700, the file 0600).
    const file = sqliteFileOf(config);
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    copyFileSync(inject("sqliteTemplate"), file);
  }
  const app = await buildApp({
    config,
    clientRoot,
    catalog: testCatalog,
    content: siteContent(),
    heartbeatMs: options.heartbeatMs ?? 15_000,
    logger: options.logger ?? false,
    // Rows this app queues wake its outbox, and a retry wakes it when due, as
    // does a command run with `admin` (support/admin.ts): the polling finds
    // only rows other processes queue, and rows a moved clock (`mail.clock`)
    // makes due, which tests wait for.
    mail: { pollMs: options.mail?.clock ? 200 : 1000, retryBaseMs: 50, ...options.mail },
    ...(options.scheduleEveryMs ? { scheduleEveryMs: options.scheduleEveryMs } : {}),
    ...(options.bounceFirstMs ? { bounceFirstMs: options.bounceFirstMs } : {}),
    // Hundreds of requests at once on a loaded 2-core machine queue for the
    // pool's connections longer than the 5 s a request waits in production.
    databaseWaitMs: 30_000,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.readers ? { readers: options.readers } : {}),
    ...(options.snsTrust ? { snsTrust: options.snsTrust } : {}),
    ...(options.assistantIndex ? { assistantIndex: options.assistantIndex } : {}),
    ...(options.contentRoot ? { contentRoot: options.contentRoot } : {}),
    ...(options.privateInboxesAllowed
      ? { privateInboxesAllowed: options.privateInboxesAllowed }
      : {}),
    ...(options.busyCalendar ? { busyCalendar: options.busyCalendar } : {}),
    fediverse: {
      ...(options.importFederation ? { importFederation: options.importFederation } : {}),
      ...(options.fediverseAnswerMs ? { answerMs: options.fediverseAnswerMs } : {}),
    },
  });
  outboxes.add(app.wakeOutbox);
  const formTokens = createFormTokens(resolveCookieSecret(config));
  const commentTokens = createCommentFormTokens(resolveCookieSecret(config), 0);
  // As the page's form sends it, once a person had time to write.
  const commentToken = () => commentTokens.issue(Date.now() - 60_000);

  return {
    app,
    backend,
    databaseUrl,
    dataDir,
    clientRoot,
    visitor: (options) =>
      injectVisitor(app, {
        origin: new URL(config.siteUrl).origin,
        commentToken,
        ...(options?.ip ? { ip: options.ip } : {}),
      }),
    commentToken,
    formToken: () => formTokens.issue(Date.now() - 5000),
    formTicket: (email) =>
      createFormTickets(resolveCookieSecret(config)).seal(email, Date.now() - 60_000),
    addressKey: suppressionKey(resolveCookieSecret(config)),
    links: standingLinks(resolveCookieSecret(config)),
    async close() {
      outboxes.delete(app.wakeOutbox);
      await app.close();
      if (ownsDatabase && databaseUrl) await dropDatabase(databaseUrl);
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** A browser on an app of this process, through inject. */
export type Visitor = AnyVisitor<InjectResponse>;

/** A logger at `level` that keeps every line it writes, parsed, in `lines`. */
export function capturedLogs(level = "debug") {
  const lines: LogLine[] = [];
  return {
    lines,
    logger: { level, stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
  };
}

/** What `GET /readyz` answers (server/app.ts), which is not one of the API's routes. */
export const readinessSchema = z.object({
  status: z.enum(["ready", "unavailable"]),
  database: z.enum(["sqlite", "postgres"]),
  liveEvents: z.enum(["listening", "reconnecting"]),
  reason: z.string().optional(),
});

/** A JSON Schema of the OpenAPI document, as far as tests read one. */
export type OpenApiSchema = {
  type?: string;
  maxLength?: number;
  enum?: unknown[];
  properties?: Record<string, OpenApiSchema>;
};
const openApiSchemaSchema: z.ZodType<OpenApiSchema> = z.lazy(() =>
  z.object({
    type: z.string().optional(),
    maxLength: z.number().optional(),
    enum: z.array(z.unknown()).optional(),
    properties: z.record(z.string(), openApiSchemaSchema).optional(),
  }),
);

/**
 * The parts of the OpenAPI document (`GET /api/openapi.json`, generated from
 * the routes' schemas by @fastify/swagger) that tests read.
 */
export const openApiDocumentSchema = z.object({
  openapi: z.string(),
  paths: z.record(
    z.string(),
    z.record(
      z.string(),
      z.object({
        tags: z.array(z.string()).optional(),
        requestBody: z
          .object({
            content: z.record(z.string(), z.object({ schema: openApiSchemaSchema })),
          })
          .optional(),
        responses: z.record(z.string(), z.unknown()),
      }),
    ),
  ),
});

/**
 * An answer's JSON body, checked against the schema the contract (or, for
 * what is not an API route, the test) gives for it: a body of the wrong shape
 * fails the test here. The body is returned as sent, not as the schema would
 * strip it, so a test can still see a field that should not be there.
 * Without a schema it is `unknown`, to be checked by what the test asserts.
 */
export function json<S extends z.ZodType>(response: { body: string }, schema: S): z.output<S>;
export function json(response: { body: string }): unknown;
export function json(response: { body: string }, schema?: z.ZodType): unknown {
  const body: unknown = JSON.parse(response.body);
  if (schema) schema.parse(body);
  return body;
}

/**
 * A post's comments as the page shows them from an answer without a cursor:
 * everyone's, with what the reader owns applied (`own`, as the page applies
 * it: app/lib/comment-list.ts).
 */
export function seen(response: { body: string }): LoadedComments {
  return firstLoaded(json(response, commentsResponseSchema));
}
