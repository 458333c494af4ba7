import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { z } from "zod";
import {
  commentResponseSchema,
  commentsResponseSchema,
  errorResponseSchema,
  writeCommentRequestSchema,
} from "../../../contract/api.ts";
import type { CommentRefusal } from "../../engagement/comments-repository.ts";
import { ApiError, notFound } from "../errors.ts";
import { claimantOf, type RouteDeps, requireItem, sendCached, writerOf } from "./deps.ts";

const postParams = z.object({ id: z.string() });
// The column is a 32-bit integer on PostgreSQL; a larger id must not reach it.
const commentParams = z.object({ id: z.coerce.number().int().min(1).max(2_147_483_647) });
const errors = { "4xx": errorResponseSchema, "5xx": errorResponseSchema };

function refused(refusal: CommentRefusal): ApiError {
  return refusal === "not_found"
    ? notFound("There is no such comment.")
    : new ApiError(403, "forbidden", "Only the visitor who wrote this comment can change it.");
}

export const commentRoutes: FastifyPluginAsyncZod<RouteDeps> = async (
  app,
  { engagement, reads, catalog, siteUrl },
) => {
  app.get(
    "/items/science/:id/comments",
    {
      schema: {
        summary: "Comments of a science post, oldest first",
        tags: ["comments"],
        params: postParams,
        response: { 200: commentsResponseSchema, 304: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      requireItem(catalog, "science", request.params.id);
      return sendCached(request, reply, await reads.comments(request.params.id, request.visitorId));
    },
  );

  app.post(
    "/items/science/:id/comments",
    {
      schema: {
        summary: "Comment on a science post",
        tags: ["comments"],
        params: postParams,
        body: writeCommentRequestSchema,
        response: { 201: commentResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      requireItem(catalog, "science", request.params.id);
      const comment = await engagement.comments.add({
        postId: request.params.id,
        content: request.body.content,
        userName: request.body.userName,
        visitorId: writerOf(request, reply, siteUrl),
      });
      return reply.code(201).send({ comment });
    },
  );

  app.patch(
    "/comments/:id",
    {
      schema: {
        summary: "Edit one's own comment",
        tags: ["comments"],
        params: commentParams,
        body: writeCommentRequestSchema,
        response: { 200: commentResponseSchema, ...errors },
      },
    },
    async (request) => {
      const result = await engagement.comments.update({
        id: request.params.id,
        content: request.body.content,
        userName: request.body.userName,
        visitorId: claimantOf(request),
      });
      if (typeof result === "string") throw refused(result);
      return { comment: result };
    },
  );

  app.delete(
    "/comments/:id",
    {
      schema: {
        summary: "Delete one's own comment",
        tags: ["comments"],
        params: commentParams,
        response: { 204: z.null(), ...errors },
      },
    },
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
