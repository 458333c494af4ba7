import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isVisitorId, newVisitorId, visitorCookieName } from "../engagement/visitor.ts";
import { fromSite } from "../lib/action-page.ts";
import { addressScope } from "../lib/address-scope.ts";
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
 */
export function createVisitorReader() {
  const known = new Map<string, string>();
  const kept = 10_000;
  return (request: FastifyRequest): string | null => {
    const raw = request.cookies[visitorCookieName];
    if (!raw) return null;
    const seen = known.get(raw);
    if (seen !== undefined) return seen;
    const { valid, value } = request.unsignCookie(raw);
    if (!valid || value === null || !isVisitorId(value)) return null;
    if (known.size >= kept) known.clear();
    known.set(raw, value);
    return value;
  };
}

/** Gives a visitor without an identity one, in a cookie the browser keeps for 400 days (its cap). */
export function issueVisitor(
  request: FastifyRequest,
  reply: FastifyReply,
  siteUrl: string,
): string {
  const visitorId = newVisitorId();
  reply.setCookie(visitorCookieName, visitorId, {
    signed: true,
    httpOnly: true,
    sameSite: "lax",
    secure: request.protocol === "https" || siteUrl.startsWith("https:"),
    path: "/",
    maxAge: 400 * 24 * 60 * 60,
  });
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
 * Counts writes per visitor and per IP address; either running out answers 429.
 * An address's writes in any one second of the clock are held to a second's
 * share of its allowance (at least 10): its whole allowance sent at once was
 * written at once, and every other reader waited (seconds; on SQLite every
 * page, its commits holding the event loop). Not a route from anywhere
 * (`crossSite`, the one-click unsubscribe): a mail provider posts its
 * readers' from one address, each its own token, and one refused is a reader
 * still mailed after leaving.
 */
export function createWriteLimiter(app: FastifyInstance, limits: RateLimits) {
  const inWindow = createVisitorLimiter(app, limits, {
    name: "writes",
    message: "Too many changes in a short time; try again shortly.",
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
    const address = addressScope(request.ip);
    const count = (inSecond.get(address) ?? 0) + 1;
    inSecond.set(address, count);
    if (count > perSecond) {
      throw new ApiError(
        429,
        "rate_limited",
        "Too many changes at once; try again in a moment.",
        1,
      );
    }
    await inWindow(request);
  };
}

/** One count of requests, as `createRateLimit` makes it. */
export type RateCount = ReturnType<FastifyInstance["createRateLimit"]>;

/**
 * Counts requests per visitor and per IP address under `name` (each name has
 * counts of its own; the address's may be a count shared with another route,
 * `byIp`); either running out answers 429 with `message` (made from the
 * Retry-After's seconds, when a count's window is longer than a minute) and Retry-After.
 */
export function createVisitorLimiter(
  app: FastifyInstance,
  limits: Omit<RateLimits, "perIp"> & ({ perIp: number } | { byIp: RateCount }),
  { name, message }: { name: string; message: string | ((retryAfterSeconds: number) => string) },
) {
  const byIp =
    "byIp" in limits
      ? limits.byIp
      : app.createRateLimit({
          max: limits.perIp,
          timeWindow: limits.windowMs,
          keyGenerator: (request) => `${name}:${addressScope(request.ip)}`,
        });
  const byVisitor = app.createRateLimit({
    max: limits.perVisitor,
    timeWindow: limits.windowMs,
    keyGenerator: (request) => `${name}:${request.visitorId ?? ""}`,
  });
  return async (request: FastifyRequest) => {
    // A visitor's first write has no identity yet; the IP limit covers it.
    const checks = request.visitorId ? [byIp(request), byVisitor(request)] : [byIp(request)];
    for (const result of await Promise.all(checks)) {
      if (!result.isAllowed && result.isExceeded) {
        const retryAfter = Math.max(1, result.ttlInSeconds);
        const text = typeof message === "string" ? message : message(retryAfter);
        throw new ApiError(429, "rate_limited", text, retryAfter);
      }
    }
  };
}
