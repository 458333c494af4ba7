import { z } from "zod";
import { rowIdMax, timestampSchema } from "./api.ts";
import { limits } from "./limits.ts";
import { hasFewMarksPerCharacter, hasNoHiddenCharacters, hasVisibleCharacter } from "./text.ts";

/*
 * The site's own assistant, "Chat with Me" on /services (docs/product.md,
 * "Chat with Me"): a question in, an answer quoted from the site's pages with
 * its sources out. Questions are kept without any identity for the owner's
 * "Questions" screen in the console.
 */

/** A question as a reader types it: one line of plain text, 2 to 500 characters. */
export const questionSchema = z
  .string()
  .trim()
  .min(limits.questionMin, `Ask a question of at least ${limits.questionMin} characters.`)
  .max(
    limits.questionMax,
    `A question is at most ${limits.questionMax} characters; ask about one thing at a time.`,
  )
  .refine(
    (value) => hasNoHiddenCharacters(value.replace(/[\t\r\n]+/g, " ")),
    "A question is plain text, without control or invisible characters: type it rather than paste it.",
  )
  .refine(hasVisibleCharacter, "Type a question.")
  .refine(hasFewMarksPerCharacter, "The question has too many accents on one character.");

export const assistantRequestSchema = z.strictObject({
  question: questionSchema,
  /** The reader's question before this one, so that "and for silk?" keeps its topic. */
  previous: questionSchema.optional().describe("The question asked before this one"),
  from: z
    .string()
    .max(100)
    .optional()
    .describe(
      "The id of the service whose page the question was asked on: an answer that declines leads to its enquiry and booking",
    ),
});

const assistantSourceSchema = z.object({
  title: z.string(),
  /** A path on this site, with the part's anchor: `/science/ironing#pressing-temperatures`. */
  url: z.string(),
});
export type AssistantSource = z.infer<typeof assistantSourceSchema>;

/** Links the site builds for an answer: the enquiry form and, where bookings exist, a call. */
const assistantActionSchema = z.object({
  kind: z.enum(["enquiry", "booking"]),
  label: z.string(),
  url: z.string(),
});
export type AssistantAction = z.infer<typeof assistantActionSchema>;

export const assistantResponseSchema = z.object({
  /**
   * Text, never HTML: quoted from the first source, or written from the
   * sources alone, citing them as [1], [2], [3] (their place in `sources`).
   */
  answer: z.string(),
  sources: z.array(assistantSourceSchema),
  /** False when the site holds no answer: `answer` then says so and offers the engineer. */
  known: z.boolean(),
  /** True when a language model wrote `answer` from the sources; false for a quote. */
  written: z.boolean(),
  /** The service the question is about, with what it includes. */
  service: z
    .object({ id: z.string(), title: z.string(), includes: z.array(z.string()) })
    .nullable(),
  actions: z.array(assistantActionSchema),
  /** How the reader's thumbs up or down reaches this question. */
  feedback: z.object({ id: z.number().int(), token: z.string() }),
});
export type AssistantResponse = z.infer<typeof assistantResponseSchema>;

/**
 * What `POST /api/assistant` streams to a client that accepts
 * `text/event-stream`: `sources` (the answer's sources, before a model
 * writes), `text` (each piece of the written answer as it comes), then always
 * `answer`, the whole answer as the JSON answer would be. `answer` is the one
 * to keep: when the model failed or ran out of time, it is the quoted answer,
 * and the pieces shown before it are to be dropped.
 */
export const assistantStreamEvents = {
  sources: z.object({ sources: z.array(assistantSourceSchema) }),
  text: z.object({ text: z.string() }),
  answer: assistantResponseSchema,
};

export const assistantFeedbackRequestSchema = z.strictObject({
  id: z.number().int().min(1).max(rowIdMax),
  token: z.string().max(100),
  helpful: z.boolean(),
});
export const assistantFeedbackResponseSchema = z.object({ recorded: z.literal(true) });

// The owner's side

const storedQuestionSchema = z.object({
  id: z.number().int(),
  question: z.string(),
  known: z.boolean(),
  /** The page the answer quoted, when there was one. */
  page: z.string().nullable(),
  service: z.string().nullable(),
  /** The reader's verdict: true for a thumbs up, false for down, null for none. */
  helpful: z.boolean().nullable(),
  written: z.boolean(),
  askedAt: timestampSchema,
});
export type StoredQuestion = z.infer<typeof storedQuestionSchema>;

export const questionsQuerySchema = z.strictObject({
  answered: z.enum(["yes", "no"]).optional(),
});

export const questionsResponseSchema = z.object({
  questions: z.array(storedQuestionSchema),
  /** The unanswered questions, grouped by their words: ideas for the next article. */
  unanswered: z.array(
    z.object({ words: z.string(), count: z.number().int(), examples: z.array(z.string()) }),
  ),
  totals: z.object({
    asked: z.number().int(),
    answered: z.number().int(),
    helpful: z.number().int(),
    unhelpful: z.number().int(),
  }),
  retentionDays: z.number().int(),
});
export type QuestionsResponse = z.infer<typeof questionsResponseSchema>;

export type AssistantEndpoints = {
  "POST /assistant": { body: z.input<typeof assistantRequestSchema>; response: AssistantResponse };
  "POST /assistant/feedback": {
    body: z.input<typeof assistantFeedbackRequestSchema>;
    response: z.infer<typeof assistantFeedbackResponseSchema>;
  };
  "GET /admin/questions": {
    query?: z.input<typeof questionsQuerySchema>;
    response: QuestionsResponse;
  };
  "DELETE /admin/questions/:id": { params: { id: number }; response: undefined };
};
