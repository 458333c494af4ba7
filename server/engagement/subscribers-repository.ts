import { randomBytes } from "node:crypto";
import { isUniqueViolation } from "../db/errors.ts";
import type { Store } from "../db/store.ts";
import { nowIso } from "./time.ts";

export type SubscribersRepository = ReturnType<typeof createSubscribersRepository>;

export function createSubscribersRepository(store: Store) {
  return {
    /**
     * Adds a subscriber with a fresh unsubscribe token (256 random bits, for the
     * links of future newsletters). The database refuses an email that differs
     * from a stored one only in case.
     */
    async add(email: string): Promise<"subscribed" | "already_subscribed"> {
      try {
        await store.db
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
  };
}
