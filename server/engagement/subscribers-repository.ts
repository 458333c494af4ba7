import { sql, type Transaction } from "kysely";
import type { ConsoleSubscriber } from "../../contract/console.ts";
import {
  hourShareSent,
  recordConfirmationRequest,
  type Sender,
  type SenderLimited,
  takeSenderTurns,
} from "../comments/confirmation-limits.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { transact } from "../db/owner-actor.ts";
import type { Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { takeTurn } from "../db/turns.ts";
import { type AddressKey, heldAddress, keptDomain, readableAddress } from "../lib/mailbox.ts";
import { dayMs, nowIso, toIso } from "../lib/time.ts";
import { newSeed, newToken, type StandingLinks, tokenDigest } from "../lib/tokens.ts";
import { keepWithoutAddress, mailboxOfEdition } from "../outbox/erased-copies.ts";
import { anyStatus, forget } from "../outbox/forget.ts";
import { enqueue } from "../outbox/queue.ts";
import { reconfirmableSubscribers } from "./imported-subscribers.ts";
import { forgetOnLeaving, hourlyForgetting, pruneUnconfirmed } from "./subscribers-retention.ts";

type Subscriber = { email: string; unsubscribeToken: string; subscribedAt: string };
type SubscriberKeys = {
  addressKey: AddressKey;
  links: StandingLinks;
  /** The time a leaving and the hourly pruning go by (the tests move it). */
  clock?: () => Date;
};

/** docs/product.md, "Newsletter": the double opt-in's periods. */
const confirmationRules = {
  /** A confirmation link works this long. */
  tokenLifetimeMs: 48 * 60 * 60 * 1000,
  /** A mailbox, however its address is spelled, gets at most one confirmation mail in this period. */
  resendAfterMs: dayMs,
  /** Addresses never confirmed are forgotten this long after their last confirmation mail. */
  forgetPendingAfterMs: 7 * dayMs,
} as const;

type SubscribeOutcome =
  /** A pending address's confirmation mail, or a confirmed one's notice, is queued in the outbox. */
  | "confirmation_queued"
  /** Its mailbox, in any spelling, had a confirmation mail in the last 24 h: nothing stored or sent. */
  | "confirmation_recent"
  /** The IP address, or its network, caused its hourly share of confirmation mails: nothing stored or sent. */
  | SenderLimited;

type ConfirmOutcome = "confirmed" | "unknown" | "expired" | "used";
export type SubscribersRepository = ReturnType<typeof createSubscribersRepository>;

/** Keeps the seed of a removed subscription's link, so the link still answers "unsubscribed". */
async function rememberSeed(trx: Transaction<Database>, seed: string) {
  await trx
    .insertInto("unsubscribed_tokens")
    .values({ token: seed, unsubscribed_at: nowIso() })
    .onConflict((conflict) => conflict.column("token").doNothing())
    .execute();
}

/** The payload that marks a confirmation mail as `newsletter reconfirm`'s: counted, and worded as such. */
export const reconfirmation = JSON.stringify({ reconfirm: true });

/** The payload that marks a confirmation mail as the notice to a subscribed address: no link. */
export const alreadySubscribed = JSON.stringify({ already: true });

/**
 * A new confirmation link for a pending address, and its mail in the outbox,
 * in the caller's transaction: the mail is queued exactly when the link is.
 */
async function queueConfirmation(
  trx: Transaction<Database>,
  subscriber: { id: number; email: string },
  now: Date,
  payload: string | null = null,
): Promise<void> {
  const nowText = now.toISOString();
  await trx
    .updateTable("subscribers")
    .set({ confirmation_sent_at: nowText })
    .where("id", "=", subscriber.id)
    .execute();
  if (payload === alreadySubscribed) {
    await enqueue(trx, nowText, [{ kind: "confirmation", email: subscriber.email, payload }]);
    return;
  }
  const token = newToken();
  await trx
    .insertInto("confirmation_tokens")
    .values({
      token_hash: tokenDigest(token),
      subscriber_id: subscriber.id,
      expires_at: new Date(now.getTime() + confirmationRules.tokenLifetimeMs).toISOString(),
    })
    .execute();
  await enqueue(trx, nowText, [{ kind: "confirmation", email: subscriber.email, token, payload }]);
}

/** Deletes the subscription of an address in any letter case, its link still answering; false when absent. */
async function unsubscribeAddress(trx: Transaction<Database>, email: string): Promise<boolean> {
  const removed = await trx
    .deleteFrom("subscribers")
    // The same folding as the unique index on lower(email), which serves the lookup.
    .where(sql<string>`lower(email)`, "=", sql<string>`lower(${email.trim()})`)
    .returning("unsubscribe_token")
    .executeTakeFirst();
  if (removed) await rememberSeed(trx, removed.unsubscribe_token);
  return removed !== undefined;
}

/** `links` makes a subscription's unsubscribe link from the seed the database keeps (lib/tokens.ts). */
export function createSubscribersRepository(
  store: Store,
  { addressKey, links, clock = () => new Date() }: SubscriberKeys,
) {
  const { db } = store;
  const forgetLeft = hourlyForgetting(db, addressKey);
  /** A reader's leaving: their mails past late reports forgotten in its transaction. */
  const left = (trx: Transaction<Database>, email: string) =>
    forgetOnLeaving(trx, addressKey, [email], clock());
  /** A confirmation link's token, with its subscriber. */
  const confirmation = (reader: typeof db, token: string) =>
    reader
      .selectFrom("confirmation_tokens")
      .innerJoin("subscribers", "subscribers.id", "confirmation_tokens.subscriber_id")
      .select(["subscriber_id", "expires_at", "used_at"])
      .where("token_hash", "=", tokenDigest(token))
      .executeTakeFirst();

  /** Whom `newsletter reconfirm` would ask now (./imported-subscribers.ts). */
  const reconfirmable = (now = new Date()) =>
    reconfirmableSubscribers(
      db,
      new Date(now.getTime() - confirmationRules.resendAfterMs).toISOString(),
    );

  return {
    /**
     * The first step of the double opt-in (docs/product.md, "Newsletter"). A
     * new address becomes pending with a fresh unsubscribe link's seed; a
     * pending one gets a new confirmation link unless its mailbox, in any
     * spelling (lib/mailbox.ts), had one in the last 24 hours. A confirmed one
     * is answered the same, under the same limits, and its mailbox is told
     * instead that it is subscribed already: the answer tells nobody whether
     * an address is on the list. The mail is queued in the same transaction:
     * an answered request is never a lost mail.
     */
    async subscribe(
      email: string,
      { sender, maxPerIpPerHour }: { sender: Sender; maxPerIpPerHour: number },
    ): Promise<SubscribeOutcome> {
      const attempt = () =>
        db.transaction().execute(async (trx): Promise<SubscribeOutcome> => {
          // Counted in turn with the others from the network, then for the mailbox: every
          // spelling of it (letter case, a "+tag", Gmail's dots) is one digest.
          const held = heldAddress(addressKey, email);
          await takeSenderTurns(store.kind, trx, sender);
          await takeTurn(store.kind, trx, "subscription address", held.email_hash);
          const now = new Date();
          const existing = await trx
            .selectFrom("subscribers")
            .select(["id", "status", "email"])
            .where(sql<string>`lower(email)`, "=", sql<string>`lower(${email})`)
            .executeTakeFirst();
          // One confirmation mail a day to a mailbox, to whichever spelling asked.
          const since = new Date(now.getTime() - confirmationRules.resendAfterMs).toISOString();
          const mailedToday = await trx
            .selectFrom("subscribers")
            .select("id")
            .where("email_hash", "=", held.email_hash)
            .where("confirmation_sent_at", ">", since)
            .executeTakeFirst();
          if (mailedToday) return "confirmation_recent";
          const limited = await hourShareSent(trx, sender, now, maxPerIpPerHour);
          if (limited) return limited;

          const nowText = now.toISOString();
          const subscriberId =
            existing?.id ??
            (
              await trx
                .insertInto("subscribers")
                .values({
                  ...held,
                  unsubscribe_token: newSeed(),
                  created_at: nowText,
                  status: "pending",
                })
                .returning("id")
                .executeTakeFirstOrThrow()
            ).id;
          // A subscribed address is told so at the spelling it subscribed with.
          const listed = existing?.status === "confirmed" ? existing : undefined;
          await queueConfirmation(
            trx,
            { id: subscriberId, email: listed?.email ?? email },
            now,
            listed && alreadySubscribed,
          );
          await recordConfirmationRequest(trx, sender, nowText);
          return "confirmation_queued";
        });
      try {
        return await attempt();
      } catch (error) {
        // Two requests for one new address at once: the loser finds the winner's row.
        if (isUniqueViolation(error)) return attempt();
        throw error;
      }
    },

    /** What a confirmation link's token can still do, without using it. */
    async confirmationState(token: string): Promise<"pending" | "used" | "expired" | "unknown"> {
      const row = await confirmation(db, token);
      if (!row) return "unknown";
      if (row.used_at !== null) return "used";
      return new Date(row.expires_at).getTime() <= Date.now() ? "expired" : "pending";
    },

    /** The second step: a confirmation link's token, usable once within 48 hours. */
    async confirm(token: string): Promise<ConfirmOutcome> {
      return db.transaction().execute(async (trx) => {
        const now = nowIso();
        const row = await confirmation(trx, token);
        if (!row) return "unknown";
        if (row.used_at !== null) return "used";
        if (new Date(row.expires_at).getTime() <= Date.parse(now)) return "expired";
        const claimed = await trx
          .updateTable("confirmation_tokens")
          .set({ used_at: now })
          .where("token_hash", "=", tokenDigest(token))
          .where("used_at", "is", null)
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) !== 1) return "used";
        await trx
          .updateTable("subscribers")
          .set({ status: "confirmed", confirmed_at: now })
          .where("id", "=", row.subscriber_id)
          .where("status", "=", "pending")
          .execute();
        return "confirmed";
      });
    },

    /**
     * Removes the subscription whose link holds `token`. A link whose subscription ended
     * removes the one its mailbox made since, as the button of the mail it came in promises
     * (an edition's copy keeps the link's seed and its mailbox, server/outbox/erased-copies.ts);
     * with none: "already".
     */
    async unsubscribe(token: string): Promise<"unsubscribed" | "already" | "unknown"> {
      const seeds = links.seedsOf(token);
      if (seeds.length === 0) return "unknown";
      return db.transaction().execute(async (trx) => {
        const end = async (removed: { unsubscribe_token: string; email: string } | undefined) => {
          if (!removed) return false;
          await rememberSeed(trx, removed.unsubscribe_token);
          await left(trx, removed.email);
          return true;
        };
        const removing = trx.deleteFrom("subscribers").returning(["unsubscribe_token", "email"]);
        if (await end(await removing.where("unsubscribe_token", "in", seeds).executeTakeFirst()))
          return "unsubscribed";
        const used = await trx
          .selectFrom("unsubscribed_tokens")
          .select("token")
          .where("token", "in", seeds)
          .executeTakeFirst();
        if (!used) return "unknown";
        const mailbox = await mailboxOfEdition(trx, seeds, addressKey);
        if (!mailbox) return "already";
        await takeTurn(store.kind, trx, "subscription address", mailbox);
        const since = await removing.where("email_hash", "=", mailbox).executeTakeFirst();
        return (await end(since)) ? "unsubscribed" : "already";
      });
    },

    /** Every confirmed subscriber, oldest first: who receives editions and the export. */
    async list(): Promise<Subscriber[]> {
      const rows = await db
        .selectFrom("subscribers")
        .select(["email", "unsubscribe_token", "created_at", "confirmed_at"])
        .where("status", "=", "confirmed")
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map((row) => ({
        email: row.email,
        unsubscribeToken: links.tokenOf(row.unsubscribe_token),
        subscribedAt: toIso(row.confirmed_at ?? row.created_at),
      }));
    },

    /** Every address with its state, pending ones included, oldest first. */
    async listStates(): Promise<Omit<ConsoleSubscriber, "suppressed">[]> {
      const rows = await db
        .selectFrom("subscribers")
        .select(["email", "status", "created_at as createdAt", "confirmed_at as confirmedAt"])
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map((row) => ({
        ...row,
        email: readableAddress(row.email),
        createdAt: toIso(row.createdAt),
        confirmedAt: row.confirmedAt === null ? null : toIso(row.confirmedAt),
      }));
    },

    /**
     * Removes an address in any letter case, as the owner's command (a privacy
     * request), with its confirmation mails and the address of each edition's
     * copy (`keepWithoutAddress`): subscribing again, it is not sent one twice.
     * False when none was there. Its suppression stays, which keeps no address
     * (server/outbox/suppressions.ts): a complained or refused address is
     * mailed nothing again until the owner lifts it by name.
     */
    async remove(typed: string, within = db): Promise<boolean> {
      const email = keptDomain(typed);
      return transact(within, async (trx) => {
        const removed = await unsubscribeAddress(trx, email);
        const mails = await forget(trx, { kinds: ["confirmation"], addresses: [email] });
        const digest = heldAddress(addressKey, email).email_hash;
        const copies = await keepWithoutAddress(trx, email, digest);
        return removed || mails + copies > 0;
      });
    },

    /**
     * Unsubscribes an address in any letter case, as its own link would (a
     * complaint does): the record of the mails sent to it stays, with what
     * they drew, until late reports are over. False when it was not subscribed.
     */
    unsubscribeAddress: (email: string) =>
      db.transaction().execute(async (trx) => {
        const removed = await unsubscribeAddress(trx, email);
        if (removed) await left(trx, email);
        return removed;
      }),

    /** Confirmed subscribers. */
    async count(): Promise<number> {
      const { count } = await db
        .selectFrom("subscribers")
        .select((eb) => eb.fn.countAll().as("count"))
        .where("status", "=", "confirmed")
        .executeTakeFirstOrThrow();
      return Number(count);
    },

    reconfirmable,

    /**
     * How many requests to confirm `reconfirmImported` queued after `since`, or
     * ever when it is null; not those the form queued.
     */
    async reconfirmedAfter(since: string | null): Promise<number> {
      const { n } = await db
        .selectFrom("outbox")
        .select((eb) => eb.fn.countAll().as("n"))
        .where(anyStatus)
        .where("kind", "=", "confirmation")
        .where("payload", "=", reconfirmation)
        .$if(since !== null, (query) => query.where("created_at", ">", since as string))
        .executeTakeFirstOrThrow();
      return Number(n);
    },

    /**
     * The re-confirmation campaign for an imported list (docs/product.md,
     * "Moving in and out"): each address gets a confirmation mail through the
     * outbox, a batch per transaction, and is forgotten a week later unless
     * its owner confirms, as any unconfirmed address is.
     */
    async reconfirmImported(now = new Date()): Promise<number> {
      let queued = 0;
      // Each batch after the last one's ids: none before is asked again, nor read again.
      for (let after = 0; ; ) {
        const batch = await reconfirmable(now)
          .where("subscribers.id", ">", after)
          .limit(500)
          .execute();
        if (batch.length === 0) return queued;
        after = batch.at(-1)?.id ?? after;
        await db.transaction().execute(async (trx) => {
          for (const subscriber of batch)
            await queueConfirmation(trx, subscriber, now, reconfirmation);
        });
        queued += batch.length;
      }
    },

    /** The hourly pruning (./subscribers-retention.ts): the unconfirmed, then readers who left. */
    async prune(): Promise<void> {
      await pruneUnconfirmed(db, addressKey, confirmationRules.forgetPendingAfterMs, clock());
      await forgetLeft(clock());
    },
  };
}
