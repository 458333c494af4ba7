import { type Kysely, sql, type Transaction } from "kysely";
import type { ItemEventName } from "../../contract/event-names.ts";
import type { CommentEvent, ItemEventPayloads } from "../../contract/live-events.ts";
import type { Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { statementParts } from "../lib/parts.ts";
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

/** An event to record: a comment's (which rewrites its comment's earlier ones), or another. */
export type Recording =
  | { topic: string; type: "comment"; value: CommentEvent }
  | { topic: string; type: Exclude<LiveEventType, "comment">; value: object };

/** An `own` event of the item `itemTopic` (`recordOwn`), to record with others. */
export const ownRecording = (itemTopic: string): Recording => ({
  topic: ownTopicOf(itemTopic),
  type: ownEventType,
  value: {},
});

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
   * stay, so replay positions keep their meaning. `events` are those about to
   * be recorded, in order: each rewrites the earlier ones of its comment,
   * stored or among them, as if recorded one by one; their lookups and
   * rewrites go by parts of 500, whatever their number.
   */
  async function forgetEarlierText(trx: Transaction<Database>, events: readonly Recording[]) {
    const later = new Map<string, Set<number>>();
    for (const event of events) {
      if (event.type !== "comment" || event.value.action === "added") continue;
      later.set(event.topic, (later.get(event.topic) ?? new Set()).add(event.value.commentId));
    }
    const earlier = new Map<string, { id?: number; value: CommentEvent; changed?: true }[]>();
    const keyOf = (topic: string, commentId: number) => `${commentId} ${topic}`;
    for (const [topic, ids] of later) {
      for (const part of statementParts([...ids])) {
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
            "in",
            postgres ? part.map(String) : part,
          )
          .execute();
        for (const row of rows) {
          const value = JSON.parse(row.data) as CommentEvent;
          const key = keyOf(topic, value.commentId);
          earlier.set(key, [...(earlier.get(key) ?? []), { id: Number(row.id), value }]);
        }
      }
    }
    for (const event of events) {
      if (event.type !== "comment") continue;
      const key = keyOf(event.topic, event.value.commentId);
      const before = earlier.get(key) ?? [];
      if (event.value.action !== "added") {
        for (const one of before) {
          const data = rewritten(one.value, event.value);
          if (data === null) continue;
          one.value = data;
          one.changed = true;
        }
      }
      earlier.set(key, [...before, event]);
    }
    const changed = [...earlier.values()]
      .flat()
      .flatMap((one) => (one.changed && one.id !== undefined ? [{ ...one, id: one.id }] : []));
    for (const part of statementParts(changed)) {
      const values = sql.join(
        part.map((one) => sql`(cast(${one.id} as bigint), ${JSON.stringify(one.value)})`),
      );
      // Each by its id: SQLite, not told, would read every event for the join.
      await sql`with changed (id, data) as (values ${values})
        update events set data = changed.data from changed
        where events.id = changed.id and events.id in (select id from changed)`.execute(trx);
    }
  }

  /**
   * Numbers and stores events in their order (the ordering lock held), and
   * notifies the other instances once: a notification only says there is news.
   */
  async function insert(
    trx: Transaction<Database>,
    events: readonly Recording[],
  ): Promise<LiveEvent[]> {
    const created = nowIso();
    const stored: LiveEvent[] = [];
    for (const part of statementParts(events)) {
      const rows = part.map(({ topic, type, value }) => ({
        topic,
        type,
        data: JSON.stringify(value),
        created_at: created,
      }));
      // The rows of one insert are numbered in their order.
      const ids = await trx.insertInto("events").values(rows).returning("id").execute();
      const numbered = ids.map((row) => Number(row.id)).sort((a, b) => a - b);
      rows.forEach(({ topic, type, data }, i) => {
        stored.push({ id: numbered[i] as number, topic, type, data });
      });
    }
    const last = stored.at(-1);
    // Delivered only if the transaction commits.
    if (postgres && last)
      await sql`select pg_notify(${eventsChannel}, ${String(last.id)})`.execute(trx);
    return stored;
  }

  /** Records `events`, in order, inside the write's transaction (the ordering lock held). */
  async function write(trx: Transaction<Database>, events: readonly Recording[]) {
    await forgetEarlierText(trx, events);
    return insert(trx, events);
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
      const value = { topic, type, value: await payload() } as Recording;
      return (await write(trx, [value]))[0] as LiveEvent;
    },

    /**
     * Records events in their order inside the write's transaction, as `record`
     * and `recordOwn` one by one would, in a few statements however many
     * (a writer's comments deleted at once, server/comments/removal.ts).
     */
    async recordAll(trx: Transaction<Database>, events: readonly Recording[]) {
      if (events.length === 0) return [];
      await lock(trx);
      return write(trx, events);
    },

    /**
     * Records, inside the write's transaction, that what only its writer sees
     * of the item `itemTopic` changed (server/events/bus.ts, `ownEventType`).
     */
    async recordOwn(trx: Transaction<Database>, itemTopic: string): Promise<LiveEvent> {
      await lock(trx);
      return (await write(trx, [ownRecording(itemTopic)]))[0] as LiveEvent;
    },

    /**
     * Records, inside the write's transaction, that what every instance keeps
     * of `topic` changed (server/events/bus.ts, `changedEventType`).
     */
    async recordChanged(trx: Transaction<Database>, topic: string): Promise<LiveEvent> {
      await lock(trx);
      return (await write(trx, [{ topic, type: changedEventType, value: {} }]))[0] as LiveEvent;
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
