import type { IncomingMessage, ServerResponse } from "node:http";
import type { Variant } from "./site-files.ts";

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
 * (`guarded`: the console's pages, which need the owner's session), a read
 * the access log is to write down, and every request once the server is
 * closing. An answer is recorded only if its headers are exactly the page
 * headers and the file's own: one that any other hook touched is never
 * replayed. A hook added later that guards a built path must be named in
 * `guarded`.
 */

/** A variant's answer as the static route sent it: its headers, less those made per request. */
type Recorded = { headers: Record<string, string>; body: Buffer };

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
   * The static route served `variant` for `path` with `headers`: later reads
   * of it in that coding may be answered here.
   */
  record(path: string, variant: Variant, headers: Record<string, unknown>): void;
  /** The server is closing: from now on every request goes to Fastify. */
  stop(): void;
};

export function createFastPages({
  pageHeaders,
  guarded,
  choose,
  requestId,
  logThis,
}: {
  /** The headers every page goes out with (server/web/security-headers.ts). */
  pageHeaders: Record<string, string>;
  /** Paths a hook guards, never answered here. */
  guarded: (path: string) => boolean;
  /** The variant the static route would send for this path and request, if any. */
  choose: (path: string, request: IncomingMessage) => Variant | null;
  /** The id the request is known by (the proxy's, or a new one). */
  requestId: (request: IncomingMessage) => string;
  /** Whether the access log is to write this read down (Fastify's path then answers it). */
  logThis: (request: IncomingMessage) => boolean;
}): FastPages {
  const recorded = new WeakMap<Variant, Recorded>();
  const paths = new Set<string>();
  let open = true;

  return {
    serve(request, response) {
      if (!open || request.method !== "GET") return false;
      const headers = request.headers;
      if (headers["if-none-match"] !== undefined || headers.range !== undefined) return false;
      const url = request.url ?? "";
      const query = url.indexOf("?");
      const path = query === -1 ? url : url.slice(0, query);
      if (!paths.has(path)) return false;
      const variant = choose(path, request);
      const answer = variant && recorded.get(variant);
      if (!answer || logThis(request)) return false;
      // writeHead reads the object at once: the shared one carries this answer's id meanwhile.
      answer.headers["x-request-id"] = requestId(request);
      response.writeHead(200, answer.headers);
      response.end(answer.body);
      return true;
    },

    record(path, variant, sent) {
      if ((recorded.has(variant) && paths.has(path)) || guarded(path)) return;
      const expected: Record<string, string> = {
        ...pageHeaders,
        ...variant.headers,
        "content-length": String(variant.body.length),
      };
      const names = Object.keys(sent).filter((name) => !perAnswer.has(name));
      const same =
        names.length === Object.keys(expected).length &&
        names.every((name) => String(sent[name]) === expected[name]);
      if (!same) return;
      recorded.set(variant, { headers: expected, body: variant.body });
      paths.add(path);
    },

    stop() {
      open = false;
    },
  };
}
