import type { SpentFormTokens } from "../lib/form-token.ts";
import { isUniqueViolation } from "./errors.ts";
import type { Store } from "./store.ts";

/**
 * The forms' spent tokens (server/lib/form-token.ts): the primary key makes
 * the second use of a token fail on whichever instance it arrives. Rows whose
 * tokens have expired go as new ones come, so the table holds at most a day
 * of submissions.
 */
export function createSpentFormTokens(store: Store): SpentFormTokens {
  return {
    async spend(token, usableUntil) {
      try {
        await store.db
          .insertInto("spent_form_tokens")
          .values({ token, expires_at: usableUntil.toISOString() })
          .execute();
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
      await store.db
        .deleteFrom("spent_form_tokens")
        .where("expires_at", "<", new Date().toISOString())
        .execute();
      return true;
    },
  };
}
