import { sql } from "kysely";
import type { StoredQuestion } from "../../contract/assistant.ts";
import type { Store } from "../db/store.ts";
import { dayMs, toIso } from "../lib/time.ts";

/**
 * Where the assistant's questions live (docs/product.md, "Chat with Me"):
 * the question, what the site answered it with and the reader's verdict.
 * Never who asked: no visitor, address or IP is written with it.
 */

/**
 * A question as it is kept, and as a model is sent it: an e-mail address, or a phone number
 * written with its country code, that a reader put in it (to be answered by mail, say) marked
 * as left out, since nothing kept or sent with a question may tell who asked. Unmarked, as it
 * is searched: an address's words are no subject, and would leave the question unanswered.
 */
export const withoutContacts = (question: string, { marked = true } = {}) =>
  question
    .replace(
      /[^\s@\uff20<>()[\]{},;:"]+[@\uff20][\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu,
      marked ? "[e-mail address]" : "",
    )
    .replace(/\+\d(?:[\s().-]*\d){7,14}/g, marked ? "[phone number]" : "");

type NewQuestion = {
  question: string;
  known: boolean;
  /** The page the answer quoted first. */
  page: string | null;
  service: string | null;
  written: boolean;
};

type QuestionTotals = {
  asked: number;
  answered: number;
  helpful: number;
  unhelpful: number;
};

const flag = (value: unknown) => Number(value) === 1;

export function createQuestionsRepository(store: Store, clock: () => Date = () => new Date()) {
  const { db } = store;
  return {
    /**
     * Records one question and what it was answered with: the one place a
     * question is written, whoever else wants to count it.
     */
    async record(question: NewQuestion): Promise<number> {
      const row = await db
        .insertInto("assistant_questions")
        .values({
          question: withoutContacts(question.question),
          known: question.known ? 1 : 0,
          page: question.page,
          service: question.service,
          written: question.written ? 1 : 0,
          helpful: null,
          asked_at: clock().toISOString(),
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      return row.id;
    },

    /** A model's answer replaced the quoted one after the question was recorded. */
    async markWritten(id: number): Promise<void> {
      await db
        .updateTable("assistant_questions")
        .set({ written: 1 })
        .where("id", "=", id)
        .execute();
    },

    /**
     * The reader's thumbs up or down, given once: "given" when the other was given
     * before (the same again, a retry, is recorded), "gone" when the question is.
     */
    async feedback(id: number, helpful: boolean): Promise<"recorded" | "given" | "gone"> {
      const verdict = helpful ? 1 : 0;
      const result = await db
        .updateTable("assistant_questions")
        .set({ helpful: verdict })
        .where("id", "=", id)
        .where((eb) => eb.or([eb("helpful", "is", null), eb("helpful", "=", verdict)]))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) > 0) return "recorded";
      const kept = await db
        .selectFrom("assistant_questions")
        .select("id")
        .where("id", "=", id)
        .executeTakeFirst();
      return kept ? "given" : "gone";
    },

    async list({
      answered,
      limit = 500,
    }: {
      answered?: boolean;
      limit?: number;
    } = {}): Promise<StoredQuestion[]> {
      let query = db.selectFrom("assistant_questions").selectAll();
      if (answered !== undefined) query = query.where("known", "=", answered ? 1 : 0);
      const rows = await query.orderBy("id", "desc").limit(limit).execute();
      return rows.map((row) => ({
        id: row.id,
        question: row.question,
        known: flag(row.known),
        page: row.page,
        service: row.service,
        helpful: row.helpful === null ? null : flag(row.helpful),
        written: flag(row.written),
        askedAt: toIso(row.asked_at),
      }));
    },

    async totals(): Promise<QuestionTotals> {
      const row = await db
        .selectFrom("assistant_questions")
        .select([
          sql<number>`count(*)`.as("asked"),
          sql<number>`coalesce(sum(known), 0)`.as("answered"),
          sql<number>`coalesce(sum(case when helpful = 1 then 1 else 0 end), 0)`.as("helpful"),
          sql<number>`coalesce(sum(case when helpful = 0 then 1 else 0 end), 0)`.as("unhelpful"),
        ])
        .executeTakeFirstOrThrow();
      return {
        asked: Number(row.asked),
        answered: Number(row.answered),
        helpful: Number(row.helpful),
        unhelpful: Number(row.unhelpful),
      };
    },

    async remove(id: number, within: Store["db"] = db): Promise<boolean> {
      const result = await within
        .deleteFrom("assistant_questions")
        .where("id", "=", id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Deletes the questions asked more than `days` days ago, in `within`; how many. */
    async prune(days: number, within: Store["db"] = db): Promise<number> {
      const before = new Date(clock().getTime() - days * dayMs).toISOString();
      const result = await within
        .deleteFrom("assistant_questions")
        .where("asked_at", "<", before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type QuestionsRepository = ReturnType<typeof createQuestionsRepository>;
