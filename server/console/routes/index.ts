import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { clearOwnerCookie, ownerSessionOf } from "../owner-session.ts";
import { bookingConsoleRoutes } from "./bookings.ts";
import { commentRoutes } from "./comments.ts";
import { type ConsoleDeps, consoleContext, signedOut } from "./context.ts";
import { editionRoutes } from "./editions.ts";
import { enquiryConsoleRoutes } from "./enquiries.ts";
import { fediverseConsoleRoutes } from "./fediverse.ts";
import { healthRoutes } from "./health.ts";
import { moderationRoutes } from "./moderation.ts";
import { questionConsoleRoutes } from "./questions.ts";
import { readerConsoleRoutes } from "./readers.ts";
import { sessionRoutes } from "./session.ts";
import { signInRoutes } from "./sign-in.ts";
import { subscriberRoutes } from "./subscribers.ts";

/**
 * The owner's console API under `/api/admin` (docs/decisions/012-owner-console.md),
 * one file per resource beside this one. Writes pass the API's same-origin
 * check (server/api/guards.ts) before they get here; every route then needs
 * the owner's session, except the few that sign in, which are rate-limited
 * per IP address. Every action is audited.
 */
export const consoleRoutes: FastifyPluginAsyncZod<ConsoleDeps> = async (app, deps) => {
  const context = consoleContext(deps);
  const { owner } = deps;
  const { cookieName } = context;

  app.decorateRequest("ownerSession", null);
  app.addHook("onRequest", async (request, reply) => {
    reply.header("cache-control", "no-store");
    if (request.routeOptions.config.ownerSignIn === true) return;
    const session = await ownerSessionOf(request, owner, cookieName);
    if (!session) {
      // An ended session's cookies go, so the reading pages stop showing the owner's name.
      if (request.headers.cookie?.includes("ewe_owner"))
        clearOwnerCookie(reply, deps.config.siteUrl);
      throw signedOut();
    }
    request.ownerSession = session;
    // The cookie's lifetime follows the idle deadline.
    const token = request.cookies[cookieName];
    if (session.touched && token) context.setSessionCookie(reply, token);
  });

  await app.register(signInRoutes, context);
  await app.register(sessionRoutes, context);
  await app.register(commentRoutes, context);
  await app.register(moderationRoutes, context);
  await app.register(subscriberRoutes, context);
  await app.register(editionRoutes, context);
  await app.register(healthRoutes, context);
  await app.register(enquiryConsoleRoutes, context);
  await app.register(readerConsoleRoutes, context);
  await app.register(bookingConsoleRoutes, context);
  await app.register(questionConsoleRoutes, context);
  await app.register(fediverseConsoleRoutes, context);
};
