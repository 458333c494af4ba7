import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { rowIdParamsSchema } from "../../../contract/api.ts";
import {
  bansResponseSchema,
  bulkModerationRequestSchema,
  bulkModerationResponseSchema,
  moderationQueueResponseSchema,
} from "../../../contract/console.ts";
import { notFound } from "../../api/errors.ts";
import { moderationActions } from "../../moderation/owner-actions.ts";
import { type ConsoleContext, noContent, route } from "./context.ts";

/**
 * The console's work on the held queue and on bans, beside the one-comment
 * actions (docs/decisions/010-moderation-and-spam.md): how many comments wait,
 * approving or rejecting many at once, the bans in force and lifting one.
 * Each change is in the audit trail as if made one by one.
 */
export const moderationRoutes: FastifyPluginAsyncZod<ConsoleContext> = async (app, context) => {
  const { moderation, engagement, insights, actor } = context;
  const actions = moderationActions(moderation, engagement);

  app.get(
    "/comments/queue",
    route("How many comments await approval (the console's badge)", moderationQueueResponseSchema),
    async () => ({ pending: (await insights.commentCounts()).pending }),
  );

  app.post(
    "/comments/bulk",
    route("Approve or reject many comments at once (at most 200)", bulkModerationResponseSchema, {
      description:
        "Each comment is approved or rejected as by its own button, in the order given; ids of comments that are gone are answered in notFound.",
      body: bulkModerationRequestSchema,
    }),
    async (request) => {
      const { action, ids } = request.body;
      let done = 0;
      const missing: number[] = [];
      for (const id of new Set(ids)) {
        const outcome = await actions[action](actor(request), id);
        if (outcome === "not_found") missing.push(id);
        else if (outcome !== "already_published") done++;
      }
      return { done, notFound: missing };
    },
  );

  app.get(
    "/bans",
    route(
      "The bans in force, oldest first, each with the comment that led to it",
      bansResponseSchema,
    ),
    async () => {
      const bans = await moderation.listBans();
      const comments = await insights.commentSummaries(
        bans.flatMap((ban) => (ban.commentId === null ? [] : [ban.commentId])),
      );
      return {
        bans: bans.map(({ commentId, ...ban }) => ({
          ...ban,
          comment: commentId === null ? null : (comments.get(commentId) ?? null),
        })),
      };
    },
  );

  app.delete(
    "/bans/:id",
    route("Lift one ban", noContent, { params: rowIdParamsSchema }),
    async (request) => {
      if ((await actions.unban(actor(request), { banId: request.params.id })) === "not_found") {
        throw notFound("There is no such ban in force.");
      }
    },
  );
};
