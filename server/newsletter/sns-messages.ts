import type { Store } from "../db/store.ts";

/**
 * How old a signed SNS message may be: Amazon retries a delivery for an hour
 * at most, so an older copy is a replay (of a complaint the owner has since
 * lifted, say). A few minutes ahead are allowed for clocks that differ.
 */
export const snsMessageAge = { pastMs: 2 * 3_600_000, futureMs: 15 * 60_000 };

/**
 * The SNS messages taken, by their MessageId (docs/mail.md, "Bounces and
 * complaints"): within the two hours a signature is accepted, a copy of a
 * signed report posted again (a retry SNS makes, or anyone's replay after the
 * owner lifted the suppression) is answered and changes nothing. In the
 * database, so every instance agrees; each id is kept as long as its
 * signature could be accepted, and older ones go as new ones come.
 */
export function createSnsMessages(store: Store) {
  const { db } = store;
  const keptMs = snsMessageAge.pastMs + snsMessageAge.futureMs;
  return {
    async taken(messageId: string): Promise<boolean> {
      const row = await db
        .selectFrom("sns_messages")
        .select("message_id")
        .where("message_id", "=", messageId)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Records `messageId` as taken, once what it asked is done: a failure on the way leaves it to SNS's retry. */
    async take(messageId: string): Promise<void> {
      const now = Date.now();
      await db
        .insertInto("sns_messages")
        .values({ message_id: messageId, taken_at: new Date(now).toISOString() })
        .onConflict((conflict) => conflict.column("message_id").doNothing())
        .execute();
      await db
        .deleteFrom("sns_messages")
        .where("taken_at", "<", new Date(now - keptMs).toISOString())
        .execute();
    },
  };
}

export type SnsMessages = ReturnType<typeof createSnsMessages>;
