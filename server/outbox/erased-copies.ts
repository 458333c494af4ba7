import { sql } from "kysely";
import type { OutboxTable } from "../db/schema.ts";
import type { Db } from "../db/store.ts";
import { deleted } from "./queue.ts";

/**
 * When a message went, or was queued while it has not: how old it is for a late
 * report about it. The index outbox_by_age holds it for the rows with an address.
 */
export const mailedAt = sql<string>`coalesce(sent_at, created_at)`;

/**
 * An erased address's copies of the editions, kept as a record without it
 * (an edition's figures count them): each to `address`, in any letter case,
 * keeps instead of the address, its link and the server's answer the digest
 * its mailbox is held under (`heldAddress`, lib/mailbox.ts), by which no
 * edition is queued for that mailbox twice. One still queued is cancelled;
 * their mail files, without SMTP_URL, are deleted. How many.
 *
 * `sentBefore`: only the copies sent (or queued, if never sent) by then, which
 * keep their link's seed, the one thing the edition's count of readers who
 * unsubscribed joins on (a reader who left, once late reports are over).
 */
export async function keepWithoutAddress(
  writer: Db,
  address: string,
  emailHash: string,
  sentBefore?: string,
): Promise<number> {
  const rows = await writer
    .updateTable("outbox")
    .set({
      email: null,
      email_hash: emailHash,
      ...(sentBefore === undefined ? { token: null } : {}),
      last_error: null,
      status: sql<
        OutboxTable["status"]
      >`case when status = 'queued' then 'cancelled' else status end`,
    })
    .where("kind", "=", "edition")
    .where(sql<string>`lower(email)`, "=", address.trim().toLowerCase())
    .$if(sentBefore !== undefined, (query) => query.where(mailedAt, "<=", sentBefore as string))
    .returning("id")
    .execute();
  return deleted(writer, rows);
}

/**
 * The mailbox an edition's copy went to, by its link's `seeds`: the digest `key` makes of
 * its address, or the one it was kept under once the address was erased; null if none.
 */
export async function mailboxOfEdition(
  reader: Db,
  seeds: readonly string[],
  key: (address: string) => string,
): Promise<string | null> {
  const copy = await reader
    .selectFrom("outbox")
    .select(["email", "email_hash"])
    .where("token", "in", seeds)
    .where("kind", "=", "edition")
    .limit(1)
    .executeTakeFirst();
  return (copy?.email ? key(copy.email) : copy?.email_hash) ?? null;
}
