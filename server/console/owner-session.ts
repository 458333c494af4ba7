import type { FastifyReply, FastifyRequest } from "fastify";
import { ownerNameCookie } from "../../contract/site-config.ts";
import { type OwnerRepository, ownerRules, type SessionCheck } from "./owner-repository.ts";

/**
 * The owner's session cookie, read and written the same way by the console's
 * routes, the console's pages and the reading pages' API
 * (docs/decisions/016-owner-voice.md).
 */

/** The session cookie's name: `__Host-` binds it to this exact origin over https. */
export function ownerCookieName(siteUrl: string): string {
  return siteUrl.startsWith("https:") ? "__Host-ewe_owner" : "ewe_owner";
}

/** The owner session a request's cookie names, when it is alive (its idle deadline moved on). */
export async function ownerSessionOf(
  request: FastifyRequest,
  owner: OwnerRepository,
  cookieName: string,
): Promise<SessionCheck | null> {
  const token = request.cookies[cookieName];
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  return owner.checkSession(token);
}

const cookieOptions = (siteUrl: string) =>
  ({ sameSite: "strict", secure: siteUrl.startsWith("https:"), path: "/" }) as const;

/**
 * Sets the session cookie, and the pages' readable one with the owner's name
 * (`ownerNameCookie`); their lifetime follows the session's idle deadline.
 */
export function setOwnerCookie(
  reply: FastifyReply,
  token: string,
  { siteUrl, name }: { siteUrl: string; name: string },
): void {
  const options = { ...cookieOptions(siteUrl), maxAge: ownerRules.sessionIdleMs / 1000 };
  reply.setCookie(ownerCookieName(siteUrl), token, { ...options, httpOnly: true });
  reply.setCookie(ownerNameCookie, name, options);
}

/**
 * Signing out, or a session found ended: both cookies go. Written as headers,
 * not through the cookie plugin, which the console's pages' hooks run without.
 */
export function clearOwnerCookie(reply: FastifyReply, siteUrl: string): void {
  const secure = siteUrl.startsWith("https:") ? "; Secure" : "";
  for (const name of [ownerCookieName(siteUrl), ownerNameCookie]) {
    reply.header("set-cookie", `${name}=; Max-Age=0; Path=/; SameSite=Strict${secure}`);
  }
}
