import { randomBytes } from "node:crypto";
import type { Availability } from "../../contract/bookings.ts";
import { transact } from "../db/owner-actor.ts";
import type { Db, Store } from "../db/store.ts";
import { dayMs, toIso, weeksAround } from "../lib/time.ts";
import { tokenDigest } from "../lib/tokens.ts";
import { bookingLimits, type ConnectionFull, type DayLimit, type MailboxFull } from "./limits.ts";
import { forgetNotMade } from "./not-made.ts";
import * as mails from "./queued-mails.ts";
import { createBookingSettings } from "./settings-repository.ts";
import { type BookingRow, type LinkToken, type StoredBooking, toStored } from "./stored.ts";

/**
 * Where bookings live (docs/product.md, "Book a call"): a booking is written
 * in one transaction with every mail it causes (queued-mails.ts), and a
 * cancellation or a move drops the mails still queued in its own.
 */

type NewBooking = {
  start: Date;
  end: Date;
  name: string;
  email: string;
  service: string;
  note: string;
  readerZone: string;
  meetingUrl: string | null;
  visitorId: string | null;
  ipHash: string;
  networkHash: string;
  addressHash: string;
  uidHost: string;
  /** Where the owner's invitation and reminders go; none without it. */
  ownerEmail: string | undefined;
  links: LinkToken;
  /** The hour the limits count: one booking in it per mailbox, `perConnection` per connection (and as many ahead). */
  hourAgo: Date;
  perConnection: number;
  /** The most calls one mailbox may hold ahead. */
  perMailbox: number;
  day: DayLimit;
  /** The owner's hours the time was checked against. */
  hours: Availability;
  /** Whether the time is still clear of the owner's busy times as last read (`orTaken`). */
  stillFree: () => boolean;
};

/** A call's new time, checked against the owner's hours `hours`. */
type Move = { start: Date; end: Date; ownerEmail: string | undefined; hours: Availability };
/** Who moved the call: the owner's reason, or the reader's time it was moved from. */
type MovedHow = { reason?: string | null; from?: string };

