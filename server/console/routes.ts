import { readFileSync } from "node:fs";
import path from "node:path";
import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import {
  type AuthenticatorTransport,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { commentResponseSchema, errorResponseSchema } from "../../contract/api.ts";
import {
  auditResponseSchema,
  banRequestSchema,
  commentSearchSchema,
  consoleCommentsResponseSchema,
  editionPreviewResponseSchema,
  editionSlugSchema,
  editionsResponseSchema,
  healthResponseSchema,
  mailLinkRequestSchema,
  mailLinkResponseSchema,
  overviewResponseSchema,
  ownerEditRequestSchema,
  passkeyOptionsResponseSchema,
  passkeyResponseSchema,
  passkeySignInRequestSchema,
  queuedResponseSchema,
  registerPasskeyRequestSchema,
  sessionsResponseSchema,
  signInMethodsResponseSchema,
  signInRequestSchema,
  signInResponseSchema,
  subscriberSearchSchema,
  subscribersResponseSchema,
  testSendRequestSchema,
  testSendResponseSchema,
  whoAmIResponseSchema,
} from "../../contract/console.ts";
import { ApiError, notFound } from "../api/errors.ts";
import type { StreamSlots } from "../api/stream-slots.ts";
import { toCsv } from "../cli/format.ts";
import type { Config } from "../config.ts";
import type { Store } from "../db/store.ts";
import type { Engagement } from "../engagement/index.ts";
import { newToken } from "../engagement/subscribers-repository.ts";
import type { EventBus, LiveEvent } from "../events/bus.ts";
import type { CommentDefences } from "../moderation/defences.ts";
import type { Moderation } from "../moderation/service.ts";
import { EditionError, readEdition } from "../newsletter/editions.ts";
import type { Mailer } from "../newsletter/mailer.ts";
import { editionMail } from "../newsletter/messages.ts";
import { createOutboxRepository } from "../newsletter/outbox-repository.ts";
import { deviceLabel } from "./device-label.ts";
import { editionFile, listEditions } from "./editions-folder.ts";
import type { InsightsRepository } from "./insights-repository.ts";
import { moderationRoutes } from "./moderation-routes.ts";
import { type OwnerRepository, ownerRules, type SessionCheck } from "./owner-repository.ts";
import { passkeyProblem } from "./passkey-host.ts";
import { maskedSettings } from "./settings.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** A console route reached without a session: signing in. */
    ownerSignIn?: boolean;
  }
  interface FastifyRequest {
    /** The owner's session behind a console request (set by the console's guard). */
    ownerSession: SessionCheck | null;
  }
}

export type ConsoleDeps = {
  config: Config;
  store: Store;
  engagement: Engagement;
  bus: EventBus;
  owner: OwnerRepository;
  moderation: Moderation;
  /** The text rules an edit keeps (server/moderation/defences.ts). */
  defences: CommentDefences;
  insights: InsightsRepository;
  mailer: Mailer;
  /** Wakes this instance's outbox worker after an edition was queued. */
  mailQueued(): void;
  slots: StreamSlots;
};

const version = (
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../package.json"), "utf8")) as {
    version: string;
  }
).version;

const errors = { "4xx": errorResponseSchema, "5xx": errorResponseSchema };
/** How often an open console stream checks that its session is still alive. */
const sessionRecheckMs = 30_000;
const signedOut = () =>
  new ApiError(401, "unauthorized", "Sign in to the console first (/admin/sign-in).");

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

/** A small in-memory window: at most `max` events per `windowMs`, per instance. */
function slidingWindow(max: number, windowMs: number) {
  const times: number[] = [];
  return () => {
    const now = Date.now();
    while (times.length > 0 && (times[0] ?? 0) <= now - windowMs) times.shift();
    if (times.length >= max) return false;
    times.push(now);
    return true;
  };
}

