import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** A link's secret: 256 random bits, URL-safe. */
export const newToken = () => randomBytes(32).toString("base64url");
/** Whether `value` has the shape of a token `newToken` makes (a link's, in a mail). */
export const isToken = (value: unknown): value is string =>
  typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value);

/** The digest a link's token is kept under, so the database never holds the link itself. */
export const tokenDigest = (token: string) => createHash("sha256").update(token).digest("hex");

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
