import type { IncomingMessage, ServerResponse } from "node:http";
import { type AccessLog, redactUrl } from "../logging.ts";
import type { Coding, Variant } from "./site-files.ts";

/**
 * The built site's plain reads answered before Fastify sees them: a page or
 * asset the static route (static-site.ts) has already served once, in the
 * same coding, asked for again with no condition, no range and no body. The
 * answer is the bytes in memory with the very headers the route sent that
 * first time (security headers and all, recorded from the response), a new
 * request id and the date: nothing is decided here that the route did not
 * decide. Routing, hooks and the reply's machinery were two thirds of such a
 * read's CPU (docs/decisions/029-pages-from-memory.md).
 *
 * Anything else goes to Fastify as before: another method, a conditional or
 * partial request, a path or coding not yet served, a path a hook guards
 * (`guarded`: the console's pages, which need the owner's session), every
 * request at the log's `debug` level, and every request once the server is
 * closing. An answer is recorded only if its headers are exactly the page
 * headers and the file's own: one that any other hook touched is never
 * replayed. A hook added later that guards a built path must be named in
 * `guarded`. The one read in `LOG_SAMPLE_READS` the access log writes down
 * is written here, with the route's name as Fastify would write it.
 * An answer made for one reader (`recordLive` with `reader`) is sent again
 * only to a request with the very same Cookie and Accept-Encoding headers
 * (docs/decisions/069-a-returning-readers-read-on-the-fast-path.md).
 */

/** A variant's answer as the static route sent it: its headers, less those made per request. */
type Recorded = { headers: Record<string, string>; body: Buffer; route: string };

/** Headers that belong to one answer, not to the bytes: never replayed. */
const perAnswer = new Set([
  "date",
  "connection",
  "keep-alive",
  "x-request-id",
  "transfer-encoding",
]);

export type FastPages = {
  /** Answers `request` and returns true, or returns false and leaves it to Fastify. */
  serve(request: IncomingMessage, response: ServerResponse): boolean;
  /**
   * A route answered `request` for `path`, asked for with no query, with
   * `body` and `sent` headers, and the answer stays right while `current()`
   * says so (the pages filled in with their discussion, until a write changes
   * them): later reads of it that accept the same codings (`codingOf`) may be
   * answered here until then.
   */
  recordLive(
    path: string,
    request: IncomingMessage,
    answer: {
      /** The route that answered, as Fastify names it (`request.routeOptions.url`). */
      route: string;
      body: Buffer;
      sent: Record<string, unknown>;
      own: Record<string, string>;
      /** An API answer (the API's own security headers), for readers without a cookie only. */
      api?: boolean;
      /**
       * Made for the reader whose Cookie header `request` carries: sent again only
       * to a request with that Cookie and Accept-Encoding, byte for byte.
       */
      reader?: boolean;
    },
    current: () => boolean,
  ): void;
  /**
   * The static route (`route`) served `variant` for `path` with `headers`:
   * later reads of it in that coding may be answered here.
   */
  record(path: string, route: string, variant: Variant, headers: Record<string, unknown>): void;
  /** The server is closing: from now on every request goes to Fastify. */
  stop(): void;
};

