import { type ExpressionBuilder, type Kysely, type RawBuilder, sql } from "kysely";
import type { Database, DatabaseKind } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { type AddressKey, domainsOf, mailboxDigest, mailboxOf } from "../lib/mailbox.ts";
import { dayMs, toIso } from "../lib/time.ts";
import { isToken, type StandingLinks, standingLinks, tokenDigest } from "../lib/tokens.ts";
import { forget } from "../outbox/forget.ts";
import { fillDigests } from "../outbox/suppressions.ts";
import { forgetWatches, watchMailKinds } from "./forget-watches.ts";

/**
 * Readers' reply mails (docs/product.md, "Reply mails"): their rules, and the
 * addresses they leave, confirmed once by a POST from the confirmation mail's
 * page, unsubscribed, shown and forgotten in "Your data". The watches and the
 * mails themselves are queued with the comment (publishing.ts).
 */

export const replyMailRules = {
  /** A confirmation link works this long. */
  tokenLifetimeMs: 48 * 60 * 60 * 1000,
  /** A pending address gets a new confirmation mail only after this long. */
  resendAfterMs: dayMs,
  /** A pending address is forgotten this long after its last confirmation mail. */
  forgetPendingAfterMs: 7 * dayMs,
  /** Confirmation mails one mailbox (every spelling) may receive in a day, whoever asks. */
  maxConfirmationsPerMailboxPerDay: 3,
  /** After a reply is mailed, further replies in its thread wait this long for one digest. */
  digestWindowMs: 10 * 60 * 1000,
} as const;

/** What a stop covers: the mailbox with dots only at Gmail (lib/mailbox.ts). */
const stopped = { loose: false } as const;

/** The mailbox an address reaches, as a stop, and a reply's one mail to it, count it. */
export const replyMailbox = (email: string) => mailboxOf(email, stopped);

/** The reply mails' keys from the cookie secret: a stopped mailbox's, and the stop links' (lib/tokens.ts). */
export const replyKeys = (secret: string) => ({
  mailboxKey: mailboxDigest(secret, "reply mails stopped", stopped),
  links: standingLinks(secret),
});

/** What a reply mail's row carries: which reply, nothing else. */
export type ReplyMailPayload = { replyId: number };

/** The name before the "@" that every spelling of a mailbox shares: lower case, without a "+tag" or dots. */
const nameOf = (kind: DatabaseKind, email: RawBuilder<string> | string) =>
  kind === "postgres"
    ? sql<string>`replace(split_part(split_part(lower(${email}), '@', 1), '+', 1), '.', '')`
    : sql<string>`replace(substr(lower(${email}), 1, instr(substr(${email}, 1, instr(${email}, '@') - 1) || '+', '+') - 1), '.', '')`;

/**
 * The addresses left for reply mails that may reach `email`'s mailbox: of its
 * name (`nameOf`, which migration 040 indexes, so a few rows are read, not
 * every one at Gmail), at its domain or another name of it (the forms take
 * plain ASCII domains, so no "%" or "_" widens it). Its caller compares the
 * mailboxes of the rows found.
 */
export const spellingsOf =
  (kind: DatabaseKind, email: string) => (eb: ExpressionBuilder<Database, "reply_addresses">) =>
    eb.and([
      eb(nameOf(kind, sql.ref("email")), "=", nameOf(kind, email)),
      eb.or(
        domainsOf(mailboxOf(email)).map((domain) => eb(sql`lower(email)`, "like", `%@${domain}`)),
      ),
    ]);

/**
 * Whether the reader of this mailbox (its `mailboxKey`) stopped all reply
 * mails: it is sent no confirmation mail, whoever types it, until the owner
 * lifts the stop (`suppressions lift`, at the reader's request).
 */
export async function isStopped(trx: Kysely<Database>, mailboxHash: string): Promise<boolean> {
  const row = await trx
    .selectFrom("reply_stops")
    .select("mailbox_hash")
    .where("mailbox_hash", "=", mailboxHash)
    .executeTakeFirst();
  return row !== undefined;
}

