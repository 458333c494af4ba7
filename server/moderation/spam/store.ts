import type { Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";
import { nowIso } from "../../lib/time.ts";
import { type Label, sealExample } from "./model.ts";

/**
 * The spam filter's rows (docs/decisions/025-spam-that-learns.md): the
 * owner's decisions kept as training examples, every instance reading the
 * same ones, and what the filter did with each new comment.
 */

export type ExampleSource = "approve" | "publish" | "spam" | "ban";
type ScreeningReason = "score" | "stranger-link" | "learned" | "honeypot" | "moderation";
export type Screening = {
  outcome: "published" | "pending" | "spam";
  reason: ScreeningReason | null;
  score: number | null;
};

export type StoredExample = {
  id: number;
  label: Label;
  source: ExampleSource;
  /** Empty once the comment's writer deleted or edited it. */
  content: string;
  /** What was kept of a comment marked as junk, as JSON: see `sealExample`. */
  features: string | null;
};

/** The owner's decisions that outlive the comment's text: marking it as junk. */
const sealedSources: readonly ExampleSource[] = ["spam", "ban"];

export type SpamStore = ReturnType<typeof createSpamStore>;

/**
 * What one of the owner's decisions says of the filter's judgement of that
 * comment: a correction overrules it (published what it called junk or held
 * by its score; marked as junk what it published), a confirmation bears it
 * out (marked as junk what it held or stored as spam). Null: neither, such as
 * approving a link from a stranger (the policy asks the owner to look), or a
 * comment older than the filter.
 */
function judgementOf(
  source: ExampleSource,
  screening: { outcome: Screening["outcome"]; reason: string | null } | null,
): "correction" | "confirmation" | null {
  if (!screening) return null;
  const { outcome, reason } = screening;
  if (source === "approve" || source === "publish") {
    const byJudgement = outcome === "spam" || reason === "score" || reason === "learned";
    return outcome !== "published" && byJudgement ? "correction" : null;
  }
  const filterStopped = outcome === "spam" || (outcome === "pending" && reason !== "moderation");
  return filterStopped ? "confirmation" : "correction";
}

/**
 * Takes comments' words out of what the spam filter learnt from the owner's
 * decisions (docs/decisions/025-spam-that-learns.md): a deleted or edited
 * comment leaves no copy of its old text behind (the privacy page, "When a
 * comment is deleted or edited"). An example of a comment the owner marked as
 * junk keeps what the filter learnt from it (its features, stored apart from
 * the text when it was marked), so a spammer cannot make the filter forget by
 * deleting their comments; every other example goes. Each instance's filter
 * notices the count fall and learns again.
 */
export async function forgetExamples(
  trx: Transaction<Database>,
  commentIds: readonly number[],
): Promise<void> {
  if (commentIds.length === 0) return;
  await trx
    .updateTable("spam_examples")
    .set({ content: "" })
    .where("comment_id", "in", [...commentIds])
    .where("features", "is not", null)
    .execute();
  await trx
    .deleteFrom("spam_examples")
    .where("comment_id", "in", [...commentIds])
    .where("features", "is", null)
    .execute();
}

export function createSpamStore(store: Store) {
  const { db } = store;
  return {
    async addExample(input: {
      commentId: number;
      label: Label;
      source: ExampleSource;
      content: string;
    }): Promise<void> {
      await db
        .insertInto("spam_examples")
        .values({
          comment_id: input.commentId,
          label: input.label,
          source: input.source,
          content: input.content,
          features: sealedSources.includes(input.source)
            ? JSON.stringify(sealExample(input.content))
            : null,
          created_at: nowIso(),
        })
        .execute();
    },

    /** Whether the owner already taught the filter with this comment. */
    async taught(commentId: number): Promise<boolean> {
      const row = await db
        .selectFrom("spam_examples")
        .select("id")
        .where("comment_id", "=", commentId)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** How many examples there are and the newest's id: whether this instance has them all. */
    async examplesStamp(): Promise<{ count: number; lastId: number }> {
      const row = await db
        .selectFrom("spam_examples")
        .select((eb) => [eb.fn.countAll().as("count"), eb.fn.max("id").as("last")])
        .executeTakeFirstOrThrow();
      return { count: Number(row.count), lastId: Number(row.last ?? 0) };
    },

    /** Examples after `afterId`, oldest first. */
    async examplesAfter(afterId: number): Promise<StoredExample[]> {
      const rows = await db
        .selectFrom("spam_examples")
        .select(["id", "label", "source", "content", "features"])
        .where("id", ">", afterId)
        .orderBy("id")
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        label: row.label,
        source: row.source as ExampleSource,
        content: row.content,
        features: row.features,
      }));
    },

    async recordScreening(commentId: number, screening: Screening): Promise<void> {
      await db
        .insertInto("spam_screening")
        .values({
          comment_id: commentId,
          outcome: screening.outcome,
          reason: screening.reason,
          score: screening.score,
          created_at: nowIso(),
        })
        // An edit is screened again: what the filter made of the comment's latest words.
        .onConflict((oc) =>
          oc.column("comment_id").doUpdateSet({
            outcome: screening.outcome,
            reason: screening.reason,
            score: screening.score,
          }),
        )
        .execute();
    },

    /** Why each of these comments was held or stored as spam, by comment id. */
    async screeningOf(commentIds: readonly number[]): Promise<Map<number, Screening>> {
      if (commentIds.length === 0) return new Map();
      const rows = await db
        .selectFrom("spam_screening")
        .select(["comment_id", "outcome", "reason", "score"])
        .where("comment_id", "in", [...commentIds])
        .execute();
      return new Map(
        rows.map((row) => [
          row.comment_id,
          {
            outcome: row.outcome,
            reason: row.reason as ScreeningReason | null,
            score: row.score === null ? null : Number(row.score),
          },
        ]),
      );
    },

    /** Published comments of this visitor, newest first, up to `max`: for trusting a browser. */
    async publishedTexts(visitorId: string, max: number): Promise<string[]> {
      const rows = await db
        .selectFrom("science_comments")
        .select("content")
        .where("visitor_id", "=", visitorId)
        .where("status", "=", "published")
        .orderBy("id", "desc")
        .limit(max)
        .execute();
      return rows.map((row) => row.content);
    },

    /** Whether the owner approved a comment of this visitor. */
    async ownerApproved(visitorId: string): Promise<boolean> {
      const row = await db
        .selectFrom("approved_visitors")
        .select("visitor_id")
        .where("visitor_id", "=", visitorId)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** What the filter did since `since`, and the owner's decisions, for `admin spam stats`. */
    async stats(since: Date): Promise<{
      outcomes: { outcome: string; reason: string | null; count: number }[];
      decisions: { source: string; count: number }[];
      /** The decisions that overruled the filter, and those that bore it out, by source. */
      corrections: { source: string; count: number }[];
      confirmations: { source: string; count: number }[];
    }> {
      const outcomes = await db
        .selectFrom("spam_screening")
        .select((eb) => ["outcome", "reason", eb.fn.countAll().as("count")])
        .where("created_at", ">=", since.toISOString())
        .groupBy(["outcome", "reason"])
        .orderBy("outcome")
        .orderBy("reason")
        .execute();
      const decisions = await db
        .selectFrom("spam_examples")
        .select((eb) => ["source", eb.fn.countAll().as("count")])
        .where("created_at", ">=", since.toISOString())
        .groupBy("source")
        .orderBy("source")
        .execute();
      const judged = await db
        .selectFrom("spam_examples")
        .leftJoin("spam_screening", "spam_screening.comment_id", "spam_examples.comment_id")
        .select((eb) => [
          "spam_examples.source",
          "spam_screening.outcome",
          "spam_screening.reason",
          eb.fn.countAll().as("count"),
        ])
        .where("spam_examples.created_at", ">=", since.toISOString())
        .groupBy(["spam_examples.source", "spam_screening.outcome", "spam_screening.reason"])
        .execute();
      const tally = (kind: "correction" | "confirmation") => {
        const counts = new Map<string, number>();
        for (const row of judged) {
          const screening =
            row.outcome === null ? null : { outcome: row.outcome, reason: row.reason };
          if (judgementOf(row.source as ExampleSource, screening) !== kind) continue;
          counts.set(row.source, (counts.get(row.source) ?? 0) + Number(row.count));
        }
        return [...counts].sort().map(([source, count]) => ({ source, count }));
      };
      return {
        corrections: tally("correction"),
        confirmations: tally("confirmation"),
        outcomes: outcomes.map((row) => ({
          outcome: row.outcome,
          reason: row.reason,
          count: Number(row.count),
        })),
        decisions: decisions.map((row) => ({ source: row.source, count: Number(row.count) })),
      };
    },
  };
}
