import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { z } from "zod";
import {
  addReactionRequestSchema,
  itemKindSchema,
  reactionsResponseSchema,
  reactionTypeSchema,
} from "../../../contract/api.ts";
import { notFound, routesTagged } from "../errors.ts";
import {
  claimantOf,
  type RouteDeps,
  refuseBanned,
  requireItem,
  sendCached,
  writerOf,
} from "./deps.ts";

const route = routesTagged("reactions");

const itemParams = z.object({ kind: itemKindSchema, id: z.string() });
export const reactionRoutes: FastifyPluginAsyncZod<RouteDeps> = async (
  app,
  { engagement, reads, catalog, siteUrl, defences },
) => {
  app.get(
    "/items/:kind/:id/reactions",
    route(
      "Reaction counts of a story or science post, and the caller's own",
      { 200: reactionsResponseSchema, 304: z.null() },
      { params: itemParams },
    ),
    async (request, reply) => {
      const { kind, id } = request.params;
      requireItem(catalog, kind, id);
      return sendCached(request, reply, await reads.reactions(kind, id, request.visitorId));
    },
  );

  app.post(
    "/items/:kind/:id/reactions",
    route(
      "React to a story or science post (201 added, 200 already held)",
      { 200: reactionsResponseSchema, 201: reactionsResponseSchema },
      { params: itemParams, body: addReactionRequestSchema },
    ),
    async (request, reply) => {
      const { kind, id } = request.params;
      requireItem(catalog, kind, id);
      await refuseBanned(request, defences);
      const { added, reactions } = await engagement.reactions.add(
        { kind, itemId: id, visitorId: writerOf(request, reply, siteUrl) },
        request.body.type,
        request.body.userName,
      );
      return reply.code(added ? 201 : 200).send(reactions);
    },
  );

  app.delete(
    "/items/:kind/:id/reactions/:type",
    route(
      "Take back one's own reaction",
      { 200: reactionsResponseSchema },
      { params: itemParams.extend({ type: reactionTypeSchema }) },
    ),
    async (request) => {
      const { kind, id, type } = request.params;
      requireItem(catalog, kind, id);
      const reactions = await engagement.reactions.remove(
        { kind, itemId: id, visitorId: claimantOf(request) },
        type,
      );
      if (!reactions) throw notFound(`You have no "${type}" reaction here.`);
      return reactions;
    },
  );
};
