import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * A visitor is an anonymous browser: a random 128-bit id in a signed cookie,
 * set on its first write. It is what makes a comment or reaction "mine"; it is
 * never sent back in a response body.
 */
export const visitorCookieName = "ewe_visitor";

export function newVisitorId(): string {
  return randomBytes(16).toString("base64url");
}

/**
 * What the owner's own comments are stored under instead of a browser's id
 * (docs/decisions/016-owner-voice.md): they belong to the owner's session, not
 * to a browser, so they look the same from any device. It is no visitor id
 * (isVisitorId refuses it), so no cookie, signed or not, can claim it.
 */
export const ownerVisitorId = "owner";

export function isVisitorId(value: string): boolean {
  return /^[A-Za-z0-9_-]{22}$/.test(value);
}

/**
 * COOKIE_SECRET when set; otherwise a secret generated on first start and kept
 * in DATA_DIR, so visitors keep their identity across restarts of one instance.
 */
export function resolveCookieSecret({
  COOKIE_SECRET,
  DATA_DIR,
}: {
  COOKIE_SECRET?: string | undefined;
  DATA_DIR: string;
}): string {
  if (COOKIE_SECRET) return COOKIE_SECRET;
  const file = path.resolve(DATA_DIR, "cookie-secret");
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    // "wx": two processes starting at once cannot both write a secret.
    writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const secret = readFileSync(file, "utf8").trim();
  if (secret.length < 32) {
    throw new Error(`${file} holds a secret shorter than 32 characters; delete it to regenerate.`);
  }
  return secret;
}
