import { createHash, randomBytes } from "node:crypto";
import { sql, type Transaction } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { toIso } from "../lib/time.ts";
import { enqueue, forget } from "../outbox/queue.ts";
import {
  confirmationPayload,
  forgetVisitorAddresses,
  forgetWatches,
  watchMailKinds,
} from "./forget-watches.ts";
import type { ReplyNotifier, ThreadComment } from "./notifier.ts";

/**
 * Readers' reply mails (docs/product.md, "Reply mails"): the addresses they
 * leave, confirmed once by a POST from the confirmation mail's page, the
 * threads each follows, and the mails queued in the outbox when a reply is
 * published there.
 */

export const replyMailRules = {
  /** A confirmation link works this long. */
  tokenLifetimeMs: 48 * 60 * 60 * 1000,
  /** A pending address gets a new confirmation mail only after this long. */
  resendAfterMs: 24 * 60 * 60 * 1000,
  /** Confirmation mails one address may receive in a day, whoever asks. */
  maxConfirmationsPerAddressPerDay: 3,
  /** After a reply is mailed, further replies in its thread wait this long for one digest. */
  digestWindowMs: 10 * 60 * 1000,
  ipWindowMs: 60 * 60 * 1000,
} as const;

const dayMs = 24 * 60 * 60 * 1000;

/** 32 random bytes, base64url: what every link of these mails carries. */
export const replyTokenPattern = /^[A-Za-z0-9_-]{43}$/;
const newToken = () => randomBytes(32).toString("base64url");
export const tokenDigest = (token: string) => createHash("sha256").update(token).digest("hex");

/** What a reply mail's row carries: which reply, nothing else. */
export type ReplyMailPayload = { replyId: number };

const sameAddress = (email: string) => sql<string>`lower(${email})`;

