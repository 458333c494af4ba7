import path from "node:path";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { freshSignInLife } from "../../../contract/limits.ts";
import { ApiError, routesTagged } from "../../api/errors.ts";
import type { Assistant } from "../../assistant/service.ts";
import type { Bookings } from "../../bookings/service.ts";
import type { ReplyWatches } from "../../comments/reply-watches.ts";
import type { Config } from "../../config.ts";
import type { OwnerActor } from "../../db/owner-actor.ts";
import type { Store } from "../../db/store.ts";
import type { Engagement } from "../../engagement/index.ts";
import type { Enquiries } from "../../enquiries/service.ts";
import type { EventBus } from "../../events/bus.ts";
import type { Fediverse } from "../../fediverse/service.ts";
import type { CommentDefences } from "../../moderation/defences.ts";
import type { Moderation } from "../../moderation/service.ts";
import type { SpamFilter } from "../../moderation/spam/filter.ts";
import type { EditionsRepository } from "../../newsletter/editions-repository.ts";
import type { Mailer } from "../../outbox/mailer.ts";
import type { Suppressions } from "../../outbox/suppressions.ts";
import type { ReadersReports } from "../../readers/report.ts";
import type { InsightsRepository } from "../insights-repository.ts";
import type { OwnerRepository, SessionCheck } from "../owner-repository.ts";
import { ownerCookieName, setOwnerCookie } from "../owner-session.ts";
import { passkeyProblem } from "../passkey-host.ts";
import type { SignInChallenges } from "../sign-in-challenge.ts";

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

/** What the console's routes need from the app. */
export type ConsoleDeps = {
  config: Config;
  store: Store;
  engagement: Engagement;
  bus: EventBus;
  owner: OwnerRepository;
  moderation: Moderation;
  /** The text rules an edit keeps (server/moderation/defences.ts). */
  defences: CommentDefences;
  /** Why the spam filter held a comment (server/moderation/spam/filter.ts). */
  spam: SpamFilter;
  insights: InsightsRepository;
  mailer: Mailer;
  /** Wakes this instance's outbox worker after an edition was queued. */
  mailQueued(): void;
  /** Enquiries from /services (server/enquiries/service.ts). */
  enquiries: Enquiries;
  /** Readership's figures (server/readers/report.ts). */
  readers: ReadersReports;
  /** Booked calls (server/bookings/service.ts). */
  bookings: Bookings;
  /** The challenges a passkey signs in with, signed rather than stored (../sign-in-challenge.ts). */
  challenges: SignInChallenges;
  /** The site's own assistant and its questions (server/assistant/service.ts). */
  assistant: Assistant;
  /** A reader's stop of all reply mails, lifted with a suppression (server/comments/reply-watches.ts). */
  replyWatches: Pick<ReplyWatches, "resume">;
  /** The suppressed addresses (server/outbox/suppressions.ts), kept under the site's key. */
  suppressions: Suppressions;
  /** Followers, blocks and webmentions (server/fediverse/service.ts). */
  fediverse: Pick<Fediverse, "actions" | "repository" | "webmentions">;
  /** The newsletter's editions as stored and queued (server/newsletter/service.ts). */
  editionStore: EditionsRepository;
};

/** What every resource's routes share: the app's parts, and the console's own helpers. */
export type ConsoleContext = ConsoleDeps & {
  cookieName: string;
  /** The WebAuthn relying party: the site's host name and origin. */
  rpID: string;
  expectedOrigin: string;
  editionsDir: string;
  /** The session behind a request that passed the console's guard. */
  sessionOf(request: FastifyRequest): SessionCheck;
  setSessionCookie(reply: FastifyReply, token: string): void;
  /** The owner behind a request, who signs the audit trail with the request's session. */
  actor(request: FastifyRequest): OwnerActor;
};

/** A console route's schema, tagged "console" (server/api/errors.ts). */
export const route = routesTagged("console");
export { type Answers, noContent } from "../../api/errors.ts";

/** A CSV download's schema, and its query's (`parts`), if it takes one. */
export const csvDownload = <const P extends object = Record<never, never>>(
  summary: string,
  parts?: P,
) =>
  route(summary, z.string().describe("CSV, RFC 4180"), {
    description:
      "Cells that a spreadsheet would run as a formula start with a ' (docs/command-line.md).",
    produces: ["text/csv"],
    ...(parts as P),
  });

/** Answers with `csv` as a file to save, named `name`.csv. */
export function sendCsv(reply: FastifyReply, name: string, csv: string) {
  // Led by UTF-8's byte-order mark: without it Excel reads the file in the system's
  // legacy code page, and a name or campaign in another alphabet arrives garbled.
  return reply
    .type("text/csv; charset=utf-8")
    .header("content-disposition", `attachment; filename="${name}.csv"`)
    .send(`\uFEFF${csv}`);
}

/** Browsers refuse an IP address as a passkey's host: say so before they do, in words. */
export function refuseIpHost(siteUrl: string): void {
  const problem = passkeyProblem(siteUrl);
  if (problem) throw new ApiError(409, "conflict", problem);
}

/**
 * An action that gives or keeps access, refused from a session that did not
 * sign in within `freshSignInLife` (docs/decisions/062-fresh-sign-in.md):
 * a stolen cookie cannot outlive its session by it. `what` names the action.
 */
export function requireFreshSignIn(session: SessionCheck, what: string): void {
  if (!session.fresh) {
    throw new ApiError(
      403,
      "sign_in_again",
      `${what} needs a sign-in within the last ${freshSignInLife}: sign in again (with a passkey or a new link) to confirm it is you, then try again.`,
    );
  }
}

export const signedOut = () =>
  new ApiError(401, "unauthorized", "Sign in to the console first (/admin/sign-in).");

export function consoleContext(options: ConsoleDeps & { prefix?: string }): ConsoleContext {
  // The plugin's options also carry its registration's prefix, which the
  // resources' own registrations must not inherit twice.
  const { prefix: _prefix, ...deps } = options;
  const { siteUrl } = deps.config;
  return {
    ...deps,
    cookieName: ownerCookieName(siteUrl),
    rpID: new URL(siteUrl).hostname,
    expectedOrigin: new URL(siteUrl).origin,
    editionsDir: path.resolve(deps.config.EDITIONS_DIR),
    sessionOf(request) {
      if (!request.ownerSession) throw signedOut();
      return request.ownerSession;
    },
    setSessionCookie: (reply, token) =>
      setOwnerCookie(reply, token, { siteUrl, name: deps.config.owner.name }),
    actor: (request) => deps.owner.actor(request.ownerSession?.id ?? null),
  };
}
