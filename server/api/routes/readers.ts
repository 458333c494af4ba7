import type { IncomingMessage, ServerResponse } from "node:http";
import proxyAddr from "@fastify/proxy-addr";
import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { z } from "zod";
import { readBeaconSchema, viewBeaconSchema } from "../../../contract/readers.ts";
import { fromSite } from "../../lib/action-page.ts";
import type { AccessLog } from "../../logging.ts";
import type { ReaderRequest, Readers } from "../../readers/service.ts";
import { emptyAnswerHeaders } from "../../web/security-headers.ts";
import { routesTagged } from "../errors.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The pages' beacon: not a reader's write, so outside the write limits. */
    beacon?: boolean;
  }
}

/**
 * A page of the site, as the beacon names it, or null. Each of a page's
 * names (`/science/`, `/science/index.html`, `/index.html`) counts as the
 * page's own address, so no page is split over several rows.
 */
function pageOf(path: string, isPage: (path: string) => boolean): string | null {
  let page = path;
  const tail = /\/(?:index\.html)?$/;
  while (tail.test(page)) page = page.replace(tail, "");
  page ||= "/";
  return isPage(page) ? page : null;
}

type Beacon =
  | { kind: "view"; query: z.output<typeof viewBeaconSchema> }
  | { kind: "read"; query: z.output<typeof readBeaconSchema> };

/**
 * What the beacon's two kinds of request count: done at once (a boolean) or,
 * while the day's salt is being read, a promise.
 */
function count(
  readers: Readers,
  isPage: (path: string) => boolean,
  request: ReaderRequest,
  beacon: Beacon,
): boolean | Promise<boolean> {
  const path = pageOf(beacon.query.p, isPage);
  if (!path) return false;
  if (beacon.kind === "view") {
    const { r, q, z: timeZone } = beacon.query;
    return readers.view(request, { path, referrer: r, query: q, timeZone });
  }
  return readers.read(request, path);
}

/**
 * The beacon every page sends once it has loaded and is visible, and again
 * when an article is read (docs/product.md, "Readers"). It is always answered
 * 204, counted or not, so the answer tells nobody what was stored; a path
 * that is not a page of the site is not counted.
 */