export function createReplyWatches(
  store: Store,
  { clock, maxPerIpPerHour }: { clock: () => Date; maxPerIpPerHour: number },
) {
  const { db } = store;
  const listeners = new Set<() => void>();

  /** The address this visitor left, written in any case. */
  const addressOf = (trx: Transaction<Database> | Store["db"], visitorId: string, email: string) =>
    trx
      .selectFrom("reply_addresses")
      .select(["id", "status", "confirmation_sent_at"])
      .where("visitor_id", "=", visitorId)
      .where(sql<string>`lower(email)`, "=", sameAddress(email))
      .executeTakeFirst();

  /** Whether a watch at this address (none yet: undefined) would send a confirmation mail now. */
  function needsConfirmation(address: Awaited<ReturnType<typeof addressOf>>, now: Date): boolean {
    if (!address) return true;
    const sent = address.confirmation_sent_at;
    return (
      address.status !== "confirmed" &&
      !(sent && now.getTime() - new Date(sent).getTime() < replyMailRules.resendAfterMs)
    );
  }

  /** Whether the address had its day's share of confirmation mails already. */
  async function dayShareSent(
    trx: Transaction<Database>,
    email: string,
    now: Date,
  ): Promise<boolean> {
    const today = await trx
      .selectFrom("reply_addresses")
      .select((eb) => eb.fn.countAll().as("count"))
      .where(sql<string>`lower(email)`, "=", sameAddress(email))
      .where("confirmation_sent_at", ">", new Date(now.getTime() - dayMs).toISOString())
      .executeTakeFirstOrThrow();
    return Number(today.count) >= replyMailRules.maxConfirmationsPerAddressPerDay;
  }

  /**
   * Queues the confirmation mail of a pending address, unless the address
   * had its day's share already. `admit` refuses a request past the limit,
   * but requests admitted together, on several instances, each count before
   * any of them is stored: the limit is kept here, in the comment's own
   * transaction, where writers of one address take their turn (SQLite's
   * writes are one at a time; on PostgreSQL, an advisory lock per address).
   */
  async function queueConfirmation(
    trx: Transaction<Database>,
    addressId: number,
    email: string,
    now: Date,
  ) {
    if (store.kind === "postgres") {
      await sql`select pg_advisory_xact_lock(hashtext('reply confirmation'), hashtext(${sameAddress(email)}))`.execute(
        trx,
      );
    }
    if (await dayShareSent(trx, email, now)) return;
    const token = newToken();
    const at = now.toISOString();
    await trx
      .updateTable("reply_addresses")
      .set({
        confirm_token_hash: tokenDigest(token),
        confirm_expires_at: new Date(now.getTime() + replyMailRules.tokenLifetimeMs).toISOString(),
        confirmation_sent_at: at,
      })
      .where("id", "=", addressId)
      .execute();
    await enqueue(trx, at, [
      { kind: "reply_confirmation", email, token, payload: confirmationPayload(addressId) },
    ]);
  }

  async function targetOf(
    trx: Transaction<Database> | Store["db"],
    token: string,
  ): Promise<{ watchId: number | null; addressId: number } | null> {
    if (!replyTokenPattern.test(token)) return null;
    const watch = await trx
      .selectFrom("reply_watches")
      .select(["id", "address_id"])
      .where("unsubscribe_token", "=", token)
      .executeTakeFirst();
    if (watch) return { watchId: watch.id, addressId: watch.address_id };
    const address = await trx
      .selectFrom("reply_addresses")
      .select("id")
      .where("unsubscribe_token", "=", token)
      .executeTakeFirst();
    return address ? { watchId: null, addressId: address.id } : null;
  }

  /** Queues the mail about `reply` to one watch: at once, or in the digest when its window is open. */
  async function queueReplyMail(
    trx: Transaction<Database>,
    watch: { id: number; email: string; unsubscribe_token: string },
    replyId: number,
    now: Date,
  ) {
    const at = now.toISOString();
    const opened = await trx
      .updateTable("reply_watches")
      .set({
        window_ends_at: new Date(now.getTime() + replyMailRules.digestWindowMs).toISOString(),
      })
      .where("id", "=", watch.id)
      .where((eb) => eb.or([eb("window_ends_at", "is", null), eb("window_ends_at", "<=", at)]))
      .executeTakeFirst();
    let kind: "reply_notice" | "reply_digest" = "reply_notice";
    let due = at;
    if (Number(opened.numUpdatedRows) === 0) {
      const current = await trx
        .selectFrom("reply_watches")
        .select("window_ends_at")
        .where("id", "=", watch.id)
        .executeTakeFirstOrThrow();
      kind = "reply_digest";
      due = current.window_ends_at ? toIso(current.window_ends_at) : at;
    }
    const payload: ReplyMailPayload = { replyId };
    await enqueue(trx, at, [
      {
        kind,
        email: watch.email,
        token: watch.unsubscribe_token,
        payload: JSON.stringify(payload),
        due,
      },
    ]);
  }

  const notifier: ReplyNotifier = {
    async watch(trx, comment: ThreadComment, email) {
      const now = clock();
      const at = now.toISOString();
      const existing = await addressOf(trx, comment.visitorId, email);
      let addressId = existing?.id;
      if (!existing) {
        const inserted = await trx
          .insertInto("reply_addresses")
          .values({
            visitor_id: comment.visitorId,
            email,
            status: "pending",
            unsubscribe_token: newToken(),
            created_at: at,
          })
          .onConflict((oc) => oc.doNothing())
          .returning("id")
          .executeTakeFirst();
        if (inserted) await queueConfirmation(trx, inserted.id, email, now);
        // Or another request stored it meanwhile, and queued its confirmation.
        addressId = inserted?.id ?? (await addressOf(trx, comment.visitorId, email))?.id;
      } else if (needsConfirmation(existing, now)) {
        await queueConfirmation(trx, existing.id, email, now);
      }
      await trx
        .insertInto("reply_watches")
        .values({
          address_id: addressId as number,
          thread_id: comment.parentId ?? comment.id,
          comment_id: comment.id,
          unsubscribe_token: newToken(),
          created_at: at,
        })
        .onConflict((oc) => oc.doNothing())
        .execute();
    },

    async published(trx, comment) {
      // Only a reply is news to a thread's followers.
      if (comment.parentId === null) return;
      const watches = await trx
        .selectFrom("reply_watches")
        .innerJoin("reply_addresses", "reply_addresses.id", "reply_watches.address_id")
        .select([
          "reply_watches.id as id",
          "reply_watches.unsubscribe_token as unsubscribe_token",
          "reply_addresses.email as email",
        ])
        .where("reply_watches.thread_id", "=", comment.parentId)
        .where("reply_addresses.status", "=", "confirmed")
        // A reader is not told of their own replies.
        .where("reply_addresses.visitor_id", "!=", comment.visitorId)
        .orderBy("reply_watches.id")
        .execute();
      const now = clock();
      const mailed = new Set<string>();
      for (const watch of watches) {
        const key = watch.email.toLowerCase();
        if (mailed.has(key)) continue;
        mailed.add(key);
        await queueReplyMail(trx, watch, comment.id, now);
      }
    },

    /**
     * Before a comment asking for reply mails is stored: refuses when it would
     * send a confirmation mail past the limits, so the form cannot be used to
     * flood an inbox (per IP address, shared with the newsletter's, and per
     * address, whoever asks). Counts the request when it would send one.
     */
    async admit(input) {
      const now = clock();
      if (!needsConfirmation(await addressOf(db, input.visitorId, input.email), now)) return "ok";
      return db.transaction().execute(async (trx) => {
        const since = new Date(now.getTime() - replyMailRules.ipWindowMs).toISOString();
        const perIp = await trx
          .selectFrom("confirmation_requests")
          .select((eb) => eb.fn.countAll().as("count"))
          .where("ip", "=", input.ip)
          .where("created_at", ">", since)
          .executeTakeFirstOrThrow();
        if (Number(perIp.count) >= maxPerIpPerHour) return "ip_limited";
        if (await dayShareSent(trx, input.email, now)) return "address_limited";
        await trx
          .insertInto("confirmation_requests")
          .values({ ip: input.ip, created_at: now.toISOString() })
          .execute();
        return "ok";
      });
    },

    committed() {
      for (const listener of listeners) listener();
    },
  };

  return {
    notifier,
    onQueued(listener: () => void) {
      listeners.add(listener);
    },

    /** Confirms the address whose link holds `token`. */
    async confirm(token: string): Promise<"confirmed" | "unknown" | "expired"> {
      if (!replyTokenPattern.test(token)) return "unknown";
      const row = await db
        .selectFrom("reply_addresses")
        .select(["id", "confirm_expires_at"])
        .where("confirm_token_hash", "=", tokenDigest(token))
        .executeTakeFirst();
      if (!row) return "unknown";
      if (row.confirm_expires_at && new Date(row.confirm_expires_at) <= clock()) return "expired";
      const done = await db
        .updateTable("reply_addresses")
        .set({
          status: "confirmed",
          confirmed_at: clock().toISOString(),
          confirm_token_hash: null,
          confirm_expires_at: null,
        })
        .where("id", "=", row.id)
        .where("confirm_token_hash", "=", tokenDigest(token))
        .executeTakeFirst();
      return Number(done.numUpdatedRows) === 1 ? "confirmed" : "unknown";
    },

    /** What a link's token stops: one thread (a watch's token) or every reply mail (an address's). */
    unsubscribeTarget: (token: string) => targetOf(db, token),

    /** Stops the mails `token` names: its thread, or with `all` (or an address's token) every one. */
    async unsubscribe(token: string, scope: "thread" | "all"): Promise<"done" | "unknown"> {
      return db.transaction().execute(async (trx) => {
        const target = await targetOf(trx, token);
        if (!target) return "unknown" as const;
        if (target.watchId !== null && scope === "thread") {
          await forget(trx, { kinds: watchMailKinds, tokens: [token] });
          await trx.deleteFrom("reply_watches").where("id", "=", target.watchId).execute();
        } else {
          await forgetWatches(trx, { addressIds: [target.addressId] });
        }
        return "done" as const;
      });
    },

    /** Forgets every address a visitor left, with its mails ("Your data"); how many. */
    forgetVisitor(visitorId: string): Promise<number> {
      return db.transaction().execute((trx) => forgetVisitorAddresses(trx, visitorId));
    },

    /** The addresses a visitor left, with the threads each follows ("Your data"). */
    async ofVisitor(visitorId: string) {
      const rows = await db
        .selectFrom("reply_addresses")
        .leftJoin("reply_watches", "reply_watches.address_id", "reply_addresses.id")
        .select([
          "reply_addresses.email as email",
          "reply_addresses.status as status",
          "reply_addresses.created_at as created_at",
          "reply_watches.comment_id as comment_id",
        ])
        .where("reply_addresses.visitor_id", "=", visitorId)
        .orderBy("reply_addresses.id")
        .execute();
      const byEmail = new Map<
        string,
        { email: string; confirmed: boolean; createdAt: string; commentIds: number[] }
      >();
      for (const row of rows) {
        const entry = byEmail.get(row.email) ?? {
          email: row.email,
          confirmed: row.status === "confirmed",
          createdAt: toIso(row.created_at),
          commentIds: [],
        };
        if (row.comment_id !== null) entry.commentIds.push(row.comment_id);
        byEmail.set(row.email, entry);
      }
      return [...byEmail.values()];
    },
  };
}

export type ReplyWatches = ReturnType<typeof createReplyWatches>;
