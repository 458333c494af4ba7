import { type Kysely, sql } from "kysely";
import { forgetConfirmationRequests } from "../comments/confirmation-limits.ts";
import type { Database } from "../db/schema.ts";
import type { Db } from "../db/store.ts";
import { type AddressKey, heldAddress } from "../lib/mailbox.ts";
import { dayMs } from "../lib/time.ts";
import { keepWithoutAddress, mailedAt } from "../outbox/erased-copies.ts";
import { forget } from "../outbox/forget.ts";

/* What the newsletter's list forgets, and when: the hourly pruning's part of subscribers-repository.ts. */

/**
 * docs/mail.md, "Bounces and complaints": how long after a mail to a reader who has
 * left the outbox keeps their address on it, so that a late bounce or complaint still
 * finds the mail. No honest report comes later.
 */
export const lateReportsMs = 30 * dayMs;

/** When a mail to a reader who left is forgotten, sent `now`: `lateReportsMs` before. */
const lateReportsOver = (now: Date) => new Date(now.getTime() - lateReportsMs).toISOString();

/**
 * The address of a reader who left (no subscriber holds it now, in any letter case) on
 * each mail sent to it `lateReportsMs` ago or more, when no late report can come: a
 * copy of an edition keeps the mailbox's digest instead (its edition's figures count
 * it, and no edition goes to that mailbox twice), a confirmation goes. Their mail files
 * go with them. `since`: only the mails sent after then, read by their time (the
 * index outbox_by_age); all of them without it. How many rows.
 */
async function forgetLeft(
  db: Kysely<Database>,
  addressKey: AddressKey,
  { now = new Date(), since }: { now?: Date; since?: string } = {},
): Promise<number> {
  const sentBefore = lateReportsOver(now);
  let done = 0;
  for (;;) {
    const left = await db
      .selectFrom("outbox")
      .select(["id", "kind", "email"])
      .where("kind", "in", ["edition", "confirmation"])
      .where("email", "is not", null)
      .where(mailedAt, "<=", sentBefore)
      .$if(since !== undefined, (query) => query.where(mailedAt, ">", since as string))
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
    const changed = await db
      .transaction()
      .execute((trx) => forgetMails(trx, addressKey, left, sentBefore));
    // None changed: none is left that this can change.
    if (changed === 0) return done;
    done += changed;
  }
}

/**
 * What each pass reads again of the one before: a reader's leaving that committed
 * while that pass read (it forgot the mails older than its own clock said), or an
 * instance whose clock runs behind another's, is covered by the next.
 */
const passOverlapMs = 60 * 60 * 1000;

/**
 * The hourly pass of `forgetLeft`: its first reads every mail, each later one only
 * those that turned `lateReportsMs` old since the one before (and `passOverlapMs`
 * more). A mail already that old when its reader leaves is forgotten by the leaving
 * itself (`forgetOnLeaving`). Each instance keeps its own mark, and a start reads all.
 */
export function hourlyForgetting(db: Kysely<Database>, addressKey: AddressKey) {
  let passedUpTo: number | undefined;
  return async (now: Date): Promise<number> => {
    const since =
      passedUpTo === undefined ? undefined : new Date(passedUpTo - passOverlapMs).toISOString();
    const done = await forgetLeft(db, addressKey, { now, since });
    passedUpTo = Math.max(passedUpTo ?? 0, now.getTime() - lateReportsMs);
    return done;
  };
}

/**
 * Of the mails `left` (to readers who left), a confirmation's row goes, and each
 * address's copies of editions sent by `sentBefore` keep only its digest. How many rows.
 */
async function forgetMails(
  trx: Db,
  addressKey: AddressKey,
  left: readonly { id: number | string | bigint; kind: string; email: string | null }[],
  sentBefore: string,
): Promise<number> {
  const ids = left.filter((row) => row.kind === "confirmation").map((row) => Number(row.id));
  let count = await forget(trx, { kinds: ["confirmation"], ids });
  const copies = left.filter((row) => row.kind === "edition").map((row) => row.email);
  for (const email of new Set(copies as string[])) {
    const digest = heldAddress(addressKey, email).email_hash;
    count += await keepWithoutAddress(trx, email, digest, sentBefore);
  }
  return count;
}

/**
 * In a reader's leaving (an unsubscription, a complaint, an address never confirmed
 * forgotten), what `forgetLeft` would forget of the mails to `emails` (which no
 * subscriber holds now): those sent `lateReportsMs` before `now` or earlier, which
 * its later passes no longer read. How many rows.
 */
export async function forgetOnLeaving(
  trx: Db,
  addressKey: AddressKey,
  emails: readonly string[],
  now: Date,
): Promise<number> {
  if (emails.length === 0) return 0;
  const sentBefore = lateReportsOver(now);
  const left = await trx
    .selectFrom("outbox")
    .select(["id", "kind", "email"])
    .where("kind", "in", ["edition", "confirmation"])
    .where(
      sql<string>`lower(email)`,
      "in",
      emails.map((email) => email.trim().toLowerCase()),
    )
    .where(mailedAt, "<=", sentBefore)
    .execute();
  return forgetMails(trx, addressKey, left, sentBefore);
}

/**
 * `forgetOnLeaving` for those of `emails` no subscriber holds, in any letter case: the
 * mails an import brings (server/portability/), which may be older than the hourly
 * pass's last. How many rows.
 */
export async function forgetUnheld(
  trx: Db,
  addressKey: AddressKey,
  emails: readonly string[],
  now = new Date(),
): Promise<number> {
  const addresses = [...new Set(emails.map((email) => email.trim().toLowerCase()))];
  if (addresses.length === 0) return 0;
  const held = await trx
    .selectFrom("subscribers")
    .select(sql<string>`lower(email)`.as("email"))
    .where(sql<string>`lower(email)`, "in", addresses)
    .execute();
  const holders = new Set(held.map((row) => row.email));
  const left = addresses.filter((email) => !holders.has(email));
  return forgetOnLeaving(trx, addressKey, left, now);
}

/**
 * Forgets what the double opt-in no longer needs: the per-IP record after an hour,
 * links `forgetPendingAfterMs` after they expired, and addresses never confirmed that
 * long after their last confirmation mail, with those mails' records: whoever typed
 * one, its mailbox never agreed. The copies of editions an address had before it
 * left and came back unconfirmed are forgotten as at any leaving.
 */
export async function pruneUnconfirmed(
  db: Kysely<Database>,
  addressKey: AddressKey,
  forgetPendingAfterMs: number,
  now = new Date(),
): Promise<void> {
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
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
    const emails = stale.map((row) => row.email);
    await db.transaction().execute(async (trx) => {
      await forget(trx, { kinds: ["confirmation"], addresses: emails });
      await trx.deleteFrom("confirmation_tokens").where("subscriber_id", "in", ids).execute();
      await trx.deleteFrom("subscribers").where("id", "in", ids).execute();
      await forgetOnLeaving(trx, addressKey, emails, now);
    });
  }
}
