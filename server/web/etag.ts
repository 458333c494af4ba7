import type { FastifyReply, FastifyRequest } from "fastify";
import { acceptsGzip, preferredEncoding } from "../lib/accept-encoding.ts";
import { encoded, type Representation } from "../lib/representation.ts";
import type { FastPages } from "./fast-pages.ts";
import type { Coding } from "./site-files.ts";

/** Whether the client already holds `etag` (If-None-Match may list several). */
export function clientHolds(request: FastifyRequest, etag: string): boolean {
  return request.headers["if-none-match"]?.split(",").some((tag) => tag.trim() === etag) ?? false;
}

/**
 * Sends `entry` with its ETag (304 when the client holds it), compressed when
 * the client accepts it and the entry is worth it. Every coding of one version
 * shares the validator: the bytes differ, the content does not, and `Vary`
 * keeps caches from mixing them up.
 */
export function sendRepresentation(
  request: FastifyRequest,
  reply: FastifyReply,
  entry: Representation,
  /** What else the answer depends on, for caches between (e.g. `cookie`). */
  varies: string[] = [],
) {
  reply.header("etag", entry.etag).header("vary", varyOf(varies));
  if (clientHolds(request, entry.etag)) return reply.code(304).send();
  const acceptEncoding = request.headers["accept-encoding"];
  const coding = !entry.compressible
    ? null
    : entry.gzipOnly
      ? acceptsGzip(acceptEncoding)
        ? "gzip"
        : null
      : preferredEncoding(acceptEncoding);
  if (coding === "br") {
    entry.br ??= encoded(entry.body, "br", entry.brQuality);
    return reply.header("content-encoding", "br").send(entry.br);
  }
  if (coding === "gzip") {
    entry.gzip ??= encoded(entry.body, "gzip");
    return reply.header("content-encoding", "gzip").send(entry.gzip);
  }
  return reply.send(entry.body);
}

const varyOf = (varies: string[]) => ["accept-encoding", ...varies].join(", ");

/**
 * Once `sendRepresentation` has sent `entry` whole, for an address asked with
 * no query, offers it to the fast path in front of Fastify
 * (server/web/fast-pages.ts), in the coding it went out in, for as long as
 * `current()` says the route would still send it. `headers` are those the
 * route set itself (caching, type); `varies` and `api` as it sent them.
 */
export function offerSent(
  fast: FastPages | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  entry: Representation,
  {
    headers,
    varies = [],
    api = false,
  }: { headers: Record<string, string>; varies?: string[]; api?: boolean },
  current: () => boolean,
) {
  const url = request.raw.url ?? "";
  if (!fast || reply.statusCode !== 200 || url.includes("?")) return;
  const coding = (reply.getHeader("content-encoding") as Coding | undefined) ?? "identity";
  const body = coding === "identity" ? entry.body : entry[coding];
  if (!body) return;
  fast.recordLive(
    url,
    request.raw,
    {
      route: request.routeOptions.url ?? url,
      body,
      api,
      sent: reply.raw.getHeaders(),
      own: {
        ...headers,
        etag: entry.etag,
        vary: varyOf(varies),
        ...(coding === "identity" ? {} : { "content-encoding": coding }),
      },
    },
    current,
  );
}
