import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import {
  type AssistantResponse,
  assistantFeedbackRequestSchema,
  assistantFeedbackResponseSchema,
  assistantRequestSchema,
  assistantResponseSchema,
  type assistantStreamEvents,
} from "../../../contract/assistant.ts";
import { type Assistant, tooManyQuestions, whileReaderWaits } from "../../assistant/service.ts";
import type { AddressCount } from "../../lib/address-limit.ts";
import { ApiError, routesTagged } from "../errors.ts";
import { createVisitorLimiter } from "../guards.ts";

const route = routesTagged("assistant");

/** Questions a visitor may ask a minute, and the count per address and network the question form shares. */
export type QuestionLimits = { perVisitor: number; byIp: AddressCount };

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
    { name: "assistant", message: tooManyQuestions },
  );

  app.post(
    "/assistant",
    {
      // Server-sent events for a client that asks for them, JSON for the rest.
      sse: { kind: "dual", heartbeat: false },
      ...route(
        "Ask the site's assistant: an answer quoted from the site's pages (or written from them), with its sources",
        assistantResponseSchema,
        {
          description: [
            "The answer is text, never HTML: quoted from the first source or, when the site has a language model configured (ASSISTANT_LLM_URL), written from the sources alone, citing them as [1], [2], [3] by their place in `sources` (`written` is then true). `known` is false when the site holds no answer; `actions` then offer the enquiry form. The question is recorded without any identity.",
            "With `Accept: text/event-stream` the answer comes as server-sent events instead of one JSON document: `sources` (`{sources}`, before the model writes), `text` (`{text}`, each piece of the written answer as it comes), and last, always, `answer` (the whole answer, as the JSON answer would be). Keep `answer`: when the model failed or took longer than ASSISTANT_LLM_TIMEOUT_MS, it is the quoted answer, and the pieces shown before it are dropped. Refusals (400, 403, 415, 429, 503) are JSON either way.",
          ].join("\n\n"),
          body: assistantRequestSchema,
        },
      ),
    },
    async (request, reply) => {
      await limit(request);
      if (!assistant.ready()) {
        throw new ApiError(
          503,
          "service_unavailable",
          "The assistant is not available: the site was built without its index.",
        );
      }
      const { question, previous, from } = request.body;
      reply.header("cache-control", "no-store");
      const sse = reply.sse;
      const left = whileReaderWaits(reply.raw);
      if (!sse) {
        return (await assistant.ask(
          question,
          previous,
          request,
          { signal: left.signal },
          from,
        )) as AssistantResponse;
      }
      const event = (name: keyof typeof assistantStreamEvents, data: unknown) => {
        if (sse.isConnected) sse.send({ event: name, data }).catch(() => left.abort());
      };
      const answer = await assistant.ask(
        question,
        previous,
        request,
        {
          onSources: (sources) => event("sources", { sources }),
          onText: (text) => event("text", { text }),
          signal: left.signal,
        },
        from,
      );
      event("answer", answer);
    },
  );

  app.post(
    "/assistant/feedback",
    route(
      "A reader's thumbs up or down on one of the assistant's answers, given once: the other afterwards is 409",
      { 200: assistantFeedbackResponseSchema },
      { body: assistantFeedbackRequestSchema },
    ),
    async (request) => {
      const { id, token, helpful } = request.body;
      const outcome = await assistant.feedback(id, token, helpful);
      if (outcome === "refused") {
        throw new ApiError(403, "forbidden", "That answer's verdict cannot be given from here.");
      }
      if (outcome === "gone") {
        throw new ApiError(404, "not_found", "That question is no longer kept.");
      }
      if (outcome === "given") {
        throw new ApiError(409, "conflict", "A verdict on that answer was given already.");
      }
      return { recorded: true as const };
    },
  );
};
