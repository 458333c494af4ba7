import { randomBytes } from "node:crypto";
import { sql, type Transaction } from "kysely";
import { isUniqueViolation } from "../db/errors.ts";
import type { Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { nowIso, toIso } from "./time.ts";

export type Subscriber = { email: string; unsubscribeToken: string; subscribedAt: string };

export type SubscribersRepository = ReturnType<typeof createSubscribersRepository>;

/** Keeps the token of a removed subscription, so its link still answers "unsubscribed". */
async function rememberToken(trx: Transaction<Database>, token: string) {
  await trx
    .insertInto("unsubscribed_tokens")
    .values({ token, unsubscribed_at: nowIso() })
    .onConflict((conflict) => conflict.column("token").doNothing())
    .execute();
}

export function createSubscribersRepository(store: Store) {
  const { db } = store;
  return {
    /**
     * Adds a subscriber with a fresh unsubscribe token (256 random bits, for the
     * links of future newsletters). The database refuses an email that differs
     * from a stored one only in case.
     */
    async add(email: string): Promise<"subscribed" | "already_subscribed"> {
      try {
        await db
          .insertInto("subscribers")
          .values({
            email,
            unsubscribe_token: randomBytes(32).toString("base64url"),
            created_at: nowIso(),
          })
          .execute();
        return "subscribed";
      } catch (error) {
        if (isUniqueViolation(error)) return "already_subscribed";
        throw error;
      }
    },

    /**
     * Removes the subscription holding `token`. Following the link twice is
     * fine: a token whose subscription is already gone is "already".
     */
    async unsubscribe(token: string): Promise<"unsubscribed" | "already" | "unknown"> {
      return db.transaction().execute(async (trx) => {
        const removed = await trx
          .deleteFrom("subscribers")
          .where("unsubscribe_token", "=", token)
          .returning("id")
          .executeTakeFirst();
        if (removed) {
          await rememberToken(trx, token);
          return "unsubscribed";
        }
        const used = await trx
          .selectFrom("unsubscribed_tokens")
          .select("token")
          .where("token", "=", token)
          .executeTakeFirst();
        return used ? "already" : "unknown";
      });
    },

    /** Every subscriber, oldest first. */
    async list(): Promise<Subscriber[]> {
      const rows = await db
        .selectFrom("subscribers")
        .select(["email", "unsubscribe_token", "created_at"])
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map((row) => ({
        email: row.email,
        unsubscribeToken: row.unsubscribe_token,
        subscribedAt: toIso(row.created_at),
      }));
    },

    /** Removes an address in any letter case, as the owner's command; false when absent. */
    async remove(email: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const removed = await trx
          .deleteFrom("subscribers")
          // The same folding as the unique index on lower(email), which serves the lookup.
          .where(sql<string>`lower(email)`, "=", sql<string>`lower(${email.trim()})`)
          .returning("unsubscribe_token")
          .executeTakeFirst();
        if (removed) await rememberToken(trx, removed.unsubscribe_token);
        return removed !== undefined;
      });
    },

    async count(): Promise<number> {
      const { count } = await db
        .selectFrom("subscribers")
        .select((eb) => eb.fn.countAll().as("count"))
        .executeTakeFirstOrThrow();
      return Number(count);
    },
  };
}
