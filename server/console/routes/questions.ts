import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { rowIdParamsSchema } from "../../../contract/api.ts";
import { questionsQuerySchema, questionsResponseSchema } from "../../../contract/assistant.ts";
import { notFound } from "../../api/errors.ts";
import { questionActions } from "../../assistant/owner-actions.ts";
import { type ConsoleContext, noContent, route } from "./context.ts";

/**
 * The assistant's questions (docs/product.md, "Chat with Me"): what readers
 * asked, whether the site answered and from which page, their verdicts, and
 * the unanswered ones grouped: ideas for the next article.
 */
export const questionConsoleRoutes: FastifyPluginAsyncZod<ConsoleContext> = async (
  app,
  { assistant, actor },
) => {
  const actions = questionActions({
    repository: assistant.repository,
    retentionDays: assistant.retentionDays,
  });

  app.get(
    "/questions",
    route(
      "Questions asked of the assistant, newest first, with the unanswered ones grouped",
      questionsResponseSchema,
      { querystring: questionsQuerySchema },
    ),
    async (request) => {
      const { answered } = request.query;
      return actions.overview(answered === undefined ? {} : { answered: answered === "yes" });
    },
  );

  app.delete(
    "/questions/:id",
    route("Delete one question", noContent, { params: rowIdParamsSchema }),
    async (request) => {
      if (!(await actions.remove(actor(request), request.params.id))) {
        throw notFound("There is no such question; it may have been deleted.");
      }
    },
  );
};
