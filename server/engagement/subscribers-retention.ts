import { type Kysely, sql } from "kysely";
import { forgetConfirmationRequests } from "../comments/confirmation-limits.ts";
import type { Database } from "../db/schema.ts";
import { type AddressKey, heldAddress } from "../lib/mailbox.ts";
import { dayMs } from "../lib/time.ts";
import { keepWithoutAddress } from "../outbox/erased-copies.ts";
import { forget } from "../outbox/queue.ts";

/* What the newsletter's list forgets, and when: the hourly pruning's part of subscribers-repository.ts. */

/**
 * docs/mail.md, "Bounces and complaints": how long after a mail to a reader who has
 * left the outbox keeps their address on it, so that a late bounce or complaint still
 * finds the mail. No honest report comes later.
 */
export const lateReportsMs = 30 * dayMs;

/**
 * The address of a reader who left (no subscriber holds it now, in any letter case) on
 * each mail sent to it `lateReportsMs` ago or more, when no late report can come: a
 * copy of an edition keeps the mailbox's digest instead (its edition's figures count
 * it, and no edition goes to that mailbox twice), a confirmation goes. Their mail files
 * go with them. How many rows.
 */
export async function forgetLeft(
  db: Kysely<Database>,
  addressKey: AddressKey,
  now = new Date(),
): Promise<number> {
  const sentBefore = new Date(now.getTime() - lateReportsMs).toISOString();
  let done = 0;
  for (;;) {
    const left = await db
      .selectFrom("outbox")
      .select(["id", "kind", "email"])
      .where("kind", "in", ["edition", "confirmation"])
      .where("email", "is not", null)
      .where(sql<string>`coalesce(sent_at, created_at)`, "<=", sentBefore)
      .where(({ exists, not, selectFrom }) =>
        not(
          exists(
            selectFrom("subscribers")
              .select("subscribers.id")
              .where(sql<string>`lower(subscribers.email)`, "=", sql<string>`lower(outbox.email)`),
          ),
        ),
      )
      .limit(500)
      .execute();
    if (left.length === 0) return done;
    const changed = await db.transaction().execute(async (trx) => {
      const ids = left.filter((row) => row.kind === "confirmation").map((row) => Number(row.id));
      let count = await forget(trx, { kinds: ["confirmation"], ids });
      const copies = left.filter((row) => row.kind === "edition").map((row) => row.email);
      for (const email of new Set(copies as string[])) {
        const digest = heldAddress(addressKey, email).email_hash;
        count += await keepWithoutAddress(trx, email, digest, sentBefore);
      }
      return count;
    });
    // None changed: none is left that this can change.
    if (changed === 0) return done;
    done += changed;
  }
}

/**
 * Forgets what the double opt-in no longer needs: the per-IP record after an hour,
 * links `forgetPendingAfterMs` after they expired, and addresses never confirmed that
 * long after their last confirmation mail, with those mails' records: whoever typed
 * one, its mailbox never agreed.
 */
export async function pruneUnconfirmed(
  db: Kysely<Database>,
  forgetPendingAfterMs: number,
): Promise<void> {
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
  await forgetConfirmationRequests(db);
  // Kept a while past their expiry, so a late click still hears "expired" or "used".
  await db
    .deleteFrom("confirmation_tokens")
    .where("expires_at", "<=", ago(forgetPendingAfterMs))
    .execute();
  for (;;) {
    const stale = await db
      .selectFrom("subscribers")
      .select(["id", "email"])
      .where("status", "=", "pending")
      .where("confirmation_sent_at", "<=", ago(forgetPendingAfterMs))
      .limit(500)
      .execute();
    if (stale.length === 0) return;
    const ids = stale.map((row) => row.id);
    await db.transaction().execute(async (trx) => {
      await forget(trx, { kinds: ["confirmation"], addresses: stale.map((row) => row.email) });
      await trx.deleteFrom("confirmation_tokens").where("subscriber_id", "in", ids).execute();
      await trx.deleteFrom("subscribers").where("id", "in", ids).execute();
    });
  }
}