export function createReplyWatches(
  store: Store,
  {
    clock,
    mailboxKey,
    addressKey,
    links,
  }: {
    clock: () => Date;
    mailboxKey: (email: string) => string;
    /** The key an address is held under beside itself (`heldAddress`, lib/mailbox.ts). */
    addressKey: AddressKey;
    /** The stop links' maker: the database keeps their seeds (lib/tokens.ts). */
    links: StandingLinks;
  },
) {
  const { db } = store;

  async function targetOf(
    trx: Kysely<Database>,
    token: string,
  ): Promise<{ watchId: number | null; addressId: number; seed: string } | null> {
    if (!isToken(token)) return null;
    const seeds = links.seedsOf(token);
    const watch = await trx
      .selectFrom("reply_watches")
      .select(["id", "address_id", "unsubscribe_token"])
      .where("unsubscribe_token", "in", seeds)
      .executeTakeFirst();
    if (watch)
      return { watchId: watch.id, addressId: watch.address_id, seed: watch.unsubscribe_token };
    const address = await trx
      .selectFrom("reply_addresses")
      .select(["id", "unsubscribe_token"])
      .where("unsubscribe_token", "in", seeds)
      .executeTakeFirst();
    return address
      ? { watchId: null, addressId: address.id, seed: address.unsubscribe_token }
      : null;
  }

  const addresses = (trx: Kysely<Database>) => trx.selectFrom("reply_addresses").select("id");
  type Addresses = ReturnType<typeof addresses>;
  /** Forgets the addresses `which` selects, with their watches and mails; how many. */
  const forgetAddresses = (which: (all: Addresses) => Addresses): Promise<number> =>
    db.transaction().execute(async (trx) => {
      const rows = await which(addresses(trx)).execute();
      return forgetWatches(trx, { addressIds: rows.map((row) => row.id) });
    });

  return {
    /**
     * Confirms the address whose link holds `token`. The link's digest stays
     * with the confirmed address, so pressing it again says it was used.
     */
    async confirm(token: string): Promise<"confirmed" | "already" | "unknown" | "expired"> {
      if (!isToken(token)) return "unknown";
      const row = await db
        .selectFrom("reply_addresses")
        .select(["id", "status", "confirm_expires_at"])
        .where("confirm_token_hash", "=", tokenDigest(token))
        .executeTakeFirst();
      if (!row) return "unknown";
      if (row.status === "confirmed") return "already";
      if (row.confirm_expires_at && new Date(row.confirm_expires_at) <= clock()) return "expired";
      const done = await db
        .updateTable("reply_addresses")
        .set({ status: "confirmed", confirmed_at: clock().toISOString(), confirm_expires_at: null })
        .where("id", "=", row.id)
        .where("status", "=", "pending")
        .executeTakeFirst();
      return Number(done.numUpdatedRows) === 1 ? "confirmed" : "already";
    },

    /** What a link's token stops: one thread (a watch's token) or every reply mail (an address's). */
    unsubscribeTarget: (token: string) => targetOf(db, token),

    /**
     * Stops the mails `token` names: its thread, or with `all` (or an address's
     * token) every one to its mailbox, whichever browser left it and however spelt.
     */
    async unsubscribe(token: string, scope: "thread" | "all"): Promise<"done" | "unknown"> {
      return db.transaction().execute(async (trx) => {
        const target = await targetOf(trx, token);
        if (!target) return "unknown" as const;
        if (target.watchId !== null && scope === "thread") {
          await forget(trx, { kinds: watchMailKinds, tokens: [target.seed] });
          await trx.deleteFrom("reply_watches").where("id", "=", target.watchId).execute();
        } else {
          // The link came to the mailbox: every record of it goes, whichever
          // browser left it and however spelt, but for a digest that keeps
          // strangers from asking it mails again. A spelling an older
          // instance wrote without its digest is given it first.
          await fillDigests(trx, addressKey, ["reply_addresses"]);
          const { email, email_hash } = await trx
            .selectFrom("reply_addresses")
            .select(["email", "email_hash"])
            .where("id", "=", target.addressId)
            .executeTakeFirstOrThrow();
          await trx
            .insertInto("reply_stops")
            .values({ mailbox_hash: mailboxKey(email), created_at: clock().toISOString() })
            .onConflict((oc) => oc.column("mailbox_hash").doNothing())
            .execute();
          // Every spelling of the mailbox holds its digest (`heldAddress`, lib/mailbox.ts).
          const same = await trx
            .selectFrom("reply_addresses")
            .select("id")
            .where((eb) =>
              eb.or([eb("email_hash", "=", email_hash), eb("id", "=", target.addressId)]),
            )
            .execute();
          await forgetWatches(trx, { addressIds: same.map((row) => row.id) });
        }
        return "done" as const;
      });
    },

    /** Lets a stopped mailbox be sent confirmation mails again; false when it was not stopped. */
    async resume(email: string, within = db): Promise<boolean> {
      const gone = await within
        .deleteFrom("reply_stops")
        .where("mailbox_hash", "=", mailboxKey(email))
        .executeTakeFirst();
      return Number(gone.numDeletedRows) > 0;
    },

    /**
     * Forgets the addresses never confirmed a week after their last
     * confirmation mail (or their making, when the day's share of mails had
     * gone), with their watches, as the newsletter forgets its own: whoever
     * typed one, its mailbox never agreed. A thousand a run; how many.
     */
    prune(): Promise<number> {
      const before = new Date(clock().getTime() - replyMailRules.forgetPendingAfterMs);
      return forgetAddresses((addresses) =>
        addresses
          .where("status", "=", "pending")
          .where((eb) =>
            eb(eb.fn.coalesce("confirmation_sent_at", "created_at"), "<=", before.toISOString()),
          )
          .limit(1000),
      );
    },

    /** Forgets every address a visitor left, with its mails ("Your data"); how many. */
    forgetVisitor: (visitorId: string): Promise<number> =>
      forgetAddresses((addresses) => addresses.where("visitor_id", "=", visitorId)),

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
      return [...Map.groupBy(rows, (row) => row.email).values()].map((watches) => {
        const { email, status, created_at } = watches[0]!;
        return {
          email,
          confirmed: status === "confirmed",
          createdAt: toIso(created_at),
          commentIds: watches.flatMap(({ comment_id }) =>
            comment_id === null ? [] : [comment_id],
          ),
        };
      });
    },
  };
}

export type ReplyWatches = ReturnType<typeof createReplyWatches>;
