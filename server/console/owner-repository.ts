import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { AuditEntry, OwnerSession } from "../../contract/console.ts";
import { limits } from "../../contract/limits.ts";
import { type OwnerActor, withLine } from "../db/owner-actor.ts";
import type { Database } from "../db/schema.ts";
import type { Db, Store } from "../db/store.ts";
import { takeTurn } from "../db/turns.ts";
import { toIso } from "../lib/time.ts";
import { tokenDigest as digest, newToken } from "../lib/tokens.ts";
import { createPasskeyRepository } from "./passkey-repository.ts";

/**
 * Who may use the console, and what was done in it
 * (docs/decisions/012-owner-console.md): one-time sign-in links, sessions,
 * passkeys with their challenges (./passkey-repository.ts), and the audit
 * trail. Links and session tokens are stored as SHA-256 digests only, so a
 * copy of the database signs nobody in.
 */
export const ownerRules = {
  /** A sign-in link works this long, once. */
  linkLifetimeMs: limits.signInLinkMinutes * 60 * 1000,
  /** A session ends after this long without a request. */
  sessionIdleMs: 12 * 60 * 60 * 1000,
  /** And this long after its sign-in, however much it is used. */
  sessionMaxMs: 30 * 24 * 60 * 60 * 1000,
  /** A session's last activity is written at most this often. */
  touchEveryMs: 60 * 1000,
  /**
   * What gives or keeps access (a passkey, the calendar feed's address) needs a
   * sign-in this recent (docs/decisions/062-fresh-sign-in.md).
   */
  freshSignInMs: limits.freshSignInMinutes * 60 * 1000,
} as const;

export type Clock = () => Date;

/**
 * A session's public id, shown in the console, the audit trail and `admin
 * sessions`: hex, so it never starts with "-" (which the command line would
 * read as an option, and a spreadsheet export would neutralise as a formula).
 */
const newSessionId = () => randomBytes(9).toString("hex");
/** What a session opened before devices were recorded shows. */
const unknownDevice = "Unknown browser";

/** A sign-in challenge a passkey answered, and until when it could be. */
type Spent = { value: string; deadline: Date };

type LinkOutcome = { sessionId: string; token: string } | "unknown" | "expired" | "used";

export type SessionCheck = {
  id: string;
  method: "link" | "passkey";
  device: string;
  createdAt: string;
  lastSeenAt: string;
  /** True when this request moved the idle deadline: the cookie is sent again. */
  touched: boolean;
  /** True when the session signed in within `ownerRules.freshSignInMs`. */
  fresh: boolean;
};

export type OwnerRepository = ReturnType<typeof createOwnerRepository>;

