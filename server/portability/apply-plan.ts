import { renderComment } from "../comments/markdown.ts";
import type { Store } from "../db/store.ts";
import type { EventJournal } from "../events/journal.ts";
import { nowIso } from "../lib/time.ts";
import { announceComments, type ImportedComment } from "./announce.ts";
import { batchSize } from "./apply-export.ts";
import { importedAlready, type Plan } from "./plan.ts";
import type { Tally } from "./report.ts";

/**
 * The visitor an imported comment is stored under: no browser's credential
 * (those are 22 base64url characters, never with a colon), so nobody owns it
 * and only the owner can change it; one per source and name, so one writer's
 * comments share an avatar and two writers' differ.
 */
export const importedVisitor = (source: string, name: string) => `imported:${source}:${name}`;

/**
 * Writes a plan's comments a batch per transaction. A comment whose source id
 * was imported before is left alone, even if it was deleted since: a second
 * run changes nothing. Replies join their comment's thread.
 */
export async function applyPlan(
  store: Store,
  events: EventJournal,
  avatarOf: (visitorId: string) => string,
  plan: Plan,
  { dryRun }: { dryRun: boolean },
): Promise<Tally> {
  const entry = { added: 0, present: 0 };
  for (let start = 0; start < plan.comments.length; start += batchSize) {
    const batch = plan.comments.slice(start, start + batchSize);
    await store.db.transaction().execute(async (trx) => {
      const ids = [
        ...new Set(
          batch.flatMap((c) => [c.sourceId, ...(c.parentSourceId ? [c.parentSourceId] : [])]),
        ),
      ];
      const known = await importedAlready(trx, plan.source, ids);
      const fresh: ImportedComment[] = [];
      for (const comment of batch) {
        if (known.has(comment.sourceId)) {
          entry.present += 1;
          continue;
        }
        entry.added += 1;
        if (dryRun) continue;
        const parentRow = comment.parentSourceId ? known.get(comment.parentSourceId) : undefined;
        const parent =
          parentRow === undefined
            ? undefined
            : await trx
                .selectFrom("science_comments")
                .select(["id", "parent_id"])
                .where("id", "=", parentRow)
                .executeTakeFirst();
        const row = await trx
          .insertInto("science_comments")
          .values({
            post_id: comment.postId,
            content: comment.content.trim(),
            content_html: renderComment(comment.content.trim()),
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
        await trx
          .insertInto("import_sources")
          .values({
            source: plan.source,
            source_id: comment.sourceId,
            row_table: "science_comments",
            row_id: row.id,
            imported_at: nowIso(),
          })
          .execute();
        known.set(comment.sourceId, row.id);
        fresh.push(row as ImportedComment);
      }
      await announceComments(trx, events, avatarOf, fresh);
    });
  }
  return { comments: entry };
}
