import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { visitorCookieNameOf } from "../../contract/site-config.ts";
import { isVisitorId, legacyVisitorCookie, newVisitorId } from "../engagement/visitor.ts";
import { fromSite } from "../lib/action-page.ts";
import {
  type AddressCount,
  countByAddress,
  networkFactor,
  type Refusal,
} from "../lib/address-limit.ts";
import { addressScope, networkOf } from "../lib/address-scope.ts";
import { ApiError } from "./errors.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The anonymous visitor behind the request, from the signed cookie; null before its first write. */
    visitorId: string | null;
  }
}

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

export function isWrite(request: FastifyRequest): boolean {
  return !safeMethods.has(request.method);
}

/**
 * Reads the visitor cookie. Checking its signature is an HMAC, the largest
 * part of a returning reader's read from memory, so the identity each valid
 * cookie carries is kept, up to `kept` cookies (then all are forgotten and
 * checked again); one app's reader, since the signature is the app's.
 * Over https, a cookie still under its old name (`legacyVisitorCookie`) is read
 * until that name's date, and the answer moves it to the new one.
 */
export function createVisitorReader(siteUrl: string, clock: () => Date) {
  const name = visitorCookieNameOf(siteUrl);
  const legacy = name === legacyVisitorCookie.name ? null : legacyVisitorCookie;
  const known = new Map<string, string>();
  const kept = 10_000;
  const read = (raw: string | undefined, request: FastifyRequest): string | null => {
    if (!raw) return null;
    const seen = known.get(raw);
    if (seen !== undefined) return seen;
    const { valid, value } = request.unsignCookie(raw);
    if (!valid || value === null || !isVisitorId(value)) return null;
    if (known.size >= kept) known.clear();
    known.set(raw, value);
    return value;
  };
  return (request: FastifyRequest, reply: FastifyReply): string | null => {
    const current = request.cookies[name];
    if (current !== undefined || legacy === null) return read(current, request);
    const old = request.cookies[legacy.name];
    if (old === undefined || clock().getTime() >= legacy.until) return null;
    const visitorId = read(old, request);
    if (visitorId !== null) {
      setVisitorCookie(request, reply, siteUrl, visitorId);
      reply.clearCookie(legacy.name, { ...visitorCookieOptions(request, siteUrl), maxAge: 0 });
    }
    return visitorId;
  };
}

const visitorCookieOptions = (request: FastifyRequest, siteUrl: string) => ({
  httpOnly: true,
  sameSite: "lax" as const,
  secure: request.protocol === "https" || siteUrl.startsWith("https:"),
  path: "/",
});

function setVisitorCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  siteUrl: string,
  visitorId: string,
) {
  reply.setCookie(visitorCookieNameOf(siteUrl), visitorId, {
    ...visitorCookieOptions(request, siteUrl),
    signed: true,
    maxAge: 400 * 24 * 60 * 60,
  });
}

/** Gives a visitor without an identity one, in a cookie the browser keeps for 400 days (its cap). */
export function issueVisitor(
  request: FastifyRequest,
  reply: FastifyReply,
  siteUrl: string,
): string {
  const visitorId = newVisitorId();
  setVisitorCookie(request, reply, siteUrl, visitorId);
  return visitorId;
}

/**
 * Writes come only from the site's own pages (`fromSite`). Together with SameSite=Lax
 * and the JSON-only body this rules out cross-site request forgery. The Host
 * header proves nothing: under DNS rebinding a page of evil.example reaches
 * this server with Host and Origin both evil.example.
 */
export function assertSameOrigin(request: FastifyRequest, siteOrigin: string): void {
  if (fromSite(request, siteOrigin)) return;
  throw new ApiError(403, "cross_origin", "Changes are accepted only from this site's own pages.");
}

export type RateLimits = {
  perVisitor: number;
  perIp: number;
  windowMs: number;
};

/**
 * Counts writes per visitor, per IP address and per network (`countByAddress`);
 * any running out answers 429. An address's writes in any one second of the clock are held to a second's
 * share of its allowance (at least 10), a network's to ten times that: its whole allowance sent at once was
 * written at once, and every other reader waited (seconds; on SQLite every
 * page, its commits holding the event loop). Not a route from anywhere
 * (`crossSite`, the one-click unsubscribe): a mail provider posts its
 * readers' from one address, each its own token, and one refused is a reader
 * still mailed after leaving.
 */
export function createWriteLimiter(app: FastifyInstance, limits: RateLimits) {
  const inWindow = createVisitorLimiter(app, limits, {
    name: "writes",
    message: (_, from) =>
      `Too many changes${from === "your network" ? " from your network" : ""} in a short time; try again shortly.`,
  });
  const perSecond = Math.max(10, Math.ceil((limits.perIp * 1000) / limits.windowMs));
  // Counted here, not by @fastify/rate-limit, whose count read by requests at once is the last.
  let second = 0;
  const inSecond = new Map<string, number>();
  return async (request: FastifyRequest) => {
    if (request.routeOptions.config.crossSite === true) return inWindow(request);
    const now = Math.floor(Date.now() / 1000);
    if (now !== second) {
      second = now;
      inSecond.clear();
    }
    for (const [key, max, from] of [
      [addressScope(request.ip), perSecond, ""],
      [`network:${networkOf(request.ip)}`, perSecond * networkFactor, " from your network"],
    ] as const) {
      const count = (inSecond.get(key) ?? 0) + 1;
      inSecond.set(key, count);
      if (count > max) {
        throw new ApiError(
          429,
          "rate_limited",
          `Too many changes${from} at once; try again in a moment.`,
          1,
        );
      }
    }
    await inWindow(request);
  };
}

/**
 * Counts requests per visitor, per IP address and per network under `name`
 * (each name has counts of its own; the address's and network's may be counts
 * shared with another route, `byIp`); any running out answers 429 with
 * `message` (made from the Retry-After's seconds, when a count's window is
 * longer than a minute, and whose count ran out: the visitor's is "your
 * address"'s) and Retry-After.
 */
export function createVisitorLimiter(
  app: FastifyInstance,
  limits: Omit<RateLimits, "perIp"> & ({ perIp: number } | { byIp: AddressCount }),
  {
    name,
    message,
  }: { name: string; message: (retryAfterSeconds: number, from: Refusal["from"]) => string },
) {
  const byIp =
    "byIp" in limits
      ? limits.byIp
      : countByAddress(app, { name, max: limits.perIp, timeWindow: limits.windowMs });
  const byVisitor = app.createRateLimit({
    max: limits.perVisitor,
    timeWindow: limits.windowMs,
    keyGenerator: (request) => `${name}:${request.visitorId ?? ""}`,
  });
  const visitorRefusal = async (request: FastifyRequest): Promise<Refusal | null> => {
    // A visitor's first write has no identity yet; the IP limit covers it.
    if (!request.visitorId) return null;
    const result = await byVisitor(request);
    return !result.isAllowed && result.isExceeded
      ? { retryAfter: Math.max(1, result.ttlInSeconds), from: "your address" }
      : null;
  };
  return async (request: FastifyRequest) => {
    for (const refusal of await Promise.all([byIp(request), visitorRefusal(request)])) {
      if (refusal) {
        const text = message(refusal.retryAfter, refusal.from);
        throw new ApiError(429, "rate_limited", text, refusal.retryAfter);
      }
    }
  };
}
