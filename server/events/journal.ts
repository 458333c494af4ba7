import { type Kysely, sql, type Transaction } from "kysely";
import type { ItemEventName } from "../../contract/event-names.ts";
import type { CommentEvent, ItemEventPayloads } from "../../contract/live-events.ts";
import type { Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { nowIso } from "../lib/time.ts";
import {
  changedEventType,
  eventsChannel,
  type LiveEvent,
  type LiveEventType,
  ownEventType,
  ownTopicOf,
} from "./bus.ts";

/**
 * Writers on PostgreSQL take this transaction-level advisory lock before
 * numbering an event, so event ids are assigned and committed in the same
 * order. Readers can then catch up with `id > last` and never skip an event
 * that committed late. SQLite has one writer, so its ids are already in order.
 */
const eventsLockKey = 0x657765; // "ewe"

export type EventJournal = ReturnType<typeof createEventJournal>;

/**
 * What an earlier event about a comment becomes once the comment changed:
 * after an edit it shows the new text; after a deletion, or a return to the
 * owner's queue, it carries no text at all. Null when it already carries none.
 */
function rewritten(earlier: CommentEvent, now: CommentEvent): CommentEvent | null {
  if (!("comment" in earlier)) return null;
  if ("comment" in now) return { ...earlier, comment: now.comment };
  return { action: now.action, item: earlier.item, commentId: earlier.commentId };
}

/**
 * The `changed` topic of the Fediverse blocks (server/fediverse/blocks.ts),
 * which an import writes too: no item's, so no stream opens it.
 */
export const fediverseBlocksTopic = "fediverse:blocks";

/**
 * The journal of live events (the `events` table): each is recorded in the
 * transaction of the write that caused it, numbered in commit order, and read
 * back to replay what a reconnecting stream or instance missed
 * (docs/decisions/003-live-events.md).
 */
export function createEventJournal(store: Store) {
  const { db } = store;
  const postgres = store.kind === "postgres";

  /**
   * Deleted means deleted in the journal too (docs/product.md, "Privacy"): a
   * reconnecting stream is replayed the journal, so when a comment is edited,
   * deleted or held again, every earlier event about it is rewritten in the
   * same transaction to carry its text as it now is, or none. Ids and order
   * stay, so replay positions keep their meaning.
   */
  async function forgetEarlierText(trx: Transaction<Database>, topic: string, now: CommentEvent) {
    if (now.action === "added") return;
    // Read by the index of migration 055, whose expressions these are exactly:
    // either database uses an expression's index only for the same expression.
    const rows = await trx
      .selectFrom("events")
      .select(["id", "data"])
      .where("topic", "=", topic)
      .where("type", "=", "comment")
      .where(
        postgres
          ? sql<string>`(data::jsonb ->> 'commentId')`
          : sql<number>`json_extract(data, '$.commentId')`,
        "=",
        postgres ? String(now.commentId) : now.commentId,
      )
      .execute();
    for (const row of rows) {
      const data = rewritten(JSON.parse(row.data) as CommentEvent, now);
      if (data === null) continue;
      await trx
        .updateTable("events")
        .set({ data: JSON.stringify(data) })
        .where("id", "=", row.id)
        .execute();
    }
  }

  /** Numbers and stores an event (the ordering lock held) and notifies the other instances. */
  async function insert(
    trx: Transaction<Database>,
    topic: string,
    type: LiveEventType,
    data: string,
  ): Promise<LiveEvent> {
    const row = await trx
      .insertInto("events")
      .values({ topic, type, data, created_at: nowIso() })
      .returning("id")
      .executeTakeFirstOrThrow();
    const event = { id: Number(row.id), topic, type, data };
    // Delivered only if the transaction commits.
    if (postgres) await sql`select pg_notify(${eventsChannel}, ${String(event.id)})`.execute(trx);
    return event;
  }

  const lock = async (trx: Transaction<Database>) => {
    if (postgres) await sql`select pg_advisory_xact_lock(${eventsLockKey})`.execute(trx);
  };

  return {
    /**
     * Records an event inside the write's transaction. `payload` runs after the
     * ordering lock is held, so what it reads (counts) includes every write
     * committed before this one.
     */
    async record<Name extends ItemEventName>(
      trx: Transaction<Database>,
      topic: string,
      type: Name,
      payload: () => Promise<ItemEventPayloads[Name]>,
    ): Promise<LiveEvent> {
      await lock(trx);
      const value = await payload();
      if (type === "comment") await forgetEarlierText(trx, topic, value as CommentEvent);
      return insert(trx, topic, type, JSON.stringify(value));
    },

    /**
     * Records, inside the write's transaction, that what only its writer sees
     * of the item `itemTopic` changed (server/events/bus.ts, `ownEventType`).
     */
    async recordOwn(trx: Transaction<Database>, itemTopic: string): Promise<LiveEvent> {
      await lock(trx);
      return insert(trx, ownTopicOf(itemTopic), ownEventType, "{}");
    },

    /**
     * Records, inside the write's transaction, that what every instance keeps
     * of `topic` changed (server/events/bus.ts, `changedEventType`).
     */
    async recordChanged(trx: Transaction<Database>, topic: string): Promise<LiveEvent> {
      await lock(trx);
      return insert(trx, topic, changedEventType, "{}");
    },

    /** The events after `afterId` (of one topic, or every topic's), oldest first. */
    async after(afterId: number, limit: number, topic?: string): Promise<LiveEvent[]> {
      const rows = await db
        .selectFrom("events")
        .select(["id", "topic", "type", "data"])
        .$if(topic !== undefined, (query) => query.where("topic", "=", topic as string))
        .where("id", ">", afterId)
        .orderBy("id")
        .limit(limit)
        .execute();
      return rows.map((row) => ({ ...row, id: Number(row.id), type: row.type as LiveEventType }));
    },

    async latestId(): Promise<number> {
      return Number((await bounds(db)).latest ?? 0);
    },

    /** The oldest event still kept, or null when none is. */
    async oldestId(): Promise<number | null> {
      const { oldest } = await bounds(db);
      return oldest === null ? null : Number(oldest);
    },

    /** Forgets events older than `cutoff`; clients further behind are told to resync. */
    async pruneBefore(cutoff: Date): Promise<number> {
      const result = await db
        .deleteFrom("events")
        .where("created_at", "<", cutoff.toISOString())
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

/**
 * The oldest and latest event ids, each its own subquery: SQLite reads a lone
 * min() or max() at one end of the key, but both in one select scan the table.
 */
async function bounds(db: Kysely<Database>) {
  return db
    .selectNoFrom((eb) => [
      eb
        .selectFrom("events")
        .select((inner) => inner.fn.min("id").as("id"))
        .as("oldest"),
      eb
        .selectFrom("events")
        .select((inner) => inner.fn.max("id").as("id"))
        .as("latest"),
    ])
    .executeTakeFirstOrThrow();
}
