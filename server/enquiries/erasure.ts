import { transact } from "../db/owner-actor.ts";
import type { Db, Store } from "../db/store.ts";
import { mailboxOf } from "../lib/mailbox.ts";
import { statementParts } from "../lib/parts.ts";
import { dayMs } from "../lib/time.ts";
import { tokenDigest } from "../lib/tokens.ts";
import { forget } from "../outbox/forget.ts";
import {
  acknowledgementIntervalMs,
  type EnquiryMailPayload,
  enquiryMailKinds,
} from "./outbox-rows.ts";

/**
 * Deleting enquiries (docs/product.md, "Enquiries"): one by the owner, all of
 * a sender's by their link, and the old ones by retention. An enquiry goes
 * with its answers and every outbox row about it, so nothing of it waits in a
 * queue or stays in a record of sent mail.
 */

export function createEnquiryErasure(store: Store, clock: () => Date = () => new Date()) {
  const { db } = store;

  /**
   * The enquiries' outbox rows: their mails (queued or sent) by the exact
   * payloads they were queued with, an acknowledgement naming the sender's
   * zone and their webhook calls by the start of theirs. A few statements per hundred enquiries, so retention's first run
   * over a backlog does not hold the database for long.
   */
  async function deleteOutboxRows(trx: Db, ids: number[]) {
    const answers = await trx
      .selectFrom("enquiry_answers")
      .select(["id", "enquiry_id"])
      .where("enquiry_id", "in", ids)
      .execute();
    const payloads = [
      ...ids.map((id) => JSON.stringify({ enquiryId: id } satisfies EnquiryMailPayload)),
      // The owner's copy of one the classifier took for advertising says so in its payload.
      ...ids.map((id) =>
        JSON.stringify({ enquiryId: id, likelyJunk: true } satisfies EnquiryMailPayload),
      ),
      ...answers.map((answer) =>
        JSON.stringify({
          enquiryId: answer.enquiry_id,
          answerId: answer.id,
        } satisfies EnquiryMailPayload),
      ),
    ];
    await forget(trx, {
      kinds: enquiryMailKinds,
      payloads,
      payloadsLike: ids.map((id) => `{"enquiryId":${id},"zone":%`),
    });
    await forget(trx, {
      kinds: ["webhook"],
      payloadsLike: ids.map((id) => `{"type":"enquiry.%","enquiryId":${id},%`),
    });
  }

  /** In chunks, within the databases' limits on a statement's parameters. */
  async function deleteWhere(trx: Db, rows: { id: number }[]): Promise<number> {
    const ids = rows.map((row) => row.id);
    let deleted = 0;
    for (const chunk of statementParts(ids)) {
      await deleteOutboxRows(trx, chunk);
      await trx.deleteFrom("enquiry_answers").where("enquiry_id", "in", chunk).execute();
      const result = await trx.deleteFrom("enquiries").where("id", "in", chunk).executeTakeFirst();
      deleted += Number(result.numDeletedRows);
    }
    return deleted;
  }

  return {
    /** One enquiry, in `within`: the owner's action's transaction. */
    async delete(id: number, within: Db = db): Promise<boolean> {
      return transact(within, async (trx) => (await deleteWhere(trx, [{ id }])) > 0);
    },

    /**
     * The sender's deletion link: every enquiry from the mailbox the link was
     * mailed to (any spelling of it, `mailboxOf`) goes, with its answers and mails, and so
     * does the record of its last acknowledgement (`acknowledged`: the form's key of a
     * mailbox), so that an enquiry sent after it is acknowledged with a link of its own.
     * The number deleted; null when the token is not known (already used, or never
     * issued). In `within`, or a transaction of its own.
     */
    async deleteBySender(
      token: string,
      acknowledged: (email: string) => string,
      within: Db = db,
    ): Promise<number | null> {
      return transact(within, async (trx) => {
        const row = await trx
          .selectFrom("enquiries")
          .select("email")
          .where("deletion_token_hash", "=", tokenDigest(token))
          .executeTakeFirst();
        if (!row) return null;
        // Every spelling that reaches the mailbox: the form acknowledges a mailbox once in
        // eight hours however it is spelled, so this link is the only one its owner was sent.
        const mailbox = mailboxOf(row.email, { loose: false });
        const all = await trx.selectFrom("enquiries").select(["id", "email"]).execute();
        await trx
          .deleteFrom("enquiry_acknowledgements")
          .where("address_hash", "=", acknowledged(row.email))
          .execute();
        return deleteWhere(
          trx,
          all.filter((each) => mailboxOf(each.email, { loose: false }) === mailbox),
        );
      });
    },

    /** Whether a deletion link's token is known (the page before the button). */
    async senderTokenKnown(token: string): Promise<boolean> {
      const row = await db
        .selectFrom("enquiries")
        .select("id")
        .where("deletion_token_hash", "=", tokenDigest(token))
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * Retention: enquiries older than `days` that the owner did not keep are
     * deleted; acknowledgement times older than their interval are forgotten. In
     * `within`, or a transaction of its own.
     */
    async prune(days: number, within: Db = db): Promise<number> {
      const now = clock().getTime();
      const cutoff = new Date(now - days * dayMs).toISOString();
      return transact(within, async (trx) => {
        const ids = await trx
          .selectFrom("enquiries")
          .select("id")
          .where("created_at", "<", cutoff)
          .where("kept", "=", 0)
          .execute();
        await trx
          .deleteFrom("enquiry_acknowledgements")
          .where("sent_at", "<=", new Date(now - acknowledgementIntervalMs).toISOString())
          .execute();
        return deleteWhere(trx, ids);
      });
    },
  };
}
