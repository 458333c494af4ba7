import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { rowIdParamsSchema } from "../../../contract/api.ts";
import {
  blockRequestSchema,
  eraseRequestSchema,
  eraseResponseSchema,
  followersQuerySchema,
  followersResponseSchema,
  mentionsResponseSchema,
} from "../../../contract/fediverse.ts";
import { ApiError, FieldRefusal, notFound } from "../../api/errors.ts";
import { type ConsoleContext, noContent, route } from "./context.ts";

const invalidTarget =
  "Give an account's address (https://…) or a server's host name (mastodon.social).";

/**
 * The site's audience on the open web (docs/fediverse.md): its followers on
 * the Fediverse and the blocks, and the webmentions other sites sent. Each
 * action is the Fediverse's owner action (server/fediverse/owner-actions.ts),
 * audited there.
 */
export const fediverseConsoleRoutes: FastifyPluginAsyncZod<ConsoleContext> = async (
  app,
  { fediverse, actor },
) => {
  const { actions, repository, webmentions } = fediverse;

  app.get(
    "/followers",
    route(
      "A page of the Fediverse accounts that follow the site, and the blocks, newest first",
      followersResponseSchema,
      { querystring: followersQuerySchema },
    ),
    async (request) => {
      const { after, limit } = request.query;
      const [page, total, blocks] = await Promise.all([
        repository.followersPage({ after, limit }),
        repository.followerCount(),
        repository.blocks(),
      ]);
      return {
        followers: page.entries.map(({ actorId, handle, name, followedAt }) => ({
          actorId,
          handle,
          name,
          followedAt,
        })),
        next: page.next,
        total,
        blocks,
      };
    },
  );

  app.post(
    "/fediverse/block",
    route(
      "Block an account (its address) or a whole server (its host name): what it sends is dropped and it no longer follows",
      noContent,
      { body: blockRequestSchema },
    ),
    async (request) => {
      const done = await actions.block(actor(request), request.body.target);
      if (done === "invalid") throw new FieldRefusal("body.target", invalidTarget);
      if (!done) throw new ApiError(409, "conflict", "That is blocked already.");
    },
  );

  app.post(
    "/fediverse/erase",
    route(
      "Erase a Fediverse account (by its address or a comment it wrote): its comments, follow, likes, boosts, webmentions and cached profile go, and it stays blocked",
      eraseResponseSchema,
      { body: eraseRequestSchema },
    ),
    async (request) => {
      const done = await actions.erase(actor(request), request.body);
      if (done === "invalid") {
        throw new ApiError(400, "validation_failed", "Give an account's address (https://…).");
      }
      if (done === "not_found") throw notFound("That comment did not come from the Fediverse.");
      if (!done) {
        throw new ApiError(409, "conflict", "Nothing of that account is left, and it is blocked.");
      }
      return done;
    },
  );

  app.post(
    "/fediverse/unblock",
    route("Lift a block on an account or a server", noContent, { body: blockRequestSchema }),
    async (request) => {
      const done = await actions.unblock(actor(request), request.body.target);
      if (done === "invalid") throw new FieldRefusal("body.target", invalidTarget);
      if (!done) throw notFound("That is not blocked.");
    },
  );

  app.get(
    "/webmentions",
    route("Webmentions other sites sent, newest first, with their state", mentionsResponseSchema),
    async () => ({ mentions: await webmentions.list() }),
  );

  app.post(
    "/webmentions/:id/approve",
    route("Show a verified webmention under its item", noContent, {
      params: rowIdParamsSchema,
    }),
    async (request) => {
      if (!(await actions.approveMention(actor(request), request.params.id))) {
        throw notFound("No verified webmention of that id waits for approval.");
      }
    },
  );

  app.delete(
    "/webmentions/:id",
    route("Delete a webmention, shown or waiting", noContent, { params: rowIdParamsSchema }),
    async (request) => {
      if (!(await actions.removeMention(actor(request), request.params.id))) {
        throw notFound("There is no such webmention; it may have been deleted.");
      }
    },
  );
};