export function createFastPages({
  pageHeaders,
  apiHeaders,
  guarded,
  choose,
  codingOf,
  requestId,
  accessLog,
}: {
  /** The best coding a request accepts: live answers (`recordLive`) are kept by it. */
  codingOf: (request: IncomingMessage) => Coding;
  /** The headers every page goes out with (server/web/security-headers.ts). */
  pageHeaders: Record<string, string>;
  /** The headers every API answer goes out with. */
  apiHeaders: Record<string, string>;
  /** Paths a hook guards, never answered here. */
  guarded: (path: string) => boolean;
  /** The variant the static route would send for this path and request, if any. */
  choose: (path: string, request: IncomingMessage) => Variant | null;
  /** The id the request is known by (the proxy's, or a new one). */
  requestId: (request: IncomingMessage) => string;
  /** The access log's sample of reads answered here. */
  accessLog: AccessLog;
}): FastPages {
  const recorded = new WeakMap<Variant, Recorded>();
  const paths = new Set<string>();
  const live = new Map<
    string,
    Map<Coding, Recorded & { current: () => boolean; anonymous: boolean }>
  >();
  /** Answers made for one reader, by `readerKey`; the least recently recorded forgotten first. */
  const readers = new Map<string, Recorded & { current: () => boolean }>();
  const readersKept = 1_000;
  /** The most characters of Cookie and Accept-Encoding an answer is kept for. */
  const readerHeadersMax = 256;
  const readerKey = (path: string, { headers }: IncomingMessage) =>
    `${path}\n${headers["accept-encoding"] ?? ""}\n${headers.cookie}`;
  let open = true;

  /** Exactly the page headers and the route's own, with the body's length: else null. */
  function untouched(
    sent: Record<string, unknown>,
    own: Record<string, string>,
    body: Buffer,
    base = pageHeaders,
  ): Record<string, string> | null {
    const expected: Record<string, string> = {
      ...base,
      ...own,
      "content-length": String(body.length),
    };
    const names = Object.keys(sent).filter((name) => !perAnswer.has(name));
    const same =
      names.length === Object.keys(expected).length &&
      names.every((name) => String(sent[name]) === expected[name]);
    return same ? expected : null;
  }

  function send(response: ServerResponse, answer: Recorded, request: IncomingMessage) {
    const logged = accessLog.sample() ? performance.now() : -1;
    const id = requestId(request);
    // writeHead reads the object at once: the shared one carries this answer's id meanwhile.
    answer.headers["x-request-id"] = id;
    response.writeHead(200, answer.headers);
    response.end(answer.body);
    if (logged === -1) return;
    const { route, body } = answer;
    accessLog.write(request, { id, route, status: 200, bytes: body.length, started: logged });
  }

  return {
    serve(request, response) {
      if (!open || request.method !== "GET" || accessLog.debug) return false;
      const headers = request.headers;
      if (headers["if-none-match"] !== undefined || headers.range !== undefined) return false;
      const url = request.url ?? "";
      const query = url.indexOf("?");
      if (query === -1 && headers.cookie !== undefined) {
        const key = readerKey(url, request);
        const answer = readers.get(key);
        if (answer?.current()) {
          send(response, answer, request);
          return true;
        }
        if (answer) readers.delete(key);
      }
      if (query === -1) {
        const answer = live.get(url)?.get(codingOf(request));
        if (answer?.current() && !(answer.anonymous && headers.cookie !== undefined)) {
          send(response, answer, request);
          return true;
        }
      }
      const path = query === -1 ? url : url.slice(0, query);
      // A page opened with a mail's token goes through Fastify, whose hook names its own
      // Referrer-Policy (security-headers.ts), not the one this page was recorded with.
      if (!paths.has(path) || (query !== -1 && redactUrl(url) !== url)) return false;
      const variant = choose(path, request);
      const answer = variant && recorded.get(variant);
      if (!answer) return false;
      send(response, answer, request);
      return true;
    },

    recordLive(path, request, { route, body, sent, own, api = false, reader = false }, current) {
      const cookie = request.headers.cookie !== undefined;
      if (guarded(path) || !current() || ((api || reader) && cookie !== reader)) return;
      const headers = untouched(sent, own, body, api ? apiHeaders : pageHeaders);
      if (!headers) return;
      if (reader) {
        const key = readerKey(path, request);
        // A browser's two headers are some 100 characters: a key past that is no reader's.
        if (key.length > path.length + readerHeadersMax) return;
        readers.delete(key);
        if (readers.size >= readersKept) readers.delete(readers.keys().next().value as string);
        readers.set(key, { headers, body, route, current });
        return;
      }
      let codings = live.get(path);
      if (!codings) {
        codings = new Map();
        live.set(path, codings);
      }
      codings.set(codingOf(request), { headers, body, route, current, anonymous: api });
    },

    record(path, route, variant, sent) {
      if ((recorded.has(variant) && paths.has(path)) || guarded(path)) return;
      const headers = untouched(sent, variant.headers, variant.body);
      if (!headers) return;
      recorded.set(variant, { headers, body: variant.body, route });
      paths.add(path);
    },

    stop() {
      open = false;
    },
  };
}
