import { type Kysely, sql } from "kysely";
import type { Suppression } from "../../contract/list-pages.ts";
import { beforePlace, type ListPage, type PageRequest, pageOf } from "../db/list-pages.ts";
import { transact } from "../db/owner-actor.ts";
import type { Database, SuppressionReason } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { withoutAddresses } from "../lib/log.ts";
import { type AddressKey, domainsOf, mailboxOf } from "../lib/mailbox.ts";
import { dayMs, toIso } from "../lib/time.ts";

/**
 * Addresses nothing is mailed to (docs/mail.md, "Bounces and complaints"):
 * each with the reason, what reported it and when. A hard bounce or a
 * complaint suppresses an address at once; temporary failures suppress it
 * when `softBounceRule.count` of them are reported within its period. The
 * outbox asks before every mail of every kind, so a suppressed address gets
 * no edition, confirmation or reply mail; the owner can lift one.
 *
 * No address is kept here (docs/decisions/059-suppressions-without-addresses.md):
 * each is a keyed digest of its mailbox, as a stop of reply mails is, with
 * its domain, and the receiving server's words with every address cut out.
 * The list shows an address where the site still holds it (a subscriber's,
 * a reply mail's).
 */

const softBounceRule = { count: 3, periodMs: 30 * dayMs } as const;

/** The receiving server's words, at most 500 characters, without any address, nor `email`'s name before the "@". */
function withoutAddress(detail: string | null, email: string): string | null {
  if (detail === null) return null;
  const local = email.trim().slice(0, email.trim().lastIndexOf("@"));
  const names = [...new Set([local, local.split("+")[0] ?? ""])]
    .filter((name) => name.length > 0)
    .map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const cut = withoutAddresses(detail);
  return (
    names.length > 0
      ? cut.replace(new RegExp(`(?<![\\w.+-])(?:${names.join("|")})(?![\\w.+-])`, "gi"), "[name]")
      : cut
  ).slice(0, 500);
}

/**
 * A suppressed address as it is kept: the digest of its mailbox, its domain,
 * and the receiving server's words without it (the outbox's, and a version-1
 * export's rows on import).
 */
export function keptAddress(key: AddressKey, email: string, detail: string | null) {
  const mailbox = mailboxOf(email);
  return {
    email_hash: key(email),
    domain: mailbox.slice(mailbox.lastIndexOf("@") + 1),
    detail: withoutAddress(detail, email),
  };
}

/**
 * Of `emails`, those suppressed (as given, every spelling of one mailbox), in
 * one query on the digests: queueing an edition skips them.
 */
async function suppressedAmong(
  db: Kysely<Database>,
  key: AddressKey,
  emails: readonly string[],
): Promise<Set<string>> {
  const byHash = Map.groupBy(emails, key);
  const hashes = [...byHash.keys()];
  const found = new Set<string>();
  // A thousand digests a query: well within either database's limit of parameters.
  for (let at = 0; at < hashes.length; at += 1000) {
    const rows = await db
      .selectFrom("suppressions")
      .select("email_hash")
      .where("email_hash", "in", hashes.slice(at, at + 1000))
      .execute();
    for (const { email_hash } of rows)
      for (const email of byHash.get(email_hash) ?? []) found.add(email);
  }
  return found;
}

