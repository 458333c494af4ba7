import { sql, type Transaction } from "kysely";
import { commentContentSchema } from "../../contract/api.ts";
import { renderComment } from "../comments/markdown.ts";
import type { Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { EventJournal } from "../events/journal.ts";
import { nowIso } from "../lib/time.ts";
import { announceComments, type ImportedComment } from "./announce.ts";
import { batchesOf } from "./apply-export.ts";
import type { Plan } from "./plan.ts";
import type { Tally } from "./report.ts";

/**
 * The visitor an imported comment is stored under: no browser's credential
 * (those are 22 base64url characters, never with a colon), so nobody owns it
 * and only the owner can change it; one per source and name, so one writer's
 * comments share an avatar and two writers' differ.
 */
export const importedVisitor = (source: string, name: string) => `imported:${source}:${name}`;

/** How one batch is written, in its transaction. */
type BatchWriter<T> = {
  /** Already on the site by other means: left as it is. */
  present?(item: T): boolean;
  /** Cannot come in (the writer records why): neither written nor counted. */
  leftOut?(item: T): boolean;
  /** Writes the item's row and names it; null when the database had it already. */
  write(item: T): Promise<{ table: string; id: number } | null>;
  /** After the batch's rows, in its transaction (live events). */
  done?(): Promise<unknown>;
};

/**
 * Writes a source's items a batch per transaction, each remembered under
 * its source id (import_sources). One imported before is left alone, even
 * if it was deleted since: a second run changes nothing. `writer` is made
 * for each batch, knowing which of its source ids (and `also`'s) became
 * which rows; with `dryRun` nothing is written.
 */
export async function importOnce<T extends { sourceId: string }>(
  store: Store,
  source: string,
  items: readonly T[],
  dryRun: boolean,
  writer: (
    trx: Transaction<Database>,
    batch: T[],
    known: Map<string, number>,
  ) => BatchWriter<T> | Promise<BatchWriter<T>>,
  also: (item: T) => string[] = () => [],
): Promise<{ added: number; present: number }> {
  const entry = { added: 0, present: 0 };
  for (const batch of batchesOf(items)) {
    await store.db.transaction().execute(async (trx) => {
      const ids = [...new Set(batch.flatMap((item) => [item.sourceId, ...also(item)]))];
      const { rows } = await sql<{ source_id: string; row_id: number | string }>`
        select source_id, row_id from import_sources
        where source = ${source} and source_id in (${sql.join(ids)})`.execute(trx);
      const known = new Map(rows.map((row) => [row.source_id, Number(row.row_id)]));
      const batchWriter = await writer(trx, batch, known);
      for (const item of batch) {
        if (!known.has(item.sourceId) && batchWriter.leftOut?.(item)) continue;
        const row =
          known.has(item.sourceId) || batchWriter.present?.(item)
            ? null
            : dryRun
              ? { table: "", id: 0 }
              : await batchWriter.write(item);
        entry[row ? "added" : "present"] += 1;
        if (!row || dryRun) continue;
        await trx
          .insertInto("import_sources")
          .values({
            source,
            source_id: item.sourceId,
            row_table: row.table,
            row_id: row.id,
            imported_at: nowIso(),
          })
          .execute();
        known.set(item.sourceId, row.id);
      }
      await batchWriter.done?.();
    });
  }
  return entry;
}

/** Writes a plan's comments; replies join their comment's thread. */
export async function applyPlan(
  store: Store,
  events: EventJournal,
  avatarOf: (visitorId: string) => string,
  plan: Plan,
  { dryRun }: { dryRun: boolean },
): Promise<Tally> {
  const comments = await importOnce(
    store,
    plan.source,
    plan.comments,
    dryRun,
    async (trx, batch, known) => {
      const fresh: ImportedComment[] = [];
      // The comments a run before brought in that this batch's replies answer: a
      // map changed since may put a reply on another post than its comment.
      const answered = batch.flatMap((c) => known.get(c.parentSourceId ?? "") ?? []);
      const postOf = new Map(
        answered.length === 0
          ? []
          : (
              await trx
                .selectFrom("science_comments")
                .select(["id", "post_id"])
                .where("id", "in", answered)
                .execute()
            ).map((row) => [row.id, row.post_id]),
      );
      return {
        leftOut(comment) {
          const post = postOf.get(known.get(comment.parentSourceId ?? "") ?? 0);
          if (post === undefined || post === comment.postId) return false;
          plan.skipped.push({
            where: comment.where,
            reason: "it answers a comment on another post",
          });
          return true;
        },
        async write(comment) {
          const parentRow = comment.parentSourceId ? known.get(comment.parentSourceId) : undefined;
          const parent =
            parentRow === undefined
              ? undefined
              : await trx
                  .selectFrom("science_comments")
                  .select(["id", "parent_id"])
                  .where("id", "=", parentRow)
                  .executeTakeFirst();
          // The text as the plan checked it: line breaks as "\n", trimmed.
          const content = commentContentSchema.parse(comment.content);
          const row = await trx
            .insertInto("science_comments")
            .values({
              post_id: comment.postId,
              content,
              content_html: renderComment(content),
              user_name: comment.userName,
              visitor_id: importedVisitor(plan.source, comment.userName),
              created_at: comment.createdAt,
              updated_at: comment.createdAt,
              status: "published",
              by_owner: 0,
              // A reply to a reply joins the thread of the comment that starts it.
              parent_id: parent ? (parent.parent_id ?? parent.id) : null,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          fresh.push(row as ImportedComment);
          return { table: "science_comments", id: row.id };
        },
        done: () => announceComments(trx, events, avatarOf, fresh),
      };
    },
    (comment) => (comment.parentSourceId ? [comment.parentSourceId] : []),
  );
  return { comments };
}
