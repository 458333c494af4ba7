import type { Passkey } from "../../contract/console.ts";
import type { Store } from "../db/store.ts";
import { toIso } from "../lib/time.ts";

/** A WebAuthn challenge must be answered within this time. */
export const challengeLifetimeMs = 5 * 60 * 1000;

export type StoredPasskey = {
  id: string;
  publicKey: Uint8Array<ArrayBuffer>;
  counter: number;
  transports: string[];
};

/**
 * The owner's passkeys and their WebAuthn challenges
 * (docs/decisions/012-owner-console.md), part of the owner repository
 * (./owner-repository.ts). A registration's challenge is a row bound to its
 * session; a sign-in's is signed instead (./sign-in-challenge.ts) and a row only
 * once answered. Either way any instance answers the next request, and each is
 * used once within `challengeLifetimeMs`.
 */
export function createPasskeyRepository(db: Store["db"], now: () => Date) {
  return {
    /** Keeps a registration's challenge, for the session that asked for it. */
    async saveChallenge(challenge: string, sessionId: string): Promise<void> {
      const at = now();
      await db.deleteFrom("owner_challenges").where("expires_at", "<=", at.toISOString()).execute();
      await db
        .insertInto("owner_challenges")
        .values({
          challenge,
          purpose: "registration",
          session_id: sessionId,
          expires_at: new Date(at.getTime() + challengeLifetimeMs).toISOString(),
        })
        .execute();
    },

    /** Uses a registration's challenge up: true when it was outstanding for this session. */
    async takeChallenge(challenge: string, sessionId: string): Promise<boolean> {
      const result = await db
        .deleteFrom("owner_challenges")
        .where("challenge", "=", challenge)
        .where("purpose", "=", "registration")
        .where("session_id", "=", sessionId)
        .where("expires_at", ">", now().toISOString())
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /**
     * Writes down a sign-in challenge (./sign-in-challenge.ts) a passkey's
     * answer verified, until its deadline: true the first time only, so an
     * answer sent again signs nobody in.
     */
    async spendChallenge(challenge: string, deadline: Date, within = db): Promise<boolean> {
      await within
        .deleteFrom("owner_challenges")
        .where("expires_at", "<=", now().toISOString())
        .execute();
      const spent = await within
        .insertInto("owner_challenges")
        .values({
          challenge,
          purpose: "authentication",
          session_id: null,
          expires_at: deadline.toISOString(),
        })
        .onConflict((conflict) => conflict.column("challenge").doNothing())
        .returning("challenge")
        .executeTakeFirst();
      return spent !== undefined;
    },

    async listPasskeys(): Promise<Passkey[]> {
      const rows = await db
        .selectFrom("owner_passkeys")
        .select(["id", "name", "created_at", "last_used_at"])
        .orderBy("created_at")
        .execute();
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        createdAt: toIso(row.created_at),
        lastUsedAt: row.last_used_at === null ? null : toIso(row.last_used_at),
      }));
    },

    async storedPasskeys(): Promise<StoredPasskey[]> {
      const rows = await db.selectFrom("owner_passkeys").selectAll().execute();
      return rows.map((row) => ({
        id: row.id,
        publicKey: new Uint8Array(Buffer.from(row.public_key, "base64url")),
        counter: Number(row.counter),
        transports: JSON.parse(row.transports) as string[],
      }));
    },

    async addPasskey(passkey: StoredPasskey & { name: string }, within = db): Promise<void> {
      await within
        .insertInto("owner_passkeys")
        .values({
          id: passkey.id,
          name: passkey.name,
          public_key: Buffer.from(passkey.publicKey).toString("base64url"),
          counter: passkey.counter,
          transports: JSON.stringify(passkey.transports),
          created_at: now().toISOString(),
        })
        .execute();
    },

    /**
     * Records a passkey's answer and its signature counter, which only goes up
     * (a key that keeps none answers 0 each time); false when another answer
     * took this count first: two at once, or a copy of the key.
     */
    async passkeyUsed(id: string, counter: number, within = db): Promise<boolean> {
      const result = await within
        .updateTable("owner_passkeys")
        .set({ counter, last_used_at: now().toISOString() })
        .where("id", "=", id)
        .where((eb) => (counter === 0 ? eb("counter", "=", 0) : eb("counter", "<", counter)))
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /**
     * Removes a passkey and ends the sessions it opened: whoever signed in with
     * a lost device's passkey is out once the owner removes it.
     */
    async removePasskey(id: string, within = db): Promise<boolean> {
      const result = await within
        .deleteFrom("owner_passkeys")
        .where("id", "=", id)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      await within
        .updateTable("owner_sessions")
        .set({ revoked_at: now().toISOString() })
        .where("passkey_id", "=", id)
        .where("revoked_at", "is", null)
        .execute();
      return true;
    },
  };
}