export const readerRoutes: FastifyPluginAsyncZod<{
  readers: Readers;
  isPage(path: string): boolean;
}> = async (app, { readers, isPage }) => {
  const config = { beacon: true, emptyAnswer: true };
  const route = routesTagged("readers");
  const counted = { 204: z.null() };

  app.post(
    "/readers/view",
    {
      config,
      ...route(
        "Count a page view (the pages' beacon, after load, when the page is visible)",
        counted,
        {
          description:
            "Not counted: a bot, a prefetch or prerender, Sec-GPC: 1 or DNT: 1, the owner's browser, ANALYTICS=off. No cookie is read or set; the reader is a hash of the day.",
          querystring: viewBeaconSchema,
        },
      ),
    },
    async (request, reply) => {
      await count(readers, isPage, request, { kind: "view", query: request.query });
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/readers/read",
    {
      config,
      ...route("Count an engaged read of an article: its end reached, or 30 s in view", counted, {
        querystring: readBeaconSchema,
      }),
    },
    async (request, reply) => {
      await count(readers, isPage, request, { kind: "read", query: request.query });
      return reply.code(204).send(null);
    },
  );
};

/** Each name a beacon's query may hold, with the length its schema allows. */
function lengths(schema: typeof viewBeaconSchema | typeof readBeaconSchema) {
  return new Map(
    Object.entries(schema.shape).map(([name, field]) => {
      const text = field instanceof z.ZodDefault ? field.unwrap() : field;
      return [name, [text.minLength ?? 0, text.maxLength ?? Number.POSITIVE_INFINITY]] as const;
    }),
  );
}
const beaconNames = { view: lengths(viewBeaconSchema), read: lengths(readBeaconSchema) };

/**
 * The beacon's query as its route's schema would take it (unnamed fields
 * their defaults), read by hand: URLSearchParams and the schema were a tenth
 * of a view's CPU. Null for anything else, which Fastify then answers: a name
 * given twice (an array to Fastify, which the schema refuses), a name the
 * schema does not have, a length it refuses, a pair without `=`, a value that
 * does not decode.
 */
function queryOf(kind: "view" | "read", url: string): Beacon["query"] | null {
  const names = beaconNames[kind];
  const query: Record<string, string> = kind === "view" ? { r: "", q: "", z: "" } : {};
  const seen = new Set<string>();
  for (const pair of url.slice(url.indexOf("?") + 1).split("&")) {
    if (pair === "") continue;
    const equals = pair.indexOf("=");
    const name = equals === -1 ? "" : pair.slice(0, equals);
    const limits = names.get(name);
    if (!limits || seen.has(name)) return null;
    seen.add(name);
    let value = pair.slice(equals + 1);
    if (value.includes("+")) value = value.replaceAll("+", " ");
    if (value.includes("%")) {
      try {
        value = decodeURIComponent(value);
      } catch {
        return null;
      }
    }
    if (value.length < limits[0] || value.length > limits[1]) return null;
    query[name] = value;
  }
  return seen.has("p") ? (query as Beacon["query"]) : null;
}

/**
 * The beacon's requests answered before Fastify, as the built pages are
 * (server/web/fast-pages.ts): a page view is the write the site takes most
 * often, and Fastify's routing, hooks and reply were most of its cost. Only
 * what the routes above would answer 204 is answered here, with the same
 * headers: a POST with no body from this site's own pages, its query one
 * the route's schema takes, while the server is open; the one view in
 * `LOG_SAMPLE_READS` the access log writes down is written here, with the
 * line Fastify would write (at the log's `debug` level, every view goes to
 * Fastify, which logs its arrival too). Anything else goes to Fastify, which answers
 * as before; so does a request whose count fails (the database away), for
 * Fastify's error answer.
 */
export function fastBeacon({
  readers,
  isPage,
  siteOrigin,
  trusted,
  apiHeaders,
  requestId,
  accessLog,
  open,
}: {
  readers: Readers;
  isPage(path: string): boolean;
  siteOrigin: string;
  /** The proxies Fastify's `trustProxy` trusts (false: none), so the reader's address is its `request.ip`. */
  trusted: false | ((address: string, hop: number) => boolean);
  /** The headers every API answer goes out with (server/web/security-headers.ts): its 204 keeps those an empty answer needs. */
  apiHeaders: Record<string, string>;
  requestId(request: IncomingMessage): string;
  accessLog: AccessLog;
  open(): boolean;
}) {
  // Without a trusted proxy, Fastify's `request.ip` is the socket's address.
  const ipOf = trusted
    ? (request: IncomingMessage) => proxyAddr(request, trusted)
    : (request: IncomingMessage) => request.socket.remoteAddress ?? "";
  // Those of an answer without a body, in a copy of their own: each answer sets its
  // id in it just before writeHead reads it.
  const answerHeaders = emptyAnswerHeaders(apiHeaders);
  return (
    request: IncomingMessage,
    response: ServerResponse,
    fastify: (request: IncomingMessage, response: ServerResponse) => void,
  ): boolean => {
    if (request.method !== "POST" || accessLog.debug) return false;
    const url = request.url ?? "";
    const kind = url.startsWith("/api/readers/view?")
      ? "view"
      : url.startsWith("/api/readers/read?")
        ? "read"
        : null;
    const { headers } = request;
    if (
      !kind ||
      (headers["content-length"] !== undefined && headers["content-length"] !== "0") ||
      headers["transfer-encoding"] !== undefined ||
      !fromSite(request, siteOrigin) ||
      !open()
    ) {
      return false;
    }
    const query = queryOf(kind, url);
    if (!query) return false;
    const beacon = { kind, query } as Beacon;
    const ip = ipOf(request);
    // The one in `LOG_SAMPLE_READS` the access log writes down, once answered.
    const logged = accessLog.sample() ? performance.now() : -1;
    const answer = () => {
      const id = requestId(request);
      answerHeaders["x-request-id"] = id;
      response.writeHead(204, answerHeaders);
      response.end();
      if (logged === -1) return;
      accessLog.write(request, { id, route: `/api/readers/${kind}`, status: 204, started: logged });
    };
    let counted: boolean | Promise<boolean>;
    try {
      counted = count(readers, isPage, { ip, headers }, beacon);
    } catch {
      return false;
    }
    // Answered in the same turn, once the day's salt is known (nearly always).
    if (typeof counted === "boolean") answer();
    else counted.then(answer, () => fastify(request, response));
    return true;
  };
}
