import type { Transaction } from "kysely";
import { type ItemKind, noReactions, type ReactionType } from "../../contract/limits.ts";
import { topicOf } from "../../contract/live-events.ts";
import { commentShapes, remoteWritersOf } from "../comments/rows.ts";
import type { Database } from "../db/schema.ts";
import { tableOf } from "../engagement/reactions-repository.ts";
import type { LiveEvent } from "../events/bus.ts";
import type { EventJournal } from "../events/journal.ts";

/*
 * An import tells running instances what it added the way any write does: it
 * records live events in its own transactions (docs/decisions/003-live-events.md).
 * Each instance then forgets the items' cached answers and HTML fragments, and
 * open pages receive the comments and counts, without a restart.
 */

export type ImportedComment = {
  id: number;
  post_id: string;
  parent_id: number | null;
  user_name: string;
  content: string;
  content_html: string | null;
  visitor_id: string;
  status: string;
  by_owner: number;
  created_at: string | Date;
  updated_at: string | Date;
  deleted_at: string | Date | null;
};

/**
 * An `added` event for each comment everyone may see, as the list shows it:
 * with its writer on the Fediverse when it came from there, so the rows of
 * `fediverse_replies` must be written first.
 */
export async function announceComments(
  trx: Transaction<Database>,
  events: EventJournal,
  avatarOf: (visitorId: string) => string,
  rows: ImportedComment[],
): Promise<LiveEvent[]> {
  const shown = rows.filter((row) => row.status === "published" && row.deleted_at === null);
  if (shown.length === 0) return [];
  const { toLiveComment } = commentShapes(avatarOf);
  const writers = await remoteWritersOf(trx, shown);
  const recorded: LiveEvent[] = [];
  for (const row of shown) {
    const item = { kind: "science" as const, id: row.post_id };
    recorded.push(
      await events.record(trx, topicOf("science", row.post_id), "comment", async () => ({
        action: "added",
        item,
        commentId: row.id,
        comment: toLiveComment({ ...row, status: "published" }, writers),
      })),
    );
  }
  return recorded;
}

/** A `reaction` event with the new counts of each item. */
export async function announceReactions(
  trx: Transaction<Database>,
  events: EventJournal,
  kind: ItemKind,
  itemIds: Iterable<string>,
): Promise<LiveEvent[]> {
  const { table, item } = tableOf(kind);
  const recorded: LiveEvent[] = [];
  for (const itemId of new Set(itemIds)) {
    recorded.push(
      await events.record(trx, topicOf(kind, itemId), "reaction", async () => {
        const rows = await trx
          .selectFrom(table)
          .select((eb) => ["type", eb.fn.countAll().as("count")])
          .where(item, "=", itemId)
          .groupBy("type")
          .execute();
        const counts = noReactions();
        for (const row of rows) counts[row.type as ReactionType] = Number(row.count);
        return { item: { kind, id: itemId }, counts };
      }),
    );
  }
  return recorded;
}
