import type { FastifyReply, FastifyRequest } from "fastify";
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

/** Sets the session cookie; its lifetime follows the session's idle deadline. */
export function setOwnerCookie(reply: FastifyReply, token: string, siteUrl: string): void {
  reply.setCookie(ownerCookieName(siteUrl), token, {
    httpOnly: true,
    sameSite: "strict",
    secure: siteUrl.startsWith("https:"),
    path: "/",
    maxAge: ownerRules.sessionIdleMs / 1000,
  });
}
