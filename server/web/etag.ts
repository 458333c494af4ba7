import type { FastifyReply, FastifyRequest } from "fastify";
import { type Representation, varyOf } from "../lib/representation.ts";
import type { FastPages } from "./fast-pages.ts";
import type { Coding } from "./site-files.ts";

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
    reader = false,
  }: {
    headers: Record<string, string>;
    varies?: string[];
    api?: boolean;
    /** Made for the reader whose cookie the request carries (fast-pages.ts, `recordLive`). */
    reader?: boolean;
  },
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
      reader,
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