export function createSuppressions(
  store: Store,
  key: AddressKey,
  { clock = () => new Date() }: { clock?: () => Date } = {},
) {
  const { db } = store;

  async function suppress(
    email: string,
    reason: SuppressionReason,
    { source, detail = null }: { source: string; detail?: string | null },
  ): Promise<"suppressed" | "already"> {
    const kept = keptAddress(key, email, detail);
    const { email_hash: hash, detail: words } = kept;
    const result = await db
      .insertInto("suppressions")
      .values({ ...kept, reason, source, created_at: clock().toISOString() })
      .onConflict((conflict) => conflict.column("email_hash").doNothing())
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0) > 0) return "suppressed";
    // A complaint says more than a bounce: it is what the list shows.
    if (reason === "complaint") {
      await db
        .updateTable("suppressions")
        .set({ reason, source, detail: words })
        .where("email_hash", "=", hash)
        .where("reason", "!=", "complaint")
        .execute();
    }
    return "already";
  }

  return {
    suppress,

    async isSuppressed(email: string): Promise<boolean> {
      return (await suppressedAmong(db, key, [email])).size > 0;
    },

    /** Of `emails`, the suppressed ones (queueing an edition skips them). */
    async among(emails: readonly string[]): Promise<Set<string>> {
      return suppressedAmong(db, key, emails);
    },

    /**
     * A temporary failure for `email`, reported once under `ref` (the same
     * report read twice counts once). The address is suppressed when it is
     * the third within 30 days; what became of it.
     */
    async softBounce(
      email: string,
      { ref, source, detail = null }: { ref: string; source: string; detail?: string | null },
    ): Promise<"counted" | "suppressed" | "already"> {
      const hash = key(email);
      const now = clock();
      const added = await db
        .insertInto("soft_bounces")
        .values({ email_hash: hash, ref, created_at: now.toISOString() })
        .onConflict((conflict) => conflict.column("ref").doNothing())
        .executeTakeFirst();
      if (Number(added.numInsertedOrUpdatedRows ?? 0) === 0) return "already";
      const since = new Date(now.getTime() - softBounceRule.periodMs).toISOString();
      await db.deleteFrom("soft_bounces").where("created_at", "<", since).execute();
      const { count } = await db
        .selectFrom("soft_bounces")
        .select((eb) => eb.fn.countAll().as("count"))
        .where("email_hash", "=", hash)
        .executeTakeFirstOrThrow();
      if (Number(count) < softBounceRule.count) return "counted";
      return (await suppress(email, "soft_bounces", { source, detail })) === "suppressed"
        ? "suppressed"
        : "already";
    },

    /**
     * A page of the suppressed addresses, newest first (server/db/list-pages.ts);
     * given `email`, that address alone when it is suppressed. Each shows its
     * address when it is the one searched for or the site holds it still (a
     * subscriber's, one left for reply mails); otherwise only its domain.
     */
    async list({
      after,
      limit,
      email,
    }: PageRequest & { email?: string | undefined }): Promise<ListPage<Suppression>> {
      let query = db
        .selectFrom("suppressions")
        .select(["email_hash", "domain", "reason", "source", "detail", "created_at"]);
      if (email !== undefined) query = query.where("email_hash", "=", key(email));
      if (after) query = query.where(beforePlace("created_at", "email_hash", after));
      const rows = await query
        .orderBy("created_at", "desc")
        .orderBy("email_hash", "desc")
        .limit(limit + 1)
        .execute();
      const held =
        email !== undefined
          ? new Map(rows.map((row) => [row.email_hash, email.trim().toLowerCase()]))
          : await heldAddresses(rows.slice(0, limit));
      return pageOf(
        rows.map((row) => ({
          id: row.email_hash,
          email: held.get(row.email_hash) ?? null,
          domain: row.domain,
          reason: row.reason,
          source: row.source,
          detail: row.detail,
          createdAt: toIso(row.created_at),
        })),
        limit,
        (row) => ({ at: row.createdAt, key: row.id }),
      );
    },

    /**
     * Lets mail go to an address again, its soft bounces forgotten, in the
     * caller's transaction: named by the address or by its row's `id`; false
     * when it was not suppressed.
     */
    lift: (which: { email: string } | { id: string }, within = db) =>
      transact(within, async (trx) => {
        const hash = "id" in which ? which.id : key(which.email);
        const removed = await trx
          .deleteFrom("suppressions")
          .where("email_hash", "=", hash)
          .executeTakeFirst();
        await trx.deleteFrom("soft_bounces").where("email_hash", "=", hash).execute();
        return Number(removed.numDeletedRows) > 0;
      }),
  };

  /**
   * The addresses of `rows` the site holds (subscribers, reply mails'), by
   * their digest: those at the rows' domains are read, and their digests
   * matched here (a page view reads every subscriber at gmail.com, say).
   */
  async function heldAddresses(
    rows: readonly { email_hash: string; domain: string }[],
  ): Promise<Map<string, string>> {
    const hashes = new Set(rows.map((row) => row.email_hash));
    const spellings = [...new Set(rows.flatMap((row) => domainsOf(`@${row.domain}`)))];
    if (spellings.length === 0) return new Map();
    const atDomains = (column: "subscribers.email" | "reply_addresses.email") =>
      sql<boolean>`(${sql.join(
        spellings.map((domain) => sql`lower(${sql.ref(column)}) like ${`%@${domain}`}`),
        sql` or `,
      )})`;
    const held = await db
      .selectFrom("subscribers")
      .select("subscribers.email as email")
      .where(atDomains("subscribers.email"))
      .union(
        db
          .selectFrom("reply_addresses")
          .select("reply_addresses.email as email")
          .where(atDomains("reply_addresses.email")),
      )
      .execute();
    const found = new Map<string, string>();
    for (const { email } of held) {
      const hash = key(email);
      if (hashes.has(hash)) found.set(hash, email);
    }
    return found;
  }
}

export type Suppressions = ReturnType<typeof createSuppressions>;
