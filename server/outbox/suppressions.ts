import { type Kysely, sql, type Transaction } from "kysely";
import type { Suppression } from "../../contract/list-pages.ts";
import { beforePlace, type ListPage, type PageRequest, pageOf } from "../db/list-pages.ts";
import { transact } from "../db/owner-actor.ts";
import type { Database, SuppressionReason } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { dayMs, toIso } from "../lib/time.ts";

/**
 * Addresses nothing is mailed to (docs/mail.md, "Bounces and complaints"):
 * each with the reason, what reported it and when. A hard bounce or a
 * complaint suppresses an address at once; temporary failures suppress it
 * when `softBounceRule.count` of them are reported within its period. The
 * outbox asks before every mail of every kind, so a suppressed address gets
 * no edition, confirmation or reply mail; the owner can lift one.
 */

const softBounceRule = { count: 3, periodMs: 30 * dayMs } as const;

/** The one folding of an address for the list: trimmed, lower case. */
const suppressionKey = (email: string) => email.trim().toLowerCase();

/** `column` holds no suppressed address, as SQL (queueing an edition skips them). */
export const notSuppressed = (column: string) =>
  sql<boolean>`not exists (select 1 from suppressions where suppressions.email = lower(${sql.ref(column)}))`;

/**
 * Forgets an address's suppression and the soft bounces counted towards one,
 * in the caller's transaction (lifting it, or removing the subscriber, who is
 * forgotten everywhere); false when it was not suppressed.
 */
export async function forgetSuppression(
  writer: Kysely<Database> | Transaction<Database>,
  email: string,
): Promise<boolean> {
  const key = suppressionKey(email);
  const removed = await writer
    .deleteFrom("suppressions")
    .where("email", "=", key)
    .executeTakeFirst();
  await writer.deleteFrom("soft_bounces").where("email", "=", key).execute();
  return Number(removed.numDeletedRows) > 0;
}

export function createSuppressions(
  store: Store,
  { clock = () => new Date() }: { clock?: () => Date } = {},
) {
  const { db } = store;

  async function suppress(
    email: string,
    reason: SuppressionReason,
    { source, detail = null }: { source: string; detail?: string | null },
  ): Promise<"suppressed" | "already"> {
    const key = suppressionKey(email);
    const result = await db
      .insertInto("suppressions")
      .values({
        email: key,
        reason,
        source,
        detail: detail?.slice(0, 500) ?? null,
        created_at: clock().toISOString(),
      })
      .onConflict((conflict) => conflict.column("email").doNothing())
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0) > 0) return "suppressed";
    // A complaint says more than a bounce: it is what the list shows.
    if (reason === "complaint") {
      await db
        .updateTable("suppressions")
        .set({ reason, source, detail: detail?.slice(0, 500) ?? null })
        .where("email", "=", key)
        .where("reason", "!=", "complaint")
        .execute();
    }
    return "already";
  }

  return {
    suppress,

    async isSuppressed(email: string): Promise<boolean> {
      const row = await db
        .selectFrom("suppressions")
        .select("email")
        .where("email", "=", suppressionKey(email))
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
      const key = suppressionKey(email);
      const now = clock();
      const added = await db
        .insertInto("soft_bounces")
        .values({ email: key, ref, created_at: now.toISOString() })
        .onConflict((conflict) => conflict.column("ref").doNothing())
        .executeTakeFirst();
      if (Number(added.numInsertedOrUpdatedRows ?? 0) === 0) return "already";
      const since = new Date(now.getTime() - softBounceRule.periodMs).toISOString();
      await db.deleteFrom("soft_bounces").where("created_at", "<", since).execute();
      const { count } = await db
        .selectFrom("soft_bounces")
        .select((eb) => eb.fn.countAll().as("count"))
        .where("email", "=", key)
        .executeTakeFirstOrThrow();
      if (Number(count) < softBounceRule.count) return "counted";
      return (await suppress(key, "soft_bounces", { source, detail })) === "suppressed"
        ? "suppressed"
        : "already";
    },

    /**
     * A page of the suppressed addresses, newest first (server/db/list-pages.ts);
     * given `email`, that address alone when it is suppressed, by its key.
     */
    async list({
      after,
      limit,
      email,
    }: PageRequest & { email?: string | undefined }): Promise<ListPage<Suppression>> {
      let query = db
        .selectFrom("suppressions")
        .select(["email", "reason", "source", "detail", "created_at as createdAt"]);
      if (email !== undefined) query = query.where("email", "=", suppressionKey(email));
      if (after) query = query.where(beforePlace("created_at", "email", after));
      const rows = await query
        .orderBy("created_at", "desc")
        .orderBy("email", "desc")
        .limit(limit + 1)
        .execute();
      return pageOf(
        rows.map((row) => ({ ...row, createdAt: toIso(row.createdAt) })),
        limit,
        (row) => ({ at: row.createdAt, key: row.email }),
      );
    },

    /** Lets mail go to `email` again, its soft bounces forgotten; false when it was not suppressed. */
    lift: (email: string, within = db) => transact(within, (trx) => forgetSuppression(trx, email)),
  };
}

export type Suppressions = ReturnType<typeof createSuppressions>;