/**
 * The owner's console API under `/api/admin` (docs/decisions/012-owner-console.md).
 * Writes pass the API's same-origin check (server/api/guards.ts) before they
 * get here; every route then needs the owner's session, except the few that
 * sign in, which are rate-limited per IP address. Every action is audited.
 */
export const consoleRoutes: FastifyPluginAsyncZod<ConsoleDeps> = async (app, deps) => {
  const { config, store, engagement, bus, owner, moderation, defences, insights, mailer, slots } =
    deps;
  const { siteUrl } = config;
  const https = siteUrl.startsWith("https:");
  const cookieName = ownerCookieName(siteUrl);
  const rpID = new URL(siteUrl).hostname;
  const expectedOrigin = new URL(siteUrl).origin;
  const outbox = createOutboxRepository(store);
  const editionsDir = path.resolve(config.EDITIONS_DIR);

  const attemptsByIp = app.createRateLimit({
    max: config.OWNER_SIGN_IN_ATTEMPTS_PER_HOUR,
    timeWindow: 60 * 60 * 1000,
    keyGenerator: (request) => `owner-sign-in:${request.ip}`,
  });
  // However many addresses ask, the owner's mailbox gets a handful of links an hour.
  const mailAllowed = slidingWindow(10, 60 * 60 * 1000);

  async function limitAttempts(request: FastifyRequest) {
    const result = await attemptsByIp(request);
    if (!result.isAllowed && result.isExceeded) {
      throw new ApiError(
        429,
        "rate_limited",
        "Too many sign-in attempts from this address; try again later.",
        Math.max(1, result.ttlInSeconds),
      );
    }
  }

  /** Browsers refuse an IP address as a passkey's host: say so before they do, in words. */
  function refuseIpHost() {
    const problem = passkeyProblem(siteUrl);
    if (problem) throw new ApiError(409, "conflict", problem);
  }

  const setSessionCookie = (reply: FastifyReply, token: string) =>
    setOwnerCookie(reply, token, siteUrl);

  function sessionOf(request: FastifyRequest): SessionCheck {
    if (!request.ownerSession) throw signedOut();
    return request.ownerSession;
  }

  const audit = (request: FastifyRequest, action: string, object: string | null = null) =>
    owner.audit(request.ownerSession?.id ?? null, action, object);

  app.decorateRequest("ownerSession", null);
  app.addHook("onRequest", async (request, reply) => {
    reply.header("cache-control", "no-store");
    if (request.routeOptions.config.ownerSignIn === true) return;
    const session = await ownerSessionOf(request, owner, cookieName);
    if (!session) throw signedOut();
    request.ownerSession = session;
    // The cookie's lifetime follows the idle deadline.
    const token = request.cookies[cookieName];
    if (session.touched && token) setSessionCookie(reply, token);
  });

  // Signing in

  const signIn = { tags: ["console sign-in"] };

  app.post(
    "/sign-in",
    {
      config: { ownerSignIn: true },
      schema: {
        ...signIn,
        summary: "Sign in with the token of a one-time link (10 minutes, once)",
        body: signInRequestSchema,
        response: { 200: signInResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      await limitAttempts(request);
      const outcome = await owner.signInWithLink(
        request.body.token,
        deviceLabel(request.headers["user-agent"]),
      );
      if (outcome === "unknown") {
        throw new ApiError(404, "unknown_token", "This sign-in link is not known.");
      }
      if (outcome === "expired") {
        throw new ApiError(
          410,
          "token_expired",
          "This sign-in link has expired; links work for 10 minutes. Ask for a new one.",
        );
      }
      if (outcome === "used") {
        throw new ApiError(
          410,
          "token_used",
          "This sign-in link has already been used; ask for a new one.",
        );
      }
      setSessionCookie(reply, outcome.token);
      await owner.audit(outcome.sessionId, "sign-in", "link");
      const session = (await owner.listSessions(outcome.sessionId)).find((s) => s.current);
      if (!session) throw signedOut();
      return { session };
    },
  );

  app.post(
    "/sign-in/mail",
    {
      config: { ownerSignIn: true },
      schema: {
        ...signIn,
        summary: "Mail a one-time sign-in link to OWNER_EMAIL, if this is that address",
        description:
          "The answer is the same whether or not the address is the owner's, and whether or not a mail was sent.",
        body: mailLinkRequestSchema,
        response: { 202: mailLinkResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      await limitAttempts(request);
      const ownerEmail = config.OWNER_EMAIL;
      if (
        ownerEmail &&
        request.body.email.toLowerCase() === ownerEmail.toLowerCase() &&
        mailAllowed()
      ) {
        // Sent after the answer, so its time tells nothing either.
        void (async () => {
          const token = await owner.createLink("mail");
          const link = `${siteUrl}/admin/sign-in#token=${token}`;
          await mailer.send({
            to: ownerEmail,
            subject: "Your sign-in link to the console",
            text: `Open this link within 10 minutes to sign in to the console of ${siteUrl}:\n\n${link}\n\nIt works once. If you did not ask for it, ignore this mail: nobody can use it without your mailbox.\n`,
            html: `<p>Open this link within 10 minutes to sign in to the console of ${siteUrl}:</p><p><a href="${link}">Sign in to the console</a></p><p>It works once. If you did not ask for it, ignore this mail.</p>`,
          });
          await owner.audit(null, "sign-in link", "mailed to OWNER_EMAIL");
        })().catch((error) =>
          request.log.error({ err: error }, "sign-in link could not be mailed"),
        );
      }
      return reply.code(202).send({ requested: true as const });
    },
  );

  app.get(
    "/sign-in/methods",
    {
      config: { ownerSignIn: true },
      schema: {
        ...signIn,
        summary: "What the sign-in page offers: a passkey only when one can sign in here",
        response: { 200: signInMethodsResponseSchema, ...errors },
      },
    },
    async () => {
      const problem = passkeyProblem(siteUrl);
      if (problem) return { passkey: "unavailable" as const, passkeyProblem: problem };
      const registered = (await owner.listPasskeys()).length > 0;
      return { passkey: registered ? ("ready" as const) : ("none" as const), passkeyProblem: null };
    },
  );

  app.post(
    "/passkey-sign-in/options",
    {
      config: { ownerSignIn: true },
      schema: {
        ...signIn,
        summary: "WebAuthn options to sign in with a registered passkey",
        response: { 200: passkeyOptionsResponseSchema, ...errors },
      },
    },
    async (request) => {
      await limitAttempts(request);
      refuseIpHost();
      const passkeys = await owner.storedPasskeys();
      const options = await generateAuthenticationOptions({
        rpID,
        userVerification: "preferred",
        allowCredentials: passkeys.map((p) => ({
          id: p.id,
          transports: p.transports as AuthenticatorTransport[],
        })),
      });
      await owner.saveChallenge(options.challenge, "authentication", null);
      return { options: options as unknown as Record<string, unknown> };
    },
  );

  app.post(
    "/passkey-sign-in",
    {
      config: { ownerSignIn: true },
      schema: {
        ...signIn,
        summary: "Sign in with a passkey's answer to the options' challenge",
        body: passkeySignInRequestSchema,
        response: { 200: signInResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      await limitAttempts(request);
      const refused = () =>
        new ApiError(401, "unauthorized", "This passkey could not sign you in.");
      const response = request.body.response as unknown as Parameters<
        typeof verifyAuthenticationResponse
      >[0]["response"];
      const passkey = (await owner.storedPasskeys()).find((p) => p.id === response.id);
      if (!passkey) throw refused();
      let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
      try {
        verified = await verifyAuthenticationResponse({
          response,
          expectedChallenge: (challenge) => owner.takeChallenge(challenge, "authentication", null),
          expectedOrigin,
          expectedRPID: rpID,
          credential: passkey,
          requireUserVerification: false,
        });
      } catch (error) {
        request.log.info({ reason: (error as Error).message }, "passkey sign-in refused");
        throw refused();
      }
      if (!verified.verified) throw refused();
      await owner.passkeyUsed(passkey.id, verified.authenticationInfo.newCounter);
      const { sessionId, token } = await owner.signInWithPasskey(
        deviceLabel(request.headers["user-agent"]),
      );
      setSessionCookie(reply, token);
      await owner.audit(sessionId, "sign-in", "passkey");
      const session = (await owner.listSessions(sessionId)).find((s) => s.current);
      if (!session) throw signedOut();
      return { session };
    },
  );

  // The session itself

  const consoleTag = { tags: ["console"] };

  app.get(
    "/session",
    {
      schema: {
        ...consoleTag,
        summary: "The current session and the registered passkeys",
        response: { 200: whoAmIResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { id } = sessionOf(request);
      const session = (await owner.listSessions(id)).find((s) => s.current);
      if (!session) throw signedOut();
      return {
        session,
        passkeys: await owner.listPasskeys(),
        passkeysUnavailable: passkeyProblem(siteUrl),
      };
    },
  );

  app.post(
    "/sign-out",
    {
      schema: {
        ...consoleTag,
        summary: "End the current session",
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      const { id } = sessionOf(request);
      await owner.revoke({ id });
      await audit(request, "sign-out");
      reply.clearCookie(cookieName, { path: "/", secure: https, sameSite: "strict" });
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/sessions",
    {
      schema: {
        ...consoleTag,
        summary: "Sessions that can still be used",
        response: { 200: sessionsResponseSchema, ...errors },
      },
    },
    async (request) => ({ sessions: await owner.listSessions(sessionOf(request).id) }),
  );

  app.delete(
    "/sessions/:id",
    {
      schema: {
        ...consoleTag,
        summary: "End one session",
        params: z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/) }),
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      if ((await owner.revoke({ id: request.params.id })) === 0) {
        throw notFound("There is no such session, or it has ended.");
      }
      await audit(request, "session revoke", request.params.id);
      return reply.code(204).send(null);
    },
  );

  // Passkeys

  app.post(
    "/passkeys/options",
    {
      schema: {
        ...consoleTag,
        summary: "WebAuthn options to register a passkey for this site",
        response: { 200: passkeyOptionsResponseSchema, ...errors },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      refuseIpHost();
      const existing = await owner.storedPasskeys();
      const options = await generateRegistrationOptions({
        rpName: "Engage with Engineer console",
        rpID,
        userName: "owner",
        userDisplayName: "Site owner",
        attestationType: "none",
        excludeCredentials: existing.map((p) => ({
          id: p.id,
          transports: p.transports as AuthenticatorTransport[],
        })),
        authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
      });
      await owner.saveChallenge(options.challenge, "registration", session.id);
      return { options: options as unknown as Record<string, unknown> };
    },
  );

  app.post(
    "/passkeys",
    {
      schema: {
        ...consoleTag,
        summary: "Register a passkey with the browser's answer to the options",
        body: registerPasskeyRequestSchema,
        response: { 201: passkeyResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const refused = () =>
        new ApiError(400, "validation_failed", "The passkey could not be registered; try again.");
      let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
      try {
        verified = await verifyRegistrationResponse({
          response: request.body.response as unknown as Parameters<
            typeof verifyRegistrationResponse
          >[0]["response"],
          expectedChallenge: (challenge) =>
            owner.takeChallenge(challenge, "registration", session.id),
          expectedOrigin,
          expectedRPID: rpID,
          requireUserVerification: false,
        });
      } catch (error) {
        request.log.info({ reason: (error as Error).message }, "passkey registration refused");
        throw refused();
      }
      if (!verified.verified) throw refused();
      const { credential } = verified.registrationInfo;
      if ((await owner.storedPasskeys()).some((p) => p.id === credential.id)) {
        throw new ApiError(409, "conflict", "This passkey is registered already.");
      }
      await owner.addPasskey({
        id: credential.id,
        publicKey: credential.publicKey,
        counter: credential.counter,
        transports: credential.transports ?? [],
        name: request.body.name,
      });
      await audit(request, "passkey register", request.body.name);
      const passkey = (await owner.listPasskeys()).find((p) => p.id === credential.id);
      if (!passkey) throw refused();
      return reply.code(201).send({ passkey });
    },
  );

  app.delete(
    "/passkeys/:id",
    {
      schema: {
        ...consoleTag,
        summary: "Remove a passkey",
        params: z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,400}$/) }),
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      if (!(await owner.removePasskey(request.params.id))) throw notFound("No such passkey.");
      await audit(request, "passkey remove", request.params.id);
      return reply.code(204).send(null);
    },
  );

  // Views

  app.get(
    "/overview",
    {
      schema: {
        ...consoleTag,
        summary: "Charts: activity per day, subscribers, most engaged items, editions",
        response: { 200: overviewResponseSchema, ...errors },
      },
    },
    async () => ({ ...(await insights.overview()), editions: await outbox.progress() }),
  );

  app.get(
    "/comments",
    {
      schema: {
        ...consoleTag,
        summary: "Recent comments, newest first, searchable by text, name and post",
        querystring: commentSearchSchema,
        response: { 200: consoleCommentsResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { status } = request.query;
      // The held queue is listed apart, oldest first, and never again among the others.
      return {
        pending:
          status === undefined || status === "pending"
            ? await insights.searchComments({ ...request.query, status: "pending" })
            : [],
        comments:
          status === "pending" ? [] : await insights.searchComments({ ...request.query, status }),
        counts: await insights.commentCounts(),
        posts: insights.posts(),
      };
    },
  );

  await app.register(moderationRoutes, { owner, moderation, insights });

  const commentId = z.object({ id: z.coerce.number().int().min(1).max(2_147_483_647) });

  app.post(
    "/comments/:id/approve",
    {
      schema: {
        ...consoleTag,
        summary: "Publish a held comment (and trust its writer under MODERATION=first)",
        params: commentId,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      const outcome = await moderation.approveComment(request.params.id);
      if (outcome === "not_found") throw notFound("There is no such comment.");
      if (outcome === "approved")
        await audit(request, "comment approve", String(request.params.id));
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/comments/:id/reject",
    {
      schema: {
        ...consoleTag,
        summary: "Reject a comment: it goes, for its writer too",
        params: commentId,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      if ((await moderation.rejectComment(request.params.id)) === "not_found") {
        throw notFound("There is no such comment.");
      }
      await audit(request, "comment reject", String(request.params.id));
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/comments/:id/ban",
    {
      schema: {
        ...consoleTag,
        summary: "Ban the browser and address that wrote a comment, for some days or until lifted",
        params: commentId,
        body: banRequestSchema,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      const result = await moderation.banVisitorOfComment(request.params.id, request.body.days);
      if (result === "not_found") throw notFound("There is no such comment.");
      await audit(
        request,
        "visitor ban",
        `comment ${request.params.id}${request.body.days ? `, ${request.body.days} days` : ""}`,
      );
      return reply.code(204).send(null);
    },
  );

  app.patch(
    "/comments/:id",
    {
      schema: {
        ...consoleTag,
        summary: "Edit the text of any comment (from the reading page); readers' open pages see it",
        params: commentId,
        body: ownerEditRequestSchema,
        response: { 200: commentResponseSchema, ...errors },
      },
    },
    async (request) => {
      // The same text rules as every comment and edit (docs/decisions/016-owner-voice.md).
      const refusal = defences.judgeEdit(request.body.content);
      if (refusal) throw new ApiError(refusal.status, refusal.code, refusal.message);
      const comment = await engagement.comments.updateAsOwner({
        id: request.params.id,
        content: request.body.content,
      });
      if (comment === "not_found") throw notFound("There is no such comment.");
      await audit(request, "comment edit", String(request.params.id));
      return { comment };
    },
  );

  app.delete(
    "/comments/:id",
    {
      schema: {
        ...consoleTag,
        summary:
          "Delete any comment (from the console or the reading page); readers' open pages see it go",
        params: commentId,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      if (!(await engagement.comments.removeAsOwner(request.params.id))) {
        throw notFound("There is no such comment.");
      }
      await audit(request, "comment delete", String(request.params.id));
      return reply.code(204).send(null);
    },
  );

  // New comments, live: the comment events of every post, as the bus delivers them.
  app.get(
    "/events",
    {
      sse: { kind: "manual" },
      schema: {
        ...consoleTag,
        summary: "Comment events of every post (Server-Sent Events)",
        response: errors,
      },
    },
    async (request, reply) => {
      const release = slots.take(request.ip, null);
      const unsubscribe = bus.subscribeAll((event: LiveEvent) => {
        if (event.type !== "comment" || !reply.sse.isConnected) return;
        if (reply.raw.writableLength > 1024 * 1024) {
          reply.sse.close();
          return;
        }
        reply.raw.write(`event: comment\ndata: ${event.data}\n\n`);
      });
      request.raw.socket.setTimeout(0);
      // A revoked or expired session loses its stream too, within half a minute.
      const sessionId = sessionOf(request).id;
      const checking = setInterval(() => {
        owner.isAlive(sessionId).then(
          (alive) => {
            if (!alive) reply.sse.close();
          },
          () => {},
        );
      }, sessionRecheckMs);
      reply.sse.onClose(() => {
        clearInterval(checking);
        unsubscribe();
        release();
      });
      reply.sse.keepAlive();
      reply.sse.sendHeaders();
      reply.raw.write("retry: 3000\n\nevent: ready\ndata: {}\n\n");
    },
  );

  app.get(
    "/subscribers",
    {
      schema: {
        ...consoleTag,
        summary: "Subscribers by state, and addresses matching a search",
        querystring: subscriberSearchSchema,
        response: { 200: subscribersResponseSchema, ...errors },
      },
    },
    async (request) => ({
      counts: await insights.subscriberCounts(),
      subscribers: await insights.searchSubscribers(request.query),
    }),
  );

  app.delete(
    "/subscribers/:email",
    {
      schema: {
        ...consoleTag,
        summary: "Remove one address (any letter case)",
        params: z.object({ email: z.string().min(1).max(254) }),
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      if (!(await engagement.subscribers.remove(request.params.email))) {
        throw notFound("No subscriber has this address.");
      }
      await audit(request, "subscriber remove", request.params.email);
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/subscribers/export",
    {
      schema: {
        ...consoleTag,
        summary: "Confirmed subscribers as CSV (email, subscribed_at, unsubscribe_url)",
        description:
          "Cells that a spreadsheet would run as a formula start with a ' (README, The owner's command line).",
        produces: ["text/csv"],
        response: { 200: z.string().describe("CSV, RFC 4180"), ...errors },
      },
    },
    async (request, reply) => {
      const subscribers = await engagement.subscribers.list();
      const csv = toCsv([
        ["email", "subscribed_at", "unsubscribe_url"],
        ...subscribers.map((s) => [
          s.email,
          s.subscribedAt,
          `${siteUrl}/unsubscribe?token=${encodeURIComponent(s.unsubscribeToken)}`,
        ]),
      ]);
      await audit(request, "subscribers export", `${subscribers.length} addresses`);
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .type("text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="subscribers-${day}.csv"`)
        .send(csv);
    },
  );

  // Newsletter

  function editionOf(slug: string) {
    const file = editionFile(editionsDir, slug);
    if (!file) throw notFound("No such edition.");
    try {
      return readEdition(file);
    } catch (error) {
      if (!(error instanceof EditionError)) throw error;
      if (/Cannot read/.test(error.message)) throw notFound(`There is no edition "${slug}".`);
      throw new ApiError(
        422,
        "validation_failed",
        error.message.replaceAll(`${editionsDir}${path.sep}`, ""),
      );
    }
  }

  app.get(
    "/editions",
    {
      schema: {
        ...consoleTag,
        summary: "The editions folder, each file with its progress when it was sent",
        response: { 200: editionsResponseSchema, ...errors },
      },
    },
    async () => {
      const progress = await outbox.progress();
      const listed = listEditions(editionsDir).map((edition) => ({
        ...edition,
        progress: progress.find((p) => p.slug === edition.slug) ?? null,
      }));
      // Editions sent from files since removed still show their progress.
      const gone = progress
        .filter((p) => !listed.some((e) => e.slug === p.slug))
        .map((p) => ({
          slug: p.slug,
          subject: p.subject,
          problem: "The file is gone.",
          progress: p,
        }));
      const { confirmed } = await insights.subscriberCounts();
      return { editions: [...listed, ...gone], confirmedSubscribers: confirmed };
    },
  );

  const slugParams = z.object({ slug: editionSlugSchema });

  app.get(
    "/editions/:slug",
    {
      schema: {
        ...consoleTag,
        summary: "An edition rendered in the mail template, as subscribers will see it",
        params: slugParams,
        response: { 200: editionPreviewResponseSchema, ...errors },
      },
    },
    async (request) => {
      const edition = editionOf(request.params.slug);
      const mail = editionMail(edition, { to: "preview@example.com", token: "preview" }, siteUrl);
      return { subject: mail.subject, html: mail.html };
    },
  );

  app.post(
    "/editions/:slug/test",
    {
      schema: {
        ...consoleTag,
        summary: "Send one test copy of an edition to an address (nothing is recorded)",
        params: slugParams,
        body: testSendRequestSchema,
        response: { 202: testSendResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const edition = editionOf(request.params.slug);
      const mail = editionMail(edition, { to: request.body.to, token: newToken() }, siteUrl);
      try {
        await mailer.send({ ...mail, subject: `[Test] ${mail.subject}` });
      } catch (error) {
        request.log.warn({ err: error }, "test copy could not be sent");
        throw new ApiError(
          503,
          "service_unavailable",
          "The mail server did not take the test copy; try again shortly.",
        );
      }
      await audit(request, "newsletter test", `${edition.slug} to ${request.body.to}`);
      return reply.code(202).send({ sent: true as const });
    },
  );

  app.post(
    "/editions/:slug/send",
    {
      schema: {
        ...consoleTag,
        summary: "Queue an edition for every confirmed subscriber who has not had it",
        params: slugParams,
        response: { 202: queuedResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const edition = editionOf(request.params.slug);
      let saved: { id: number; created: boolean };
      try {
        saved = await outbox.saveEdition(edition);
      } catch (error) {
        if (error instanceof Error && /other content/.test(error.message)) {
          throw new ApiError(409, "conflict", error.message);
        }
        throw error;
      }
      const queued = await outbox.queueEdition(saved.id);
      deps.mailQueued();
      await audit(request, "newsletter send", `${edition.slug} (${queued} queued)`);
      return reply.code(202).send({ queued });
    },
  );

  // Health and audit

  app.get(
    "/health",
    {
      schema: {
        ...consoleTag,
        summary: "Database, live events, outbox backlog, version and masked settings",
        response: { 200: healthResponseSchema, ...errors },
      },
    },
    async () => {
      const reachable = await store.ping().then(
        () => true,
        () => false,
      );
      return {
        database: { kind: store.kind, reachable },
        liveEvents: bus.healthy ? ("listening" as const) : ("reconnecting" as const),
        outbox: await insights.outboxBacklog(),
        version,
        node: process.version,
        settings: maskedSettings(config),
      };
    },
  );

  app.get(
    "/audit",
    {
      schema: {
        ...consoleTag,
        summary: "The newest 200 entries of the audit trail",
        response: { 200: auditResponseSchema, ...errors },
      },
    },
    async () => ({ entries: await owner.auditTrail() }),
  );
};