export function createBookingsRepository(store: Store, clock: () => Date = () => new Date()) {
  const { db } = store;
  const settings = createBookingSettings(store, clock);
  const { orTaken } = settings;

  /** Bookings, and the mails about them, go together, in one transaction. */
  function deleteWhere(rows: { id: number }[], keepQueuedCancellations = false, within: Db = db) {
    const ids = rows.map((row) => row.id);
    return transact(within, async (trx) => {
      let deleted = 0;
      for (let start = 0; start < ids.length; start += 200) {
        const chunk = ids.slice(start, start + 200);
        await mails.forgetMails(trx, chunk, keepQueuedCancellations);
        const result = await trx.deleteFrom("bookings").where("id", "in", chunk).executeTakeFirst();
        deleted += Number(result.numDeletedRows);
      }
      return deleted;
    });
  }

  /**
   * The call at its new time and sequence, if it is still booked at `current.sequence` (else
   * undefined: moved or cancelled meanwhile); with a token, the reader's (a new one), without,
   * the owner's move, which keeps the reader's and counts itself.
   */
  async function movedRow(
    trx: Db,
    current: { id: number; sequence: number | string },
    move: Move,
    to: { sequence: number; token_hash?: string },
  ) {
    await mails.holdQueued(trx, current.id, store.kind);
    return trx
      .updateTable("bookings")
      .set((eb) => ({
        starts_at: move.start.toISOString(),
        ends_at: move.end.toISOString(),
        ...to,
        ...(to.token_hash === undefined ? { owner_moves: eb("owner_moves", "+", 1) } : {}),
        updated_at: clock().toISOString(),
      }))
      .where("id", "=", current.id)
      .where("sequence", "=", Number(current.sequence))
      .where("status", "=", "booked")
      .returningAll()
      .executeTakeFirst();
  }

  /** A moved call's mails (`queueMoved`). */
  async function moved(trx: Db, row: BookingRow, move: Move, how: MovedHow) {
    const booking = toStored(row);
    await mails.queueMoved(trx, clock(), booking, move, how);
    return booking;
  }

  const limits = bookingLimits(store, clock);
  /** Whole booking rows, for `toStored`. */
  const bookings = (trx: Db = db) => trx.selectFrom("bookings").selectAll();

  const repository = {
    ...settings,

    /** Calls still booked that end after `from`. */
    async taken(from: Date): Promise<{ start: number; end: number }[]> {
      const rows = await db
        .selectFrom("bookings")
        .select(["starts_at", "ends_at"])
        .where("status", "=", "booked")
        .where("ends_at", ">", from.toISOString())
        .execute();
      return rows.map((row) => ({
        start: Date.parse(toIso(row.starts_at)),
        end: Date.parse(toIso(row.ends_at)),
      }));
    },

    /**
     * Stores a booking with its mails. "taken" when the database refused it
     * because another reader holds that start (the unique index), on this
     * instance or any other, or its day is full; "mailbox" when its mailbox was booked for
     * within the hour, "mailbox today" as often as a day allows, "mailbox ahead" when it
     * holds `perMailbox` calls ahead; "connection" when its connection made
     * its most bookings in the hour, "connection ahead" when it holds that
     * many calls ahead, "network" and "network ahead" the same of its
     * network. The limits are counted in the booking's transaction,
     * in turn with the others counting the same.
     */
    async create(
      input: NewBooking,
    ): Promise<{ id: number } | "taken" | MailboxFull | ConnectionFull> {
      const at = clock().toISOString();
      const uid = `booking.${randomBytes(12).toString("hex")}@${input.uidHost}`;
      return orTaken(input, async (trx) => {
        const full = await limits.connectionFull(trx, input, input.hourAgo, input.perConnection);
        if (full) return full;
        const mailbox = await limits.mailboxFull(trx, input);
        if (mailbox) return mailbox;
        if (await limits.dayFull(trx, input.start, input.day)) return "taken";
        const { id } = await trx
          .insertInto("bookings")
          .values({
            starts_at: input.start.toISOString(),
            ends_at: input.end.toISOString(),
            name: input.name,
            email: input.email,
            service: input.service,
            note: input.note,
            reader_zone: input.readerZone,
            uid,
            meeting_url: input.meetingUrl,
            token_hash: tokenDigest(input.links({ uid, sequence: 0 })),
            visitor_id: input.visitorId,
            ip_hash: input.ipHash,
            network_hash: input.networkHash,
            address_hash: input.addressHash,
            created_at: at,
            updated_at: at,
          })
          .returning("id")
          .executeTakeFirstOrThrow();
        await limits.made(trx, input, at);
        const call = { id, email: input.email, start: input.start, sequence: 0 };
        await mails.queueInvitations(trx, clock(), call, input.ownerEmail);
        return { id };
      });
    },

    /**
     * Moves a booking to a new time by its links' token, which is spent: the
     * new invitation (the same UID, SEQUENCE one higher) carries the next.
     * "taken" when another reader holds that start, or its day is full (the
     * call itself not counted), or the owner moved the call since the time was
     * checked against it at `seen`, its sequence then; undefined when the token
     * is not known (used, or the call cancelled).
     */
    async reschedule(
      token: string,
      seen: number,
      move: Move & { links: LinkToken; day: DayLimit; stillFree: () => boolean },
    ): Promise<StoredBooking | "taken" | undefined> {
      return orTaken(move, async (trx) => {
        const current = await trx
          .selectFrom("bookings")
          .select(["id", "uid", "sequence", "owner_moves", "starts_at"])
          .where("token_hash", "=", tokenDigest(token))
          .where("status", "=", "booked")
          .executeTakeFirst();
        if (!current) return undefined;
        if (Number(current.sequence) !== seen) return "taken";
        if (await limits.dayFull(trx, move.start, move.day, current.id)) return "taken";
        const ownerMoves = Number(current.owner_moves);
        const sequence = Number(current.sequence) + 1;
        const next = tokenDigest(move.links({ uid: current.uid, sequence, ownerMoves }));
        const row = await movedRow(trx, current, move, { sequence, token_hash: next });
        // Cancelled by another request meanwhile, or moved by the reader (the token is spent),
        // or by the owner, whose time stands: taken.
        if (!row) return (await repository.byToken(token, trx)) ? "taken" : undefined;
        return moved(trx, row, move, { from: toIso(current.starts_at) });
      });
    },

    /**
     * The owner's move of a booked call (server/bookings/owner-actions.ts), in one transaction
     * with `alongside` (its line of the audit trail): the reader's links stay as they are, and
     * the reader's invitation says the owner moved it, and why (`reason`). "taken" as a
     * reader's move; "changed" when the call was moved or cancelled since it was read at
     * `sequence`.
     */
    async moveByOwner(
      id: number,
      sequence: number,
      move: Move & { reason: string | null },
      alongside: (trx: Db) => Promise<void>,
    ): Promise<StoredBooking | "taken" | "changed"> {
      const done = await orTaken(move, async (trx) => {
        const row = await movedRow(trx, { id, sequence }, move, { sequence: sequence + 1 });
        if (!row) return "changed" as const;
        await alongside(trx);
        return moved(trx, row, move, { reason: move.reason });
      });
      return done;
    },

    /**
     * Cancels a call still booked, by its id (the owner) or its links' token
     * (the reader): what was queued for it goes, the cancellations are
     * queued to both sides. Undefined when there was no such booked call.
     */
    async cancel(
      which: { id: number } | { token: string },
      by: { who: "reader" | "owner"; message: string | null; ownerEmail: string | undefined },
      within: Db = db,
    ): Promise<StoredBooking | undefined> {
      return transact(within, async (trx) => {
        const id = "id" in which ? which.id : (await repository.byToken(which.token, trx))?.id;
        if (id === undefined) return undefined;
        await mails.holdQueued(trx, id, store.kind);
        const row = await trx
          .updateTable("bookings")
          .set((eb) => ({
            status: "cancelled" as const,
            sequence: eb("sequence", "+", 1),
            token_hash: null,
            cancelled_by: by.who,
            cancel_message: by.message,
            updated_at: clock().toISOString(),
          }))
          .where("id", "=", id)
          .$if("token" in which, (q) =>
            q.where("token_hash", "=", "token" in which ? tokenDigest(which.token) : ""),
          )
          .where("status", "=", "booked")
          .returningAll()
          .executeTakeFirst();
        if (!row) return undefined;
        const booking = toStored(row);
        const call = { by: by.who, message: by.message };
        await mails.queueCancellations(trx, clock(), booking, call, by.ownerEmail);
        return booking;
      });
    },

    async get(id: number, trx: Db = db): Promise<StoredBooking | undefined> {
      const row = await bookings(trx).where("id", "=", id).executeTakeFirst();
      return row ? toStored(row) : undefined;
    },

    /** The booked call a reader's link names; undefined when the link is spent or unknown. */
    async byToken(token: string, trx: Db = db): Promise<StoredBooking | undefined> {
      const row = await bookings(trx)
        .where("token_hash", "=", tokenDigest(token))
        .where("status", "=", "booked")
        .executeTakeFirst();
      return row ? toStored(row) : undefined;
    },

    /**
     * Upcoming calls soonest first, or past ones latest first (cancelled ones
     * among them): by their end, so that a page of them is the end of its
     * index (migration 042), not every past call sorted.
     */
    async list(when: "upcoming" | "past", limit = 500): Promise<StoredBooking[]> {
      const now = clock().toISOString();
      const rows = await bookings()
        .$if(when === "upcoming", (q) => q.where("ends_at", ">", now).orderBy("starts_at", "asc"))
        .$if(when === "past", (q) => q.where("ends_at", "<=", now).orderBy("ends_at", "desc"))
        .orderBy("id")
        .limit(limit)
        .execute();
      return rows.map(toStored);
    },

    /** Every booking from a time on, for the owner's calendar feed. */
    async since(from: Date): Promise<StoredBooking[]> {
      const rows = await bookings()
        .where("ends_at", ">", from.toISOString())
        .orderBy("starts_at")
        .limit(5000)
        .execute();
      return rows.map(toStored);
    },

    /**
     * Calls booked per week (from Monday's midnight in `zone`, by the call's
     * start), over the last `weeks` and those ahead up to the booking horizon's,
     * at least 4 (30 days from a Saturday reach a fifth week).
     */
    async perWeek(weeks: number, zone: string): Promise<{ week: string; count: number }[]> {
      const now = clock();
      const { horizonDays } = await repository.availability();
      const horizon = new Date(now.getTime() + horizonDays * dayMs);
      const ahead = Math.max(4, weeksAround(now, 1, 0, zone).indexOf(horizon));
      const range = weeksAround(now, weeks, ahead, zone);
      const rows = await db
        .selectFrom("bookings")
        .select("starts_at")
        .where("status", "=", "booked")
        .where("starts_at", ">=", range.from)
        .where("starts_at", "<", range.to)
        .execute();
      const result = range.starts.map((week) => ({ week, count: 0 }));
      for (const row of rows) {
        const bucket = result[range.indexOf(row.starts_at)];
        if (bucket) bucket.count += 1;
      }
      return result;
    },

    /** A browser's own bookings ("Your data"). */
    async byVisitor(visitorId: string): Promise<StoredBooking[]> {
      const rows = await bookings()
        .where("visitor_id", "=", visitorId)
        .orderBy("starts_at")
        .execute();
      return rows.map(toStored);
    },

    /**
     * Deletes a browser's bookings ("Your data"). A call still ahead is
     * cancelled first, so both sides' calendars hear of it: its cancellations
     * carry what they need in their payload and stay queued; the booking and
     * everything else about it go at once.
     */
    async deleteByVisitor(visitorId: string, ownerEmail: string | undefined): Promise<number> {
      const mine = await db
        .selectFrom("bookings")
        .select(["id", "status", "starts_at"])
        .where("visitor_id", "=", visitorId)
        .execute();
      const now = clock().toISOString();
      for (const row of mine) {
        // One that has begun is kept in both calendars as it is, as its links would keep it.
        if (row.status === "booked" && toIso(row.starts_at) > now) {
          await repository.cancel({ id: row.id }, { who: "reader", message: null, ownerEmail });
        }
      }
      return deleteWhere(mine, true);
    },

    /**
     * The owner's deletion of a past or cancelled call: a cancellation still queued
     * (the reader's server said "later") stays and goes, or the call stays in their calendar.
     */
    delete: async (id: number, within?: Db): Promise<boolean> =>
      (await deleteWhere([{ id }], true, within)) > 0,

    /**
     * Retention: bookings whose call ended more than `days` ago go, with their mails, in
     * `within`; the news of bookings not made, after a day; what the limits count, after the hour.
     */
    async prune(days: number, within: Db = db): Promise<number> {
      await forgetNotMade(within, new Date(clock().getTime() - dayMs));
      await limits.forgetMade(within);
      const cutoff = new Date(clock().getTime() - days * dayMs).toISOString();
      const rows = await within
        .selectFrom("bookings")
        .select("id")
        .where("ends_at", "<", cutoff)
        .execute();
      return rows.length === 0 ? 0 : deleteWhere(rows, false, within);
    },
  };
  return repository;
}

export type BookingsRepository = ReturnType<typeof createBookingsRepository>;
