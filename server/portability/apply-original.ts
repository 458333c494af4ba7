import { sql } from "kysely";
import type { ItemKind } from "../../contract/limits.ts";
import type { Store } from "../db/store.ts";
import type { EventJournal } from "../events/journal.ts";
import { type AddressKey, heldAddress } from "../lib/mailbox.ts";
import { nowIso } from "../lib/time.ts";
import { newSeed } from "../lib/tokens.ts";
import { announceReactions } from "./announce.ts";
import { applyPlan, importedVisitor, importOnce } from "./apply-plan.ts";
import type { OriginalPlan } from "./original.ts";
import type { Tally } from "./report.ts";

/*
 * Writes what the original site's tables became (docs/product.md, "Moving in
 * and out"): comments as any import's, reactions as counts owned by no
 * browser, subscribers pending until they confirm again, unless the owner
 * states the legal basis on which they are confirmed already.
 */

export type SubscriberConsent = "pending" | "confirmed";

export async function applyOriginal(
  store: Store,
  events: EventJournal,
  avatarOf: (visitorId: string) => string,
  plan: OriginalPlan,
  {
    dryRun,
    subscribers,
    addressKey,
  }: { dryRun: boolean; subscribers: SubscriberConsent; addressKey: AddressKey },
): Promise<Tally> {
  const counts: Tally = {};
  if (plan.comments.length > 0) {
    Object.assign(counts, await applyPlan(store, events, avatarOf, plan, { dryRun }));
  }
  if (plan.reactions.length > 0) {
    counts.reactions = await importOnce(store, "original", plan.reactions, dryRun, (trx) => {
      const touched: Record<ItemKind, Set<string>> = { mythology: new Set(), science: new Set() };
      return {
        async write(reaction) {
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
          if (!row) return null;
          touched[reaction.kind].add(reaction.itemId);
          return { table: `${reaction.kind}_reactions`, id: Number(row.id) };
        },
        // Open pages and every instance's caches learn the new counts.
        async done() {
          await announceReactions(trx, events, "mythology", touched.mythology);
          await announceReactions(trx, events, "science", touched.science);
        },
      };
    });
  }
  if (plan.subscribers.length > 0) {
    counts[`subscribers (${subscribers})`] = await importOnce(
      store,
      "original",
      plan.subscribers,
      dryRun,
      async (trx, batch) => {
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
        return {
          // An address imported before stays as its owner left it, even removed;
          // one that subscribed here keeps its own state.
          present: (subscriber) => onSite.has(subscriber.email.toLowerCase()),
          async write(subscriber) {
            const now = nowIso();
            const row = await trx
              .insertInto("subscribers")
              .values({
                ...heldAddress(addressKey, subscriber.email),
                unsubscribe_token: newSeed(),
                created_at: now,
                status: subscribers,
                confirmed_at: subscribers === "confirmed" ? now : null,
              })
              .returning("id")
              .executeTakeFirstOrThrow();
            onSite.add(subscriber.email.toLowerCase());
            return { table: "subscribers", id: Number(row.id) };
          },
        };
      },
    );
  }
  return counts;
}
