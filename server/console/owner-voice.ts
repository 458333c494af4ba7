import type { FastifyReply, FastifyRequest } from "fastify";
import type { OwnerOverlay } from "../../contract/api.ts";
import type { OwnerVoice } from "../api/routes/deps.ts";
import type { Config } from "../config.ts";
import type { OwnerRepository, SessionCheck } from "./owner-repository.ts";
import { ownerCookieName, ownerSessionOf, setOwnerCookie } from "./owner-session.ts";

/**
 * The signed-in owner on the reading pages (docs/decisions/016-owner-voice.md).
 * The console's session cookie travels with the pages' own API requests too
 * (SameSite=Strict, Path=/), so a comment read or written from a page can tell
 * the owner from a visitor. Nothing else can: not a name, not a field of the
 * request, not a visitor cookie.
 */
export function createOwnerVoice({
  owner,
  config,
}: {
  owner: OwnerRepository;
  config: Pick<Config, "siteUrl" | "owner">;
}): OwnerVoice & {
  sessionOf(request: FastifyRequest, reply: FastifyReply): Promise<SessionCheck | null>;
} {
  const cookieName = ownerCookieName(config.siteUrl);
  const overlay: OwnerOverlay = { name: config.owner.name };

  return {
    /** What the owner's answers add: the owner's name (content/owner.md), which their comments carry. */
    overlay,

    /**
     * The live owner session behind a request, or null. A request without the
     * cookie (every visitor's) costs nothing; the owner's moves the session's
     * idle deadline, as a console request does, and the cookie's with it.
     */
    async sessionOf(request: FastifyRequest, reply: FastifyReply): Promise<SessionCheck | null> {
      const session = await ownerSessionOf(request, owner, cookieName);
      const token = request.cookies[cookieName];
      if (session?.touched && token)
        setOwnerCookie(reply, token, { siteUrl: config.siteUrl, name: config.owner.name });
      return session;
    },

    isAlive(session: SessionCheck): Promise<boolean> {
      return owner.isAlive(session.id);
    },

    /** The name the owner's comment is stored under: the owner's, whatever was typed. */
    nameFor(_typed: string): string {
      return config.owner.name;
    },

    /** Records an action taken from the pages in the console's audit trail, in its transaction. */
    audit(session, action, object, within) {
      return owner.audit(session.id, action, object, within);
    },
  };
}
