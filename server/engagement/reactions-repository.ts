import type { Kysely, Transaction } from "kysely";
import type { ReactionCounts, ReactionsResponse } from "../../contract/api.ts";
import {
  type ItemKind,
  itemKinds,
  noReactions,
  type ReactionType,
  reactionTypes,
} from "../../contract/limits.ts";
import { topicOf } from "../../contract/live-events.ts";
import { afterCommit, transact } from "../db/owner-actor.ts";
import type { Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { EventBus, LiveEvent } from "../events/bus.ts";
import type { EventJournal } from "../events/journal.ts";
import { nowIso } from "../lib/time.ts";

/*
 * Stories' and posts' reactions live in two tables that differ only in the
 * name of the item column. Kysely cannot type one query over either
 * table, so the queries below are typed against science_reactions and run on
 * the table of the item's kind.
 */
const tables = {
  mythology: { table: "mythology_reactions", item: "story_id" },
  science: { table: "science_reactions", item: "post_id" },
} as const;

export function tableOf(kind: ItemKind) {
  return tables[kind] as { table: "science_reactions"; item: "post_id" };
}

type ReactionTarget = { kind: ItemKind; itemId: string; visitorId: string | null };

export type ReactionsRepository = ReturnType<typeof createReactionsRepository>;

export function createReactionsRepository(
  store: Store,
  events: EventJournal,
  bus: Pick<EventBus, "committed">,
) {
  const { db } = store;

  async function summary(
    executor: Kysely<Database>,
    { kind, itemId, visitorId }: ReactionTarget,
  ): Promise<ReactionsResponse> {
    const { table, item } = tableOf(kind);
    const rows = await executor
      .selectFrom(table)
      .select((eb) => [
        "type",
        eb.fn.countAll().as("count"),
        eb.fn
          .max(
            eb
              .case()
              .when("visitor_id", "=", visitorId ?? "")
              .then(1)
              .else(0)
              .end(),
          )
          .as("held"),
      ])
      .where(item, "=", itemId)
      .groupBy("type")
      .execute();
    const counts = noReactions();
    const mine: ReactionType[] = [];
    for (const row of rows) {
      const type = row.type as ReactionType;
      counts[type] = Number(row.count);
      if (Number(row.held) === 1) mine.push(type);
    }
    mine.sort((a, b) => reactionTypes.indexOf(a) - reactionTypes.indexOf(b));
    return { counts, mine };
  }

  /** Records the change as an event and returns the item's reactions after it. */
  async function recordChange(trx: Transaction<Database>, target: ReactionTarget) {
    let reactions: ReactionsResponse | undefined;
    const event = await events.record(
      trx,
      topicOf(target.kind, target.itemId),
      "reaction",
      async () => {
        reactions = await summary(trx, target);
        return { item: { kind: target.kind, id: target.itemId }, counts: reactions.counts };
      },
    );
    return { event, reactions: reactions! };
  }

  return {
    /** Counts per type and the types `visitorId` holds. */
    get(target: ReactionTarget): Promise<ReactionsResponse> {
      return summary(db, target);
    },

    /** Only the types `visitorId` holds on the item (the cached reads add them to shared counts). */
    async heldBy(target: ReactionTarget & { visitorId: string }): Promise<ReactionType[]> {
      const { table, item } = tableOf(target.kind);
      const rows = await db
        .selectFrom(table)
        .select("type")
        .where(item, "=", target.itemId)
        .where("visitor_id", "=", target.visitorId)
        .execute();
      const held = rows.map((row) => row.type as ReactionType);
      return held.sort((a, b) => reactionTypes.indexOf(a) - reactionTypes.indexOf(b));
    },

    /** Adds a reaction unless the visitor already holds that type; `added` tells which. */
    async add(
      target: ReactionTarget & { visitorId: string },
      type: ReactionType,
      userName: string,
    ): Promise<{ added: boolean; reactions: ReactionsResponse }> {
      const { table, item } = tableOf(target.kind);
      const result = await db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto(table)
          .values({
            [item]: target.itemId,
            type,
            user_name: userName,
            visitor_id: target.visitorId,
            created_at: nowIso(),
          })
          .onConflict((conflict) => conflict.columns([item, "type", "visitor_id"]).doNothing())
          .returning("id")
          .executeTakeFirst();
        if (inserted) return recordChange(trx, target);
        return { event: null, reactions: await summary(trx, target) };
      });
      if (result.event) bus.committed(result.event);
      return { added: result.event !== null, reactions: result.reactions };
    },

    /** Removes the visitor's own reaction of `type`; null when they hold none. */
    async remove(
      target: ReactionTarget & { visitorId: string },
      type: ReactionType,
    ): Promise<ReactionsResponse | null> {
      const { table, item } = tableOf(target.kind);
      const result = await db.transaction().execute(async (trx) => {
        const deleted = await trx
          .deleteFrom(table)
          .where(item, "=", target.itemId)
          .where("type", "=", type)
          .where("visitor_id", "=", target.visitorId)
          .returning("id")
          .executeTakeFirst();
        return deleted ? recordChange(trx, target) : null;
      });
      if (!result) return null;
      bus.committed(result.event);
      return result.reactions;
    },

    /**
     * Abuse clean-up: removes every reaction of one visitor, on stories and
     * posts, and sends each touched item's new counts; returns how many.
     * `within`: an owner action's transaction (`withLine`), whose commit
     * sends the counts.
     */
    async removeAllBy(visitorId: string, within: Kysely<Database> = db): Promise<number> {
      const { removed, recorded } = await transact(within, async (trx) => {
        let removed = 0;
        const recorded: LiveEvent[] = [];
        for (const kind of itemKinds) {
          const { table, item } = tableOf(kind);
          const rows = await trx
            .deleteFrom(table)
            .where("visitor_id", "=", visitorId)
            .returning(item)
            .execute();
          removed += rows.length;
          for (const itemId of new Set(rows.map((row) => row[item]))) {
            const { event } = await recordChange(trx, { kind, itemId, visitorId: null });
            recorded.push(event);
          }
        }
        return { removed, recorded };
      });
      for (const event of recorded) afterCommit(within, () => bus.committed(event));
      return removed;
    },

    /** Counts per type of every item that has reactions, by kind and item id. */
    async countsByItem(): Promise<{ kind: ItemKind; itemId: string; counts: ReactionCounts }[]> {
      const result: { kind: ItemKind; itemId: string; counts: ReactionCounts }[] = [];
      for (const kind of itemKinds) {
        const { table, item } = tableOf(kind);
        const rows = await db
          .selectFrom(table)
          .select((eb) => [eb.ref(item).as("item_id"), "type", eb.fn.countAll().as("count")])
          .groupBy([item, "type"])
          .orderBy(item)
          .execute();
        for (const [itemId, types] of Map.groupBy(rows, (row) => row.item_id)) {
          const counts = noReactions();
          for (const row of types) counts[row.type as ReactionType] = Number(row.count);
          result.push({ kind, itemId, counts });
        }
      }
      return result;
    },
  };
}
