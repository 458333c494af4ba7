import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { commentResponseSchema, rowIdParamsSchema } from "../../../contract/api.ts";
import {
  banRequestSchema,
  type ConsoleComment,
  commentSearchSchema,
  consoleCommentsResponseSchema,
  ownerTextRequestSchema,
} from "../../../contract/console.ts";
import { ApiError, notFound } from "../../api/errors.ts";
import { addAsOwner } from "../../api/routes/deps.ts";
import { pageOf } from "../../db/list-pages.ts";
import { moderationActions, noAddress, ownersComment } from "../../moderation/owner-actions.ts";
import { type ConsoleContext, noContent, route } from "./context.ts";

/** Comments: search, moderation, the owner's edits and deletions (their live events: /api/events). */
export const commentRoutes: FastifyPluginAsyncZod<ConsoleContext> = async (app, context) => {
  const { config, engagement, moderation, defences, spam, insights, actor } = context;
  const actions = moderationActions(moderation, engagement);

  /** Each held or spam comment with why it is there. */
  async function withReasons(comments: ConsoleComment[]): Promise<ConsoleComment[]> {
    const reasons = await spam.reasons(comments.filter((c) => c.status !== "published"));
    return comments.map((c) => {
      const why = reasons.get(c.id);
      return why ? { ...c, why } : c;
    });
  }

  app.get(
    "/comments",
    route(
      "Recent comments, newest first, searchable by text, name and post; the held queue and the spam list, each with why",
      consoleCommentsResponseSchema,
      { querystring: commentSearchSchema },
    ),
    async (request) => {
      const { status, after, limit } = request.query;
      // The held queue is listed apart, oldest first, and never again among the others;
      // on the first page only: the later ones go on with the others.
      const others =
        status === "pending"
          ? { entries: [], next: null }
          : pageOf(
              await insights.searchComments({ ...request.query, status, limit: limit + 1 }),
              limit,
              (comment) => ({ at: comment.createdAt, key: String(comment.id) }),
            );
      return {
        pending:
          (status === undefined || status === "pending") && !after
            ? await withReasons(
                await insights.searchComments({ ...request.query, status: "pending" }),
              )
            : [],
        comments: await withReasons(others.entries),
        next: others.next,
        counts: await insights.commentCounts(),
        posts: insights.posts(),
      };
    },
  );

  // The owner's three decisions on one comment, each a route of the same shape.
  const decisions = {
    approve: "Publish a held comment (and trust its writer under MODERATION=first)",
    reject: "Reject a comment: it goes, for its writer too",
    spam: "Mark a comment as spam: hidden from everyone but its writer, and taught to the spam filter",
  } as const;
  for (const [decision, summary] of Object.entries(decisions)) {
    app.post(
      `/comments/:id/${decision}`,
      route(summary, noContent, { params: rowIdParamsSchema }),
      async (request) => {
        const act = actions[decision as keyof typeof decisions];
        const outcome = await act(actor(request), request.params.id);
        if (outcome === "not_found") throw notFound("There is no such comment.");
        if (outcome === "owners_comment") {
          throw new ApiError(409, "conflict", ownersComment(request.params.id));
        }
      },
    );
  }

  app.post(
    "/comments/:id/reply",
    route(
      "Answer a published comment as the owner (with Author); readers' open pages see the reply",
      { 201: commentResponseSchema },
      {
        description:
          'Answering a reply joins its thread (docs/product.md, "Replies"). A missing or deleted comment is 404; a held or spam one 409.',
        params: rowIdParamsSchema,
        body: ownerTextRequestSchema,
      },
    ),
    async (request, reply) => {
      const parentId = request.params.id;
      const parent = await engagement.comments.getForOwner(parentId);
      if (!parent || parent.deleted) throw notFound("There is no such comment.");
      if (parent.status !== "published") {
        throw new ApiError(
          409,
          "conflict",
          "Only a published comment can be answered: approve it first.",
        );
      }
      const comment = await addAsOwner(
        { engagement, defences },
        {
          postId: parent.postId,
          content: request.body.content,
          userName: config.owner.name,
          parentId,
        },
        (trx, id) => actor(request).audit("comment reply", `${id}, answering ${parentId}`, trx),
      );
      return reply.code(201).send({ comment });
    },
  );

  app.post(
    "/comments/:id/ban",
    route(
      "Ban the writer of a comment (their browser, or every browser at its address), for some days or until lifted",
      noContent,
      { params: rowIdParamsSchema, body: banRequestSchema },
    ),
    async (request) => {
      const { id } = request.params;
      const result = await actions.ban(actor(request), id, request.body);
      if (result === "not_found") throw notFound("There is no such comment.");
      if (result === "no_address") throw new ApiError(409, "conflict", noAddress(id));
      if (result === "owners_comment") throw new ApiError(409, "conflict", ownersComment(id));
    },
  );

  app.patch(
    "/comments/:id",
    route(
      "Edit the text of any comment (from the reading page); readers' open pages see it",
      commentResponseSchema,
      { params: rowIdParamsSchema, body: ownerTextRequestSchema },
    ),
    async (request) => {
      // The same text rules as every comment and edit (docs/decisions/016-owner-voice.md).
      const refusal = defences.judgeEdit(request.body.content);
      if (refusal) throw new ApiError(refusal.status, refusal.code, refusal.message);
      const { id } = request.params;
      const comment = await engagement.comments.updateAsOwner(
        { id, content: request.body.content },
        (trx) => actor(request).audit("comment edit", String(id), trx),
      );
      if (comment === "not_found") throw notFound("There is no such comment.");
      return { comment };
    },
  );

  app.delete(
    "/comments/:id",
    route(
      "Delete any comment (from the console or the reading page); readers' open pages see it go",
      noContent,
      { params: rowIdParamsSchema },
    ),
    async (request) => {
      const outcome = await actions.remove(actor(request), request.params.id);
      if (outcome === "not_found") throw notFound("There is no such comment.");
    },
  );
};
