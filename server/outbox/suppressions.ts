import { createHmac } from "node:crypto";
import { type ExpressionBuilder, type Kysely, sql } from "kysely";
import type { Suppression } from "../../contract/list-pages.ts";
import { withoutHiddenCharacters } from "../../contract/text.ts";
import { beforePlace, type ListPage, type PageRequest, pageOf } from "../db/list-pages.ts";
import { transact } from "../db/owner-actor.ts";
import type { Database, SuppressionReason } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { withoutAddresses } from "../lib/log.ts";
import { type AddressKey, mailboxOf, readableAddress, tagOf } from "../lib/mailbox.ts";
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

/**
 * The receiving server's words, at most 500 characters, without any address, nor `email`'s
 * name before the "@"; one line of plain text, as anyone's server may write them and the
 * console and the command line show them: no control, bidi or invisible character.
 */
function withoutAddress(given: string | null, email: string): string | null {
  if (given === null) return null;
  const detail = withoutHiddenCharacters(given);
  // The name as the server may write it: without the quotes a report may carry.
  const local = email
    .trim()
    .slice(0, email.trim().lastIndexOf("@"))
    .replace(/^"(.*)"$/, "$1");
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
 * Whether a subscriber's mailbox is suppressed, within a query of
 * `subscribers`: by the digest each keeps beside its address (`heldAddress`,
 * lib/mailbox.ts), an index lookup a row. Its caller fills missing digests
 * first (`fillDigests`).
 */
export const subscriberSuppressed = ({
  exists,
  selectFrom,
}: ExpressionBuilder<Database, "subscribers">) =>
  exists(
    selectFrom("suppressions")
      .select("suppressions.email_hash")
      .whereRef("suppressions.email_hash", "=", "subscribers.email_hash"),
  );

/** The tables that hold an address with its digest beside it (`heldAddress`, lib/mailbox.ts). */
type HeldTable = "subscribers" | "reply_addresses";

/**
 * Gives each held address written without its digest the digest now, in
 * `tables`; the count filled. During a rolling upgrade an instance older than
 * migration 049 writes subscribers and reply addresses without one, which the
 * lookups by digest would miss (docs/upgrading.md): each server fills them as
 * it starts and every hour, and whatever looks up by digest fills its table
 * first (the list below, an edition's queueing, a stop of reply mails). The
 * digest's index finds them, so with none to fill it is one short read a
 * table; there are none once every instance is new.
 */
export async function fillDigests(
  db: Kysely<Database>,
  key: AddressKey,
  tables: readonly HeldTable[] = ["subscribers", "reply_addresses"],
): Promise<number> {
  let filled = 0;
  for (const table of tables) {
    for (;;) {
      const rows = await db
        .selectFrom(table)
        .select(["id", "email"])
        .where("email_hash", "is", null)
        .limit(500)
        .execute();
      if (rows.length === 0) break;
      // One statement a page, as migration 049 filled them: a row a statement took about
      // ten times as long on PostgreSQL (docs/benchmarks.md).
      const given = rows.map(({ id, email }) => sql`(cast(${id} as integer), ${key(email)})`);
      await sql`update ${sql.table(table)} set email_hash = given.column2
        from (values ${sql.join(given)}) as given
        where ${sql.ref(`${table}.id`)} = given.column1`.execute(db);
      filled += rows.length;
      if (rows.length < 500) break;
    }
  }
  return filled;
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
 * The digest a bounce of `email` is kept under. A bounce says that the
 * spelling mailed reaches no mailbox, and a "+tag" that bounced says nothing
 * of the mailbox without it: a server that takes no tags refuses `ann+x@`
 * while `ann@` reads on, and anyone can type `ann+x@` into a form to have its
 * confirmation bounce. So a tagged address's bounce is kept under a digest of
 * its tag, keyed by its mailbox's own digest, and suppresses that spelling
 * alone; an untagged address's bounce suppresses every spelling of its
 * mailbox. A complaint comes from the mailbox's reader, and suppresses the
 * mailbox (`key`).
 */
function bounceKey(key: AddressKey): AddressKey {
  return (email) => {
    const tag = tagOf(email);
    return tag === null
      ? key(email)
      : createHmac("sha256", key(email)).update(`+${tag}`).digest("base64url");
  };
}

export function createSuppressions(
  store: Store,
  key: AddressKey,
  { clock = () => new Date() }: { clock?: () => Date } = {},
) {
  const { db } = store;
  const bounced = bounceKey(key);
  /** The digests that suppress `email`: its mailbox's, and its own spelling's bounce. */
  const digestsOf = (email: string) => [...new Set([key(email), bounced(email)])];

  async function suppress(
    email: string,
    reason: SuppressionReason,
    { source, detail = null }: { source: string; detail?: string | null },
  ): Promise<"suppressed" | "already"> {
    const kept = {
      ...keptAddress(key, email, detail),
      ...(reason === "complaint" ? {} : { email_hash: bounced(email) }),
    };
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
    fillDigests: (tables?: readonly HeldTable[]) => fillDigests(db, key, tables),

    async isSuppressed(email: string): Promise<boolean> {
      const row = await db
        .selectFrom("suppressions")
        .select("email_hash")
        .where("email_hash", "in", digestsOf(email))
        .executeTakeFirst();
      return row !== undefined;
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
      const hash = bounced(email);
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
     * subscriber's, one left for reply mails); otherwise only its domain. An
     * internationalised domain shows as the owner would type it, in Unicode.
     */
    async list({
      after,
      limit,
      email,
    }: PageRequest & { email?: string | undefined }): Promise<ListPage<Suppression>> {
      let query = db
        .selectFrom("suppressions")
        .select(["email_hash", "domain", "reason", "source", "detail", "created_at"]);
      if (email !== undefined) query = query.where("email_hash", "in", digestsOf(email));
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
        rows.map((row) => {
          const email = held.get(row.email_hash);
          return {
            id: row.email_hash,
            email: email === undefined ? null : readableAddress(email),
            domain: readableAddress(row.domain),
            reason: row.reason,
            source: row.source,
            detail: row.detail,
            createdAt: toIso(row.created_at),
          };
        }),
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
        const hashes = "id" in which ? [which.id] : digestsOf(which.email);
        const removed = await trx
          .deleteFrom("suppressions")
          .where("email_hash", "in", hashes)
          .executeTakeFirst();
        await trx.deleteFrom("soft_bounces").where("email_hash", "in", hashes).execute();
        return Number(removed.numDeletedRows) > 0;
      }),
  };

  /**
   * The addresses the site holds (subscribers', reply mails') under the
   * digests of `rows`, looked up by the digest each keeps beside itself
   * (`heldAddress`, lib/mailbox.ts): a subscriber's first.
   */
  async function heldAddresses(
    rows: readonly { email_hash: string }[],
  ): Promise<Map<string, string>> {
    const hashes = rows.map((row) => row.email_hash);
    if (hashes.length === 0) return new Map();
    await fillDigests(db, key);
    const held = await db
      .selectFrom("subscribers")
      .select(["email_hash", "email", sql<number>`0`.as("place")])
      .where("email_hash", "in", hashes)
      .unionAll(
        db
          .selectFrom("reply_addresses")
          .select(["email_hash", "email", sql<number>`1`.as("place")])
          .where("email_hash", "in", hashes),
      )
      .orderBy("place", "desc")
      .execute();
    return new Map(held.map((row) => [row.email_hash, row.email]));
  }
}

export type Suppressions = ReturnType<typeof createSuppressions>;
