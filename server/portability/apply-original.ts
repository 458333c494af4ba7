import { sql, type Transaction } from "kysely";
import type { ItemKind } from "../../contract/limits.ts";
import type { Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { EventJournal } from "../events/journal.ts";
import { nowIso } from "../lib/time.ts";
import { newToken } from "../lib/tokens.ts";
import { announceReactions } from "./announce.ts";
import { batchSize } from "./apply-export.ts";
import { applyPlan, importedVisitor } from "./apply-plan.ts";
import type { OriginalPlan, PlannedReaction, PlannedSubscriber } from "./original.ts";
import { importedAlready } from "./plan.ts";
import type { Tally } from "./report.ts";

/*
 * Writes what the original site's tables became (docs/product.md, "Moving in
 * and out"): comments as any import's, reactions as counts owned by no
 * browser, subscribers pending until they confirm again, unless the owner
 * states the legal basis on which they are confirmed already.
 */

export type SubscriberConsent = "pending" | "confirmed";

async function remember(
  trx: Transaction<Database>,
  sourceId: string,
  table: string,
  rowId: number,
): Promise<void> {
  await trx
    .insertInto("import_sources")
    .values({
      source: "original",
      source_id: sourceId,
      row_table: table,
      row_id: rowId,
      imported_at: nowIso(),
    })
    .execute();
}

async function insertReaction(
  trx: Transaction<Database>,
  reaction: PlannedReaction,
): Promise<number | null> {
  const values = {
    type: reaction.type,
    user_name: reaction.userName,
    visitor_id: importedVisitor("original", reaction.userName),
    created_at: nowIso(),
  };
  // The name's reaction may be there already (a row the import wrote before
  // its key was kept): the constraint of one per visitor keeps it once.
  const row =
    reaction.kind === "mythology"
      ? await trx
          .insertInto("mythology_reactions")
          .values({ ...values, story_id: reaction.itemId })
          .onConflict((c) => c.columns(["story_id", "type", "visitor_id"]).doNothing())
          .returning("id")
          .executeTakeFirst()
      : await trx
          .insertInto("science_reactions")
          .values({ ...values, post_id: reaction.itemId })
          .onConflict((c) => c.columns(["post_id", "type", "visitor_id"]).doNothing())
          .returning("id")
          .executeTakeFirst();
  return row ? Number(row.id) : null;
}

async function applyReactions(
  store: Store,
  events: EventJournal,
  reactions: PlannedReaction[],
  dryRun: boolean,
): Promise<{ added: number; present: number }> {
  const entry = { added: 0, present: 0 };
  for (let start = 0; start < reactions.length; start += batchSize) {
    const batch = reactions.slice(start, start + batchSize);
    await store.db.transaction().execute(async (trx) => {
      const known = await importedAlready(
        trx,
        "original",
        batch.map((r) => r.sourceId),
      );
      const touched: Record<ItemKind, Set<string>> = { mythology: new Set(), science: new Set() };
      for (const reaction of batch) {
        if (known.has(reaction.sourceId)) {
          entry.present += 1;
          continue;
        }
        const id = dryRun ? 0 : await insertReaction(trx, reaction);
        if (id === null) {
          entry.present += 1;
          continue;
        }
        entry.added += 1;
        if (dryRun) continue;
        await remember(trx, reaction.sourceId, `${reaction.kind}_reactions`, id);
        touched[reaction.kind].add(reaction.itemId);
      }
      // Open pages and every instance's caches learn the new counts.
      await announceReactions(trx, events, "mythology", touched.mythology);
      await announceReactions(trx, events, "science", touched.science);
    });
  }
  return entry;
}

async function applySubscribers(
  store: Store,
  subscribers: PlannedSubscriber[],
  consent: SubscriberConsent,
  dryRun: boolean,
): Promise<{ added: number; present: number }> {
  const entry = { added: 0, present: 0 };
  for (let start = 0; start < subscribers.length; start += batchSize) {
    const batch = subscribers.slice(start, start + batchSize);
    await store.db.transaction().execute(async (trx) => {
      const known = await importedAlready(
        trx,
        "original",
        batch.map((s) => s.sourceId),
      );
      const lowered = batch.map((s) => s.email.toLowerCase());
      const onSite = new Set(
        (
          await trx
            .selectFrom("subscribers")
            .select(sql<string>`lower(email)`.as("email"))
            .where(sql<string>`lower(email)`, "in", lowered)
            .execute()
        ).map((row) => row.email),
      );
      for (const subscriber of batch) {
        // An address imported before stays as its owner left it, even removed;
        // one that subscribed here keeps its own state.
        if (known.has(subscriber.sourceId) || onSite.has(subscriber.email.toLowerCase())) {
          entry.present += 1;
          continue;
        }
        entry.added += 1;
        if (dryRun) continue;
        const now = nowIso();
        const row = await trx
          .insertInto("subscribers")
          .values({
            email: subscriber.email,
            unsubscribe_token: newToken(),
            created_at: now,
            status: consent,
            confirmed_at: consent === "confirmed" ? now : null,
          })
          .returning("id")
          .executeTakeFirstOrThrow();
        await remember(trx, subscriber.sourceId, "subscribers", Number(row.id));
        onSite.add(subscriber.email.toLowerCase());
      }
    });
  }
  return entry;
}

export async function applyOriginal(
  store: Store,
  events: EventJournal,
  avatarOf: (visitorId: string) => string,
  plan: OriginalPlan,
  { dryRun, subscribers }: { dryRun: boolean; subscribers: SubscriberConsent },
): Promise<Tally> {
  const counts: Tally = {};
  if (plan.comments.length > 0) {
    Object.assign(counts, await applyPlan(store, events, avatarOf, plan, { dryRun }));
  }
  if (plan.reactions.length > 0) {
    counts.reactions = await applyReactions(store, events, plan.reactions, dryRun);
  }
  if (plan.subscribers.length > 0) {
    counts[`subscribers (${subscribers})`] = await applySubscribers(
      store,
      plan.subscribers,
      subscribers,
      dryRun,
    );
  }
  return counts;
}
