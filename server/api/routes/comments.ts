import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import {
  addCommentRequestSchema,
  commentResponseSchema,
  commentsQuerySchema,
  commentsResponseSchema,
  decodeCommentCursor,
  rowIdParamsSchema,
  writeCommentRequestSchema,
} from "../../../contract/api.ts";
import { visitorCookieNameOf } from "../../../contract/site-config.ts";
import type { CommentRefusal } from "../../comments/repository.ts";
import type { Representation } from "../../lib/representation.ts";
import { offerSent } from "../../web/etag.ts";
import { ApiError, notFound, routesTagged } from "../errors.ts";
import {
  addAsOwner,
  claimantOf,
  formTokenRoute,
  type RouteDeps,
  refusalError,
  refuseBanned,
  replyRefused,
  requireItem,
  sendCached,
  writerOf,
} from "./deps.ts";

const route = routesTagged("comments");

const postParams = z.object({ id: z.string() });
function refused(refusal: CommentRefusal): ApiError {
  return refusal === "not_found"
    ? notFound("There is no such comment.")
    : new ApiError(403, "forbidden", "Only the visitor who wrote this comment can change it.");
}

export const commentRoutes: FastifyPluginAsyncZod<RouteDeps> = async (
  app,
  { engagement, reads, catalog, siteUrl, defences, ownerVoice, fast, bus, readers },
) => {
  const visitorCookie = visitorCookieNameOf(siteUrl);
  /**
   * The opening everyone sees as kept before a read, with what the reader owns
   * of it as kept then (`reader`), and what the read sent.
   */
  const opened = new WeakMap<
    FastifyRequest,
    { kept: unknown; reader?: { visitorId: string; own: unknown }; sent?: Representation }
  >();
  /**
   * A read without a cookie, or with the visitor cookie alone, of a visitor
   * (no owner's session, no other cookie, whose state the answer could depend on).
   */
  const offerable = (request: FastifyRequest) => {
    const { cookie } = request.headers;
    if (fast === undefined || request.method !== "GET") return false;
    if (cookie === undefined) return true;
    return (
      request.visitorId !== null && cookie.startsWith(`${visitorCookie}=`) && !cookie.includes(";")
    );
  };

  /**
   * Once the opening has gone out whole, the fast path (server/web/fast-pages.ts)
   * may send it again, in that coding, while the read cache still keeps it:
   * a write, moderation or deletion on any instance replaces it. A reader's
   * own answer goes again to their cookie alone, while what they own is kept
   * as it was too: their write, or any change to the post, forgets it
   * (docs/decisions/069-a-returning-readers-read-on-the-fast-path.md).
   */
  function offerToFastPath(request: FastifyRequest, reply: FastifyReply) {
    const { kept, reader, sent } = opened.get(request) ?? {};
    const { id } = request.params as { id: string };
    // Kept before the read and the same after: the answer was made from it.
    const own = () =>
      !reader || (reader.own !== undefined && reads.keptOwn(id, reader.visitorId) === reader.own);
    if (kept === undefined || !sent || reads.keptOpening(id) !== kept || !own()) return;
    const cacheControl = reader && sent.personal ? "private, no-cache" : "no-cache";
    offerSent(
      fast,
      request,
      reply,
      sent,
      {
        headers: {
          "cache-control": cacheControl,
          "content-type": "application/json; charset=utf-8",
        },
        varies: ["cookie"],
        api: true,
        reader: reader !== undefined,
      },
      // While the bus may miss events, the read cache keeps nothing, nor this.
      () => bus.healthy && reads.keptOpening(id) === kept && own(),
    );
  }

  formTokenRoute(
    app,
    "comments",
    "A signed time for the comment form, and how long after it the form may be sent",
    defences.formTokens,
  );

  app.get(
    "/items/science/:id/comments",
    {
      ...route(
        "A science post's comments: as the discussion opens, or the threads between two places",
        { 200: commentsResponseSchema, 304: z.null() },
        {
          description:
            "Without a cursor: the first threads and the latest, the middle folded; then `after` = the answer's `next` and `before` = its `before`, until `next` is null (docs/decisions/032-long-discussions-open-at-both-ends.md).",
          params: postParams,
          querystring: commentsQuerySchema,
        },
      ),
      onResponse: (request, reply, done) => {
        offerToFastPath(request, reply);
        done();
      },
    },
    async (request, reply) => {
      requireItem(catalog, "science", request.params.id);
      const owner = await ownerVoice.sessionOf(request, reply);
      // The opening everyone sees, and what the reader owns, as kept before this
      // read: offered to the fast path once sent, if they still stand then.
      const { id } = request.params;
      if (owner === null && offerable(request)) {
        const { visitorId } = request;
        opened.set(request, {
          kept: reads.keptOpening(id),
          ...(visitorId ? { reader: { visitorId, own: reads.keptOwn(id, visitorId) } } : {}),
        });
      }
      const { limit, after, before } = request.query;
      // The schema has refused a cursor that does not decode.
      const place = (cursor: string | undefined) =>
        cursor === undefined ? undefined : (decodeCommentCursor(cursor) ?? undefined);
      const page = await reads.comments(
        request.params.id,
        request.visitorId,
        { limit, after: place(after), before: place(before) },
        owner ? ownerVoice.overlay : null,
      );
      const offered = opened.get(request);
      if (offered) offered.sent = page;
      return sendCached(request, reply, page, owner !== null);
    },
  );

  app.post(
    "/items/science/:id/comments",
    route(
      "Comment on a science post; under moderation it waits for the owner (awaitingApproval). From the owner's console session it is the owner's (byOwner)",
      { 201: commentResponseSchema },
      { params: postParams, body: addCommentRequestSchema },
    ),
    async (request, reply) => {
      requireItem(catalog, "science", request.params.id);
      const { content, userName, formToken, website, parentId, notifyEmail } = request.body;
      const asReply = parentId === undefined ? {} : { parentId };
      const owner = await ownerVoice.sessionOf(request, reply);
      if (owner) {
        const comment = await addAsOwner(
          { engagement, defences },
          {
            postId: request.params.id,
            content,
            userName: ownerVoice.nameFor(userName),
            ...asReply,
          },
          (trx, id) => ownerVoice.audit(owner, "comment write", String(id), trx),
        );
        return reply.code(201).send({ comment });
      }
      const verdict = await defences.judgeNew({
        content,
        userName,
        visitorId: request.visitorId,
        ip: request.ip,
        formToken,
        website,
      });
      if (verdict.outcome === "refused") throw refusalError(verdict.refusal);
      const visitorId = writerOf(request, reply, siteUrl);
      const comment = await engagement.comments.add({
        postId: request.params.id,
        content,
        userName,
        visitorId,
        status: verdict.status,
        ipHash: verdict.ipHash,
        ...asReply,
        ...(notifyEmail === undefined
          ? {}
          : { notifyEmail, sender: defences.senderOf(request.ip) }),
      });
      // The confirmation mail cannot be turned on an inbox (docs/product.md, "Reply mails").
      if (comment === "ip_limited" || comment === "network_limited") {
        reply.header("retry-after", "3600");
        throw new ApiError(
          429,
          "rate_limited",
          `Too many confirmation mails were asked for from ${comment === "ip_limited" ? "your connection" : "your network"} in the last hour. Post without reply mails, or try again later.`,
        );
      }
      if (comment === "address_limited") {
        reply.header("retry-after", "86400");
        throw new ApiError(
          429,
          "rate_limited",
          "This address has been sent enough confirmation mails today. Confirm one of them, or post without reply mails.",
        );
      }
      if (typeof comment === "string") throw replyRefused(comment);
      await defences.recordScreening(comment.id, verdict.screening);
      // A comment taken for spam is shown to nobody: it brought no one.
      if (verdict.status !== "spam") await readers.attribute(request, "comment");
      return reply.code(201).send({ comment });
    },
  );

  app.patch(
    "/comments/:id",
    route(
      "Edit one's own comment",
      { 200: commentResponseSchema },
      { params: rowIdParamsSchema, body: writeCommentRequestSchema },
    ),
    async (request) => {
      await refuseBanned(request, defences);
      const { content, userName } = request.body;
      const refusal = defences.judgeEdit(content);
      if (refusal) throw refusalError(refusal);
      const visitorId = claimantOf(request);
      // An edit meets the spam filter as a new comment does: clean words cannot be edited into junk.
      const screening = await defences.screenEdit({ content, visitorId });
      const result = await engagement.comments.update({
        id: request.params.id,
        content,
        userName,
        visitorId,
        verdict: screening.outcome,
      });
      if (typeof result === "string") throw refused(result);
      // Why it is held or spam, for the console; a held comment edited keeps the reason it was held for.
      if (result.status === screening.outcome) {
        await defences.recordScreening(result.comment.id, screening);
      }
      return { comment: result.comment };
    },
  );

  app.delete(
    "/comments/:id",
    route("Delete one's own comment", { 204: z.null() }, { params: rowIdParamsSchema }),
    async (request, reply) => {
      const result = await engagement.comments.remove({
        id: request.params.id,
        visitorId: claimantOf(request),
      });
      if (result !== true) throw refused(result);
      return reply.code(204).send(null);
    },
  );
};
