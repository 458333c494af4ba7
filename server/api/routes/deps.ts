import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import { type Comment, formTokenResponseSchema, type OwnerOverlay } from "../../../contract/api.ts";
import type { ItemKind } from "../../../contract/limits.ts";
import type { ReplyWatches } from "../../comments/reply-watches.ts";
import type { ReplyRefusal } from "../../comments/threads.ts";
import type { Database } from "../../db/schema.ts";
import type { Catalog } from "../../engagement/catalog.ts";
import type { Engagement } from "../../engagement/index.ts";
import type { ReadCache } from "../../engagement/read-cache.ts";
import { ownerVisitorId } from "../../engagement/visitor.ts";
import type { EventBus } from "../../events/bus.ts";
import type { FormTokens } from "../../lib/form-token.ts";
import type { Representation } from "../../lib/representation.ts";
import { sendRepresentation } from "../../lib/representation.ts";
import type { CommentDefences, Refusal } from "../../moderation/defences.ts";
import type { Moderation } from "../../moderation/service.ts";
import type { Readers } from "../../readers/service.ts";
import type { FastPages } from "../../web/fast-pages.ts";
import { ApiError, notFound, routesTagged } from "../errors.ts";
import { issueVisitor } from "../guards.ts";
import type { NewsletterDeps } from "../newsletter-rules.ts";

/** A live owner session, as the readers' routes see it. */
export type OwnerSession = { id: string };

/**
 * The signed-in owner on the reading pages (docs/decisions/016-owner-voice.md):
 * the readers' routes own this interface, the console implements it
 * (server/console/owner-voice.ts), and the composition root plugs it in.
 */
export type OwnerVoice = {
  /** What the owner's answers add: the name their comments carry. */
  overlay: OwnerOverlay;
  /** The live owner session behind a request, or null (every visitor's). */
  sessionOf(request: FastifyRequest, reply: FastifyReply): Promise<OwnerSession | null>;
  /** Whether a session is still alive (not revoked, not idle too long): long streams ask again. */
  isAlive(session: OwnerSession): Promise<boolean>;
  /** The name the owner's comment is stored under. */
  nameFor(typed: string): string;
  /** Records an action taken from the pages in the owner's audit trail, in the action's transaction `within`. */
  audit(
    session: OwnerSession,
    action: string,
    object: string,
    within: Kysely<Database>,
  ): Promise<void>;
};

/** What the route plugins need from the app. */
export type RouteDeps = {
  engagement: Engagement;
  reads: ReadCache;
  catalog: Catalog;
  bus: EventBus;
  siteUrl: string;
  newsletter: NewsletterDeps;
  moderation: Moderation;
  defences: CommentDefences;
  /** The signed-in owner on the reading pages (docs/decisions/016-owner-voice.md). */
  ownerVoice: OwnerVoice;
  /** Readers' reply mails: the confirmation limits and "Your data" (docs/product.md, "Reply mails"). */
  replyMail: Pick<ReplyWatches, "ofVisitor" | "forgetVisitor">;
  /** Readership: what brings clients is attributed through it (server/readers/). */
  readers: Pick<Readers, "attribute">;
  /** The fast path in front of Fastify (server/web/fast-pages.ts), offered the shared reads. */
  fast?: FastPages;
};

/** A refusal of the spam defences, a ban or a form's limits, as the API answers it. */
export function refusalError(refusal: Refusal & { retryAfterSeconds?: number }): ApiError {
  return new ApiError(refusal.status, refusal.code, refusal.message, refusal.retryAfterSeconds);
}

/** GET `/<tag>/form-token`: a form's signed time, and how long after it the form may be sent. */
export function formTokenRoute(
  app: Parameters<FastifyPluginAsyncZod>[0],
  tag: string,
  summary: string,
  formTokens: Pick<FormTokens, "issue" | "minimumMs">,
) {
  app.get(
    `/${tag}/form-token`,
    routesTagged(tag)(summary, formTokenResponseSchema),
    async (_request, reply) => {
      reply.header("cache-control", "no-store");
      return { formToken: formTokens.issue(), minimumMs: formTokens.minimumMs };
    },
  );
}

/** Banned writers (docs/moderation.md, "Bans") may not comment, edit or react. */
export async function refuseBanned(
  request: FastifyRequest,
  defences: CommentDefences,
): Promise<void> {
  const refusal = await defences.bannedRefusal(request.visitorId, request.ip);
  if (refusal) throw refusalError(refusal);
}

/** A reply that cannot be stored (docs/product.md, "Replies"). */
export function replyRefused(refusal: ReplyRefusal): ApiError {
  return refusal === "parent_missing"
    ? notFound("The comment you are replying to is not there any more, or not published yet.")
    : new ApiError(400, "validation_failed", "The comment you are replying to is on another post.");
}

/**
 * The owner's own comment or reply, from a reading page or the console
 * (docs/decisions/016-owner-voice.md): no hold, no form timing, no ban, no
 * reserved name, published at once with "Author"; the text rules still apply.
 * `alongside` writes its audit line in its transaction: both are kept, or neither.
 */
export async function addAsOwner(
  { engagement, defences }: { engagement: Engagement; defences: CommentDefences },
  input: { postId: string; content: string; userName: string; parentId?: number },
  alongside: (trx: Kysely<Database>, id: number) => Promise<void>,
): Promise<Comment> {
  const refusal = defences.judgeEdit(input.content);
  if (refusal) throw refusalError(refusal);
  const comment = await engagement.comments.add({
    ...input,
    alongside,
    visitorId: ownerVisitorId,
    byOwner: true,
  });
  // The owner asks for no reply mails: only a thread can refuse.
  if (typeof comment === "string") throw replyRefused(comment as ReplyRefusal);
  return comment;
}

const kindNames: Record<ItemKind, string> = { mythology: "story", science: "science post" };

export function requireItem(catalog: Catalog, kind: ItemKind, id: string): void {
  if (!catalog[kind].has(id)) throw notFound(`There is no ${kindNames[kind]} "${id}".`);
}

/**
 * The identity a reaction or comment is stored under: the visitor's cookie, or
 * a new one set on this response. Called only once the request is valid, so a
 * refused request leaves no cookie behind.
 */
export function writerOf(request: FastifyRequest, reply: FastifyReply, siteUrl: string): string {
  request.visitorId ??= issueVisitor(request, reply, siteUrl);
  return request.visitorId;
}

/**
 * Sends a cached read as it was serialized, with its strong ETag; a client that
 * already holds it gets 304. Browsers must revalidate (no-cache): the answer
 * changes with every write, and the event stream says when.
 */
export function sendCached(
  request: FastifyRequest,
  reply: FastifyReply,
  cached: Representation,
  /** The signed-in owner's answer: never for a shared cache. */
  personal = false,
) {
  reply
    .header("cache-control", personal || cached.personal ? "private, no-cache" : "no-cache")
    .type("application/json; charset=utf-8");
  // One address answers each reader with their own flags: a cache between
  // keeps one answer per cookie, never handing a reader another's.
  return sendRepresentation(request, reply, cached, ["cookie"]);
}

/** Matches no stored visitor: ids are 22 characters (see isVisitorId). */
const nobody = "";

/**
 * Whose edit or deletion this is. A client without a valid visitor cookie owns
 * nothing, so it is refused like any other stranger, and given no cookie:
 * a refusal leaves nothing behind.
 */
export function claimantOf(request: FastifyRequest): string {
  return request.visitorId ?? nobody;
}
