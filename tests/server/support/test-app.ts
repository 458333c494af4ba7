import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type {
  FastifyInstance,
  FastifyServerOptions,
  InjectOptions,
  LightMyRequestResponse,
} from "fastify";
import { inject } from "vitest";
import { type AppOptions, buildApp } from "../../../server/app.ts";
import { loadConfig } from "../../../server/config.ts";
import type { Catalog } from "../../../server/engagement/catalog.ts";
import { resolveCookieSecret } from "../../../server/engagement/visitor.ts";
import { createCommentFormTokens } from "../../../server/moderation/defences.ts";
import { createFormTokens } from "../../../server/newsletter/form-token.ts";
import { createDatabase, dropDatabase } from "../../support/postgres.ts";

export const backends = ["sqlite", "postgres"] as const;
export type Backend = (typeof backends)[number];

export const siteUrl = "http://ewe.test";
export const siteOrigin = { origin: siteUrl };

/** The real ids, plus spare ones so each test can start from an untouched item. */
export const testCatalog: Catalog = {
  mythology: new Set([
    "sita-faith",
    "rama-duty",
    "garuda",
    ...Array.from({ length: 200 }, (_, i) => `story-${i}`),
  ]),
  science: new Set([
    "wifi",
    "ironing",
    "soap",
    ...Array.from({ length: 200 }, (_, i) => `post-${i}`),
  ]),
};

let spare = 0;
/** An item no other test in this file touches. */
export function freshItem(kind: "mythology" | "science"): string {
  spare += 1;
  return kind === "mythology" ? `story-${spare}` : `post-${spare}`;
}

export type TestAppOptions = {
  env?: Record<string, string>;
  heartbeatMs?: number;
  /** Reuse a database (several instances on one PostgreSQL, or a restart on one SQLite file). */
  databaseUrl?: string;
  dataDir?: string;
  /** Extra files of the built site, by path under its root (e.g. "science/index.html"). */
  clientFiles?: Record<string, string>;
  /** Fastify's logger options; by default the app logs nothing. */
  logger?: FastifyServerOptions["logger"];
  mail?: AppOptions["mail"];
  /** The console's clock (sign-in links and sessions). */
  clock?: AppOptions["clock"];
};

export type TestApp = {
  app: FastifyInstance;
  backend: Backend;
  databaseUrl: string | undefined;
  dataDir: string;
  /** A new browser; `ip` is the address it writes from (127.0.0.1 unless given). */
  visitor(options?: { ip?: string }): Visitor;
  /** A newsletter form token as the page would hold it after a person filled the form. */
  formToken(): string;
  /** A comment form token as the page holds it once a person has had time to write. */
  commentToken(): string;
  close(): Promise<void>;
};

/** Tests write in bursts and open many streams, all from 127.0.0.1; a closed stream is let go of a moment later. */
const generousLimits = {
  RATE_LIMIT_WRITES_PER_VISITOR: "100000",
  RATE_LIMIT_WRITES_PER_IP: "100000",
  EVENT_STREAMS_PER_IP: "1000",
  SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR: "100000",
};

/**
 * A built app on a fresh SQLite file or a fresh PostgreSQL database. Databases
 * this creates are dropped by `close`; shared ones (`databaseUrl`) are not.
 */
export async function startTestApp(
  backend: Backend,
  options: TestAppOptions = {},
): Promise<TestApp> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "ewe-test-"));
  const clientRoot = path.join(scratch, "client");
  mkdirSync(clientRoot);
  writeFileSync(path.join(clientRoot, "index.html"), "<!doctype html><title>home</title>");
  writeFileSync(path.join(clientRoot, "404.html"), "<!doctype html><title>not found</title>");
  for (const [file, content] of Object.entries(options.clientFiles ?? {})) {
    mkdirSync(path.dirname(path.join(clientRoot, file)), { recursive: true });
    writeFileSync(path.join(clientRoot, file), content);
  }
  const dataDir = options.dataDir ?? path.join(scratch, "data");

  const ownsDatabase = backend === "postgres" && !options.databaseUrl;
  const databaseUrl =
    backend === "postgres"
      ? (options.databaseUrl ?? (await createDatabase(inject("postgresUrl"))))
      : undefined;

  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    SITE_URL: siteUrl,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...generousLimits,
    ...options.env,
  });
  const app = await buildApp({
    config,
    clientRoot,
    catalog: testCatalog,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    logger: options.logger ?? false,
    mail: { pollMs: 200, retryBaseMs: 50, ...options.mail },
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const formTokens = createFormTokens(resolveCookieSecret(config));
  const commentTokens = createCommentFormTokens(resolveCookieSecret(config), 0);
  // As the page's form sends it, once a person had time to write.
  const commentToken = () => commentTokens.issue(Date.now() - 60_000);

  return {
    app,
    backend,
    databaseUrl,
    dataDir,
    visitor: (options) => new Visitor(app, commentToken, options?.ip),
    commentToken,
    formToken: () => formTokens.issue(Date.now() - 5000),
    async close() {
      await app.close();
      if (ownsDatabase && databaseUrl) await dropDatabase(databaseUrl);
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

type Body = Record<string, unknown> | string;

/** A browser: keeps the visitor cookie it is given and sends same-origin JSON requests. */
export class Visitor {
  cookie: string | undefined;
  readonly #app: FastifyInstance;
  readonly #commentToken: () => string;
  readonly #ip: string | undefined;

  constructor(app: FastifyInstance, commentToken: () => string, ip?: string) {
    this.#app = app;
    this.#commentToken = commentToken;
    this.#ip = ip;
  }

  async request(
    method: InjectOptions["method"],
    url: string,
    body?: Body,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    const response = await this.#app.inject({
      method,
      url,
      headers: {
        ...siteOrigin,
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(typeof body === "string" ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: body }),
      ...(this.#ip ? { remoteAddress: this.#ip } : {}),
    });
    const setCookie = response.cookies.find((cookie) => cookie.name === "ewe_visitor");
    if (setCookie) this.cookie = `ewe_visitor=${setCookie.value}`;
    return response;
  }

  get = (url: string) => this.request("GET", url);
  post = (url: string, body?: Body) => this.request("POST", url, body);
  patch = (url: string, body?: Body) => this.request("PATCH", url, body);
  delete = (url: string) => this.request("DELETE", url);

  react(kind: string, id: string, type: string, userName = "Alex") {
    return this.post(`/api/items/${kind}/${id}/reactions`, { type, userName });
  }

  /** Posts through the form as a person would: its token is old enough. */
  comment(postId: string, content: string, userName = "Alex") {
    return this.post(`/api/items/science/${postId}/comments`, {
      content,
      userName,
      formToken: this.#commentToken(),
    });
  }
}

// biome-ignore lint/suspicious/noExplicitAny: log lines are arbitrary JSON.
export type LogLine = Record<string, any>;

/** A logger at `level` that keeps every line it writes, parsed, in `lines`. */
export function capturedLogs(level = "debug") {
  const lines: LogLine[] = [];
  return {
    lines,
    logger: { level, stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
  };
}

/** The parsed JSON body, typed loosely for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON.
export function json(response: LightMyRequestResponse): any {
  return JSON.parse(response.body);
}
