import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** A link's secret: 256 random bits, URL-safe. */
export const newToken = () => randomBytes(32).toString("base64url");
/** Whether `value` has the shape of a token `newToken` makes (a link's, in a mail). */
export const isToken = (value: unknown): value is string =>
  typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value);

/** The digest a link's token is kept under, so the database never holds the link itself. */
export const tokenDigest = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * A standing link (an unsubscribe or "stop these mails" link, mailed again and
 * again) is kept as its seed: 128 random bits in hex, which the database holds
 * and which make no link without the site's key. The link's token is the seed
 * and 128 bits of its HMAC under that key, 43 characters as `newToken`'s. A
 * token mailed before these (migration 054) is kept as its `legacySeed`, the
 * first half of its SHA-256.
 */
export type StandingLinks = {
  /** The token of `seed`'s links. */
  tokenOf(seed: string): string;
  /**
   * The seeds `token` may stand for: its own when its HMAC holds, its legacy
   * one, and itself (as an older instance keeps it, during a rolling upgrade).
   */
  seedsOf(token: string): string[];
};

/** A new standing link's seed. */
export const newSeed = () => randomBytes(16).toString("hex");

/** The seed a token mailed before migration 054 is kept under. */
export const legacySeed = (token: string) =>
  createHash("sha256").update(token).digest("hex").slice(0, 32);

/** The standing links under the site's `secret`. */
export function standingLinks(secret: string): StandingLinks {
  const key = keyFor(secret, "standing links");
  const tokenOf = (seed: string) => {
    // Kept as itself by an instance of an older version, during a rolling upgrade.
    if (isToken(seed)) return seed;
    const raw = Buffer.from(seed, "hex");
    const mac = createHmac("sha256", key).update(raw).digest().subarray(0, 16);
    return Buffer.concat([raw, mac]).toString("base64url");
  };
  return {
    tokenOf,
    seedsOf(token) {
      // Never a seed itself (32 characters), which the database holds: only a link's token.
      if (!isToken(token)) return [];
      const seed = Buffer.from(token, "base64url").subarray(0, 16).toString("hex");
      const own = sameSecret(tokenOf(seed), token) ? [seed] : [];
      return [...own, legacySeed(token), token];
    },
  };
}

/** A key for one purpose, made from the site's secret: the same on every instance. */
export const keyFor = (secret: string, purpose: string) =>
  createHmac("sha256", secret).update(purpose).digest("base64url");

/** What an address of ours carries to prove we wrote it: 16 hex digits of an HMAC of `text`. */
export const addressSignature = (key: string, text: string) =>
  createHmac("sha256", key).update(text).digest("hex").slice(0, 16);

/** Whether `given` is `expected`, compared in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
