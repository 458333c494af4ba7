import type { Transaction } from "kysely";
import type { Database } from "../db/schema.ts";
import { forget } from "../outbox/forget.ts";

/** The outbox kinds that carry a reply mail to one watch (its token names the watch). */
export const watchMailKinds = ["reply_notice", "reply_digest"] as const;

/** What a confirmation row carries: which address, nothing else. */
export const confirmationPayload = (addressId: number) => JSON.stringify({ addressId });

/**
 * Forgets addresses left for reply mails (docs/product.md, "Reply mails"):
 * the watches on these comments or of these addresses, with the mails queued
 * or sent for them, and every address that no longer follows any thread,
 * with its confirmation mail. Deleted means deleted everywhere, the outbox
 * included.
 */
export async function forgetWatches(
  trx: Transaction<Database>,
  match: { commentIds?: number[]; addressIds?: number[] },
): Promise<number> {
  const commentIds = match.commentIds ?? [];
  const addressIds = match.addressIds ?? [];
  if (commentIds.length === 0 && addressIds.length === 0) return 0;
  const watches = await trx
    .selectFrom("reply_watches")
    .select(["id", "address_id", "unsubscribe_token"])
    .where((eb) =>
      eb.or([
        ...(commentIds.length > 0 ? [eb("comment_id", "in", commentIds)] : []),
        ...(addressIds.length > 0 ? [eb("address_id", "in", addressIds)] : []),
      ]),
    )
    .execute();
  if (watches.length > 0) {
    await forget(trx, {
      kinds: watchMailKinds,
      tokens: watches.map((watch) => watch.unsubscribe_token),
    });
    await trx
      .deleteFrom("reply_watches")
      .where(
        "id",
        "in",
        watches.map((watch) => watch.id),
      )
      .execute();
  }
  const touched = [...new Set([...addressIds, ...watches.map((watch) => watch.address_id)])];
  if (touched.length === 0) return 0;
  const orphans = await trx
    .selectFrom("reply_addresses")
    .select("id")
    .where("id", "in", touched)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("reply_watches")
            .select("reply_watches.id")
            .whereRef("reply_watches.address_id", "=", "reply_addresses.id"),
        ),
      ),
    )
    .execute();
  const gone = orphans.map((row) => row.id);
  if (gone.length > 0) {
    await forget(trx, { kinds: ["reply_confirmation"], payloads: gone.map(confirmationPayload) });
    await trx.deleteFrom("reply_addresses").where("id", "in", gone).execute();
  }
  return gone.length;
}