export function createOwnerRepository(store: Store, now: Clock = () => new Date()) {
  const { db } = store;
  /** The sessions neither revoked, nor idle too long, nor too old, at `now`. */
  const alive = (at = now().getTime()) =>
    db
      .selectFrom("owner_sessions")
      .where("revoked_at", "is", null)
      .where("last_seen_at", ">", new Date(at - ownerRules.sessionIdleMs).toISOString())
      .where("created_at", ">", new Date(at - ownerRules.sessionMaxMs).toISOString());

  /** A new session; `passkeyId` names the passkey it signed in with (none for a link). */
  async function openSession(
    method: "link" | "passkey",
    at: Date,
    device: string,
    executor: Pick<typeof db, "insertInto"> = db,
    passkeyId: string | null = null,
  ) {
    const token = newToken();
    const id = newSessionId();
    await executor
      .insertInto("owner_sessions")
      .values({
        id,
        token_hash: digest(token),
        method,
        created_at: at.toISOString(),
        last_seen_at: at.toISOString(),
        device,
        passkey_id: passkeyId,
      })
      .execute();
    return { sessionId: id, token };
  }

  const passkeys = createPasskeyRepository(db, now);

  /** A new one-time link's token; only its digest is stored. */
  async function createLink(channel: "cli" | "mail", executor: Db = db): Promise<string> {
    const token = newToken();
    const at = now();
    await executor
      .insertInto("owner_sign_in_links")
      .values({
        token_hash: digest(token),
        channel,
        created_at: at.toISOString(),
        expires_at: new Date(at.getTime() + ownerRules.linkLifetimeMs).toISOString(),
      })
      .execute();
    return token;
  }

  return {
    ...passkeys,

    /**
     * A new mailed link, unless one mailed before is still unused and valid:
     * that one is in the owner's mailbox already, so asking again mails
     * nothing. Null then.
     */
    async createMailedLink(): Promise<string | null> {
      // In a turn of its own, so that instances asked at once mail one link between them.
      return db.transaction().execute(async (trx) => {
        await takeTurn(store.kind, trx, "sign-in link", "mail");
        const outstanding = await trx
          .selectFrom("owner_sign_in_links")
          .select("token_hash")
          .where("channel", "=", "mail")
          .where("used_at", "is", null)
          .where("expires_at", ">", now().toISOString())
          .executeTakeFirst();
        return outstanding ? null : createLink("mail", trx);
      });
    },

    /**
     * Forgets a mailed link whose mail the SMTP server did not take: it is in
     * no mailbox, so it must not stand as the one outstanding (the next ask
     * mails a new one).
     */
    async withdrawMailedLink(token: string): Promise<void> {
      await db
        .deleteFrom("owner_sign_in_links")
        .where("token_hash", "=", digest(token))
        .where("used_at", "is", null)
        .execute();
    },

    /** A new one-time link's token for `login`, written in `executor` (with its line). */
    createLink: (executor?: Db) => createLink("cli", executor),

    /**
     * Uses a link: marks it used and opens a session in one transaction, so
     * two presses of the same link open one session between them. `device`
     * names the browser that signed in (./device-label.ts).
     */
    async signInWithLink(token: string, device: string): Promise<LinkOutcome> {
      const at = now();
      return db.transaction().execute(async (trx) => {
        const used = await trx
          .updateTable("owner_sign_in_links")
          .set({ used_at: at.toISOString() })
          .where("token_hash", "=", digest(token))
          .where("used_at", "is", null)
          .where("expires_at", ">", at.toISOString())
          .returning("token_hash")
          .executeTakeFirst();
        if (!used) {
          const row = await trx
            .selectFrom("owner_sign_in_links")
            .select(["used_at"])
            .where("token_hash", "=", digest(token))
            .executeTakeFirst();
          if (!row) return "unknown";
          return row.used_at ? "used" : "expired";
        }
        return openSession("link", at, device, trx);
      });
    },

    /**
     * A session for an owner whose passkey `passkeyId` answered `challenge`
     * with signature count `counter`, both taken in the same transaction
     * (`spendChallenge`, `passkeyUsed`): removing the passkey ends the
     * session, even a removal at the same moment. Null when the challenge or
     * the count was taken first, or the passkey is gone.
     */
    async signInWithPasskey(
      device: string,
      { passkeyId, counter, challenge }: { passkeyId: string; counter: number; challenge: Spent },
    ) {
      return db
        .transaction()
        .execute(async (trx) =>
          (await passkeys.spendChallenge(challenge.value, challenge.deadline, trx)) &&
          (await passkeys.passkeyUsed(passkeyId, counter, trx))
            ? openSession("passkey", now(), device, trx, passkeyId)
            : null,
        );
    },

    /** The live session a cookie's token names, its idle deadline moved on; null otherwise. */
    async checkSession(token: string): Promise<SessionCheck | null> {
      const at = now();
      const row = await alive(at.getTime())
        .select(["id", "method", "created_at", "last_seen_at", "device"])
        .where("token_hash", "=", digest(token))
        .executeTakeFirst();
      if (!row) return null;
      const lastSeen = new Date(toIso(row.last_seen_at)).getTime();
      let touched = false;
      let lastSeenAt = toIso(row.last_seen_at);
      if (at.getTime() - lastSeen >= ownerRules.touchEveryMs) {
        lastSeenAt = at.toISOString();
        await db
          .updateTable("owner_sessions")
          .set({ last_seen_at: lastSeenAt })
          .where("id", "=", row.id)
          .execute();
        touched = true;
      }
      return {
        id: row.id,
        method: row.method,
        device: row.device ?? unknownDevice,
        createdAt: toIso(row.created_at),
        lastSeenAt,
        touched,
        fresh: at.getTime() - new Date(toIso(row.created_at)).getTime() < ownerRules.freshSignInMs,
      };
    },

    /** Whether a session can still be used, without counting this as activity. */
    async isAlive(id: string): Promise<boolean> {
      const row = await alive().select("id").where("id", "=", id).executeTakeFirst();
      return row !== undefined;
    },

    /** Sessions that can still be used, newest first. */
    async listSessions(currentId: string | null = null): Promise<OwnerSession[]> {
      const rows = await alive()
        .select(["id", "method", "device", "created_at", "last_seen_at"])
        .orderBy("created_at", "desc")
        .execute();
      return rows.map((row) => ({
        id: row.id,
        method: row.method,
        device: row.device ?? unknownDevice,
        createdAt: toIso(row.created_at),
        lastSeenAt: toIso(row.last_seen_at),
        current: row.id === currentId,
      }));
    },

    /** Ends one session, or every one; the number ended. */
    async revoke(target: { id: string } | "all", within: Store["db"] = db): Promise<number> {
      let query = within
        .updateTable("owner_sessions")
        .set({ revoked_at: now().toISOString() })
        .where("revoked_at", "is", null);
      if (target !== "all") query = query.where("id", "=", target.id);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /**
     * After a restore (docs/backups.md): the backup's sessions and unused links end,
     * and its passkeys not in `kept` (the replaced database's, when it had any table
     * of them) go. Each may have been ended or removed since the backup, a stolen
     * laptop's, or planted in a file from elsewhere by whoever knows its secret.
     * The names of the passkeys removed.
     */
    async endRestoredSignIns(kept: Set<string> | null): Promise<string[]> {
      const at = now().toISOString();
      await this.revoke("all");
      await db
        .updateTable("owner_sign_in_links")
        .set({ used_at: at })
        .where("used_at", "is", null)
        .execute();
      const removed: string[] = [];
      for (const passkey of kept ? await passkeys.listPasskeys() : []) {
        if (!kept?.has(passkey.id) && (await passkeys.removePasskey(passkey.id))) {
          removed.push(passkey.name);
        }
      }
      return removed;
    },

    /**
     * One line of the audit trail: what was done, from which session (null: the
     * command line), in the action's transaction when it gives one.
     */
    async audit(
      sessionId: string | null,
      action: string,
      object: string | null = null,
      within: Kysely<Database> = db,
    ) {
      await within
        .insertInto("owner_audit")
        .values({ at: now().toISOString(), session_id: sessionId, action, object })
        .execute();
    },

    /** The owner acting from session `sessionId` (null: the command line or a mailed link). */
    actor(sessionId: string | null): OwnerActor {
      return {
        audit: (action, object, within) => this.audit(sessionId, action, object, within),
        wrote: async (action, object) =>
          (await db
            .selectFrom("owner_audit")
            .select("id")
            .where("action", "=", action)
            .where("object", "=", object)
            .executeTakeFirst()) !== undefined,
        async lastWrote(actions, about) {
          const { at } = await db
            .selectFrom("owner_audit")
            .select((eb) => eb.fn.max("at").as("at"))
            .where("action", "in", actions)
            .$if(about !== undefined, (query) => query.where("object", "like", `${about}%`))
            .executeTakeFirstOrThrow();
          return at === null ? null : new Date(at).toISOString();
        },
        act: (change, line) =>
          withLine(db, line, async (trx) => {
            const outcome = await change(trx);
            const written = line(outcome);
            if (written) await this.audit(sessionId, written[0], written[1], trx);
            return outcome;
          }),
      };
    },

    /** The newest entries of the audit trail, newest first. */
    async auditTrail(limit: number = limits.auditShown): Promise<AuditEntry[]> {
      const rows = await db
        .selectFrom("owner_audit")
        .leftJoin("owner_sessions", "owner_sessions.id", "owner_audit.session_id")
        .select([
          "owner_audit.id",
          "owner_audit.at",
          "owner_audit.session_id",
          "owner_audit.action",
          "owner_audit.object",
          "owner_sessions.device",
        ])
        .orderBy("owner_audit.id", "desc")
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        at: toIso(row.at),
        sessionId: row.session_id,
        device: row.session_id === null ? null : (row.device ?? unknownDevice),
        action: row.action,
        object: row.object,
      }));
    },
  };
}
