import type { Transaction } from "kysely";
import { type ItemKind, noReactions, type ReactionType } from "../../contract/limits.ts";
import { topicOf } from "../../contract/live-events.ts";
import { renderComment } from "../comments/markdown.ts";
import type { Database } from "../db/schema.ts";
import type { LiveEvent } from "../events/bus.ts";
import type { EventJournal } from "../events/journal.ts";
import { toIso } from "../lib/time.ts";

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

/** An `added` event for each comment everyone may see. */
export async function announceComments(
  trx: Transaction<Database>,
  events: EventJournal,
  avatarOf: (visitorId: string) => string,
  rows: ImportedComment[],
): Promise<LiveEvent[]> {
  const recorded: LiveEvent[] = [];
  for (const row of rows) {
    if (row.status !== "published" || row.deleted_at !== null) continue;
    const item = { kind: "science" as const, id: row.post_id };
    recorded.push(
      await events.record(trx, topicOf("science", row.post_id), "comment", async () => ({
        action: "added",
        item,
        commentId: row.id,
        comment: {
          id: row.id,
          postId: row.post_id,
          content: row.content,
          html: row.content_html ?? renderComment(row.content),
          userName: row.user_name,
          avatar: avatarOf(row.visitor_id),
          createdAt: toIso(row.created_at),
          updatedAt: toIso(row.updated_at),
          byOwner: row.by_owner === 1,
          parentId: row.parent_id,
          deleted: false,
        },
      })),
    );
  }
  return recorded;
}

const reactionTables = {
  mythology: { table: "mythology_reactions", item: "story_id" },
  science: { table: "science_reactions", item: "post_id" },
} as const;

/** A `reaction` event with the new counts of each item. */
export async function announceReactions(
  trx: Transaction<Database>,
  events: EventJournal,
  kind: ItemKind,
  itemIds: Iterable<string>,
): Promise<LiveEvent[]> {
  const { table, item } = reactionTables[kind] as { table: "science_reactions"; item: "post_id" };
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
