import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { errorResponseSchema } from "../../../contract/api.ts";
import {
  assistantFeedbackRequestSchema,
  assistantFeedbackResponseSchema,
  assistantRequestSchema,
  assistantResponseSchema,
} from "../../../contract/assistant.ts";
import type { Assistant } from "../../assistant/service.ts";
import { ApiError } from "../errors.ts";
import { createVisitorLimiter } from "../guards.ts";

const errors = { "4xx": errorResponseSchema, "5xx": errorResponseSchema };

export type QuestionLimits = { perVisitor: number; perIp: number };

/**
 * The assistant's API (docs/product.md, "Chat with Me"): a question answered
 * from the site's pages, and the reader's thumbs up or down on an answer.
 * Questions are limited per visitor and per address, apart from the writes'
 * limits, since each costs a search: 429 with Retry-After beyond them.
 */
export const assistantRoutes: FastifyPluginAsyncZod<{
  assistant: Assistant;
  limits: QuestionLimits;
}> = async (app, { assistant, limits }) => {
  const limit = createVisitorLimiter(
    app,
    { ...limits, windowMs: 60_000 },
    {
      name: "assistant",
      message: "You have asked many questions in a short time; wait a minute, then ask again.",
    },
  );

  app.post(
    "/assistant",
    {
      schema: {
        summary:
          "Ask the site's assistant: an answer quoted from the site's pages, with its sources",
        description:
          "The answer is text, quoted from the first source (or, when a model is configured, written from the sources alone). `known` is false when the site holds no answer; `actions` then offer the enquiry form. The question is recorded without any identity.",
        tags: ["assistant"],
        body: assistantRequestSchema,
        response: { 200: assistantResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      await limit(request);
      const asked = await assistant.ask(request.body.question, request.body.previous);
      if (!asked) {
        throw new ApiError(
          503,
          "service_unavailable",
          "The assistant is not available: the site was built without its index.",
        );
      }
      reply.header("cache-control", "no-store");
      return asked.response;
    },
  );

  app.post(
    "/assistant/feedback",
    {
      schema: {
        summary: "A reader's thumbs up or down on one of the assistant's answers",
        tags: ["assistant"],
        body: assistantFeedbackRequestSchema,
        response: { 200: assistantFeedbackResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { id, token, helpful } = request.body;
      const outcome = await assistant.feedback(id, token, helpful);
      if (outcome === "refused") {
        throw new ApiError(403, "forbidden", "That answer's verdict cannot be given from here.");
      }
      if (outcome === "gone") {
        throw new ApiError(404, "not_found", "That question is no longer kept.");
      }
      return { recorded: true as const };
    },
  );
};
