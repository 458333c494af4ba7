import { createHash, randomBytes } from "node:crypto";
import type { Selectable, Transaction } from "kysely";
import {
  type Availability,
  availabilitySchema,
  defaultAvailability,
} from "../../contract/bookings.ts";
import { isUniqueViolation } from "../db/errors.ts";
import type { BookingsTable, Database, OutboxKind } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { toIso } from "../lib/time.ts";
import { enqueue, forget, type QueuedMessage } from "../outbox/queue.ts";

/**
 * Where bookings live (docs/product.md, "Book a call"). A booking is written
 * in one transaction with every mail it causes, as outbox rows: both
 * invitations at once, and the four reminders (24 hours and 1 hour before,
 * to each side) due at their times. The outbox sends each row once, on
 * whichever instance claims it; a cancellation or a move deletes the rows
 * still queued in its own transaction, so no reminder goes after one.
 * Outbox rows name their booking in a payload that starts
 * `{"bookingId":N,`, which is how they are found again; they are handed to
 * the outbox and taken out again through its queue (server/outbox/queue.ts).
 */

type Db = Transaction<Database> | Store["db"];
export type BookingRow = Selectable<BookingsTable>;

export const bookingMailKinds = [
  "booking_invitation",
  "booking_cancellation",
  "booking_reminder",
] as const satisfies readonly OutboxKind[];

export type BookingMailPayload = {
  bookingId: number;
  to: "reader" | "owner";
  /** The invitation's SEQUENCE when the row was queued. */
  sequence: number;
  /** A reminder: hours before the call. */
  hoursBefore?: 24 | 1;
  /**
   * A cancellation carries the call itself, so it goes out even when the
   * booking was deleted meanwhile (its reader asked for it from "Your data").
   */
  call?: CancelledCall;
};

export type CancelledCall = {
  uid: string;
  start: string;
  end: string;
  service: string;
  readerZone: string;
  message: string | null;
  by: "reader" | "owner";
};

export function parseBookingPayload(raw: string | null): BookingMailPayload | null {
  if (raw === null) return null;
  try {
    const value = JSON.parse(raw) as Partial<BookingMailPayload>;
    if (typeof value.bookingId !== "number" || typeof value.sequence !== "number") return null;
    if (value.to !== "reader" && value.to !== "owner") return null;
    const call = value.call;
    return {
      bookingId: value.bookingId,
      to: value.to,
      sequence: value.sequence,
      ...(call && typeof call.uid === "string" && typeof call.start === "string" ? { call } : {}),
      ...(value.hoursBefore === 24 || value.hoursBefore === 1
        ? { hoursBefore: value.hoursBefore }
        : {}),
    };
  } catch {
    return null;
  }
}

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");
export const newToken = () => randomBytes(32).toString("base64url");

export type StoredBooking = {
  id: number;
  start: string;
  end: string;
  name: string;
  email: string;
  service: string;
  note: string;
  readerZone: string;
  status: "booked" | "cancelled";
  uid: string;
  sequence: number;
  meetingUrl: string | null;
  cancelledBy: "reader" | "owner" | null;
  cancelMessage: string | null;
  visitorId: string | null;
  createdAt: string;
};

function toStored(row: BookingRow): StoredBooking {
  return {
    id: row.id,
    start: toIso(row.starts_at),
    end: toIso(row.ends_at),
    name: row.name,
    email: row.email,
    service: row.service,
    note: row.note,
    readerZone: row.reader_zone,
    status: row.status,
    uid: row.uid,
    sequence: Number(row.sequence),
    meetingUrl: row.meeting_url,
    cancelledBy: row.cancelled_by,
    cancelMessage: row.cancel_message,
    visitorId: row.visitor_id,
    createdAt: toIso(row.created_at),
  };
}

export type NewBooking = {
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
  addressHash: string;
  uidHost: string;
  /** Where the owner's invitation and reminders go; none without it. */
  ownerEmail: string | undefined;
};

const reminderHours = [24, 1] as const;

export function createBookingsRepository(store: Store, clock: () => Date = () => new Date()) {
  const { db } = store;

  /** The booking's outbox rows still waiting: gone, so nothing queued before a change is sent. */
  async function dropQueued(trx: Db, id: number) {
    await forget(trx, {
      kinds: bookingMailKinds,
      payloadsLike: [`{"bookingId":${id},%`],
      statuses: ["queued"],
    });
  }

  /** The invitations (the reader's with the links' token) and the reminders still ahead. */
  async function queueInvitations(
    trx: Db,
    booking: { id: number; email: string; start: Date; sequence: number },
    token: string,
    ownerEmail: string | undefined,
  ) {
    const now = clock();
    const at = now.toISOString();
    const payload = (to: "reader" | "owner", hoursBefore?: 24 | 1) =>
      JSON.stringify({
        bookingId: booking.id,
        to,
        sequence: booking.sequence,
        ...(hoursBefore ? { hoursBefore } : {}),
      } satisfies BookingMailPayload);
    const rows: QueuedMessage[] = [
      { kind: "booking_invitation", email: booking.email, token, payload: payload("reader") },
    ];
    const recipients: ["reader" | "owner", string][] = [["reader", booking.email]];
    if (ownerEmail) {
      rows.push({ kind: "booking_invitation", email: ownerEmail, payload: payload("owner") });
      recipients.push(["owner", ownerEmail]);
    }
    for (const hours of reminderHours) {
      const due = booking.start.getTime() - hours * 3_600_000;
      // A reminder whose time has passed already would only repeat the invitation.
      if (due <= now.getTime()) continue;
      for (const [to, email] of recipients) {
        rows.push({
          kind: "booking_reminder",
          email,
          payload: payload(to, hours),
          due: new Date(due).toISOString(),
        });
      }
    }
    await enqueue(trx, at, rows);
  }

  async function queueCancellations(
    trx: Db,
    booking: StoredBooking,
    ownerEmail: string | undefined,
  ) {
    const recipients: ["reader" | "owner", string][] = [["reader", booking.email]];
    if (ownerEmail) recipients.push(["owner", ownerEmail]);
    await enqueue(
      trx,
      clock().toISOString(),
      recipients.map(([to, email]) => ({
        kind: "booking_cancellation",
        email,
        payload: JSON.stringify({
          bookingId: booking.id,
          to,
          sequence: booking.sequence,
          call: {
            uid: booking.uid,
            start: booking.start,
            end: booking.end,
            service: booking.service,
            readerZone: booking.readerZone,
            message: booking.cancelMessage,
            by: booking.cancelledBy ?? "owner",
          },
        } satisfies BookingMailPayload),
      })),
    );
  }

  /** Bookings, and the mails about them, go together. */
  async function deleteWhere(
    trx: Db,
    ids: number[],
    { keepQueuedCancellations = false } = {},
  ): Promise<number> {
    let deleted = 0;
    for (let start = 0; start < ids.length; start += 200) {
      const chunk = ids.slice(start, start + 200);
      const payloadsLike = chunk.map((id) => `{"bookingId":${id},%`);
      if (keepQueuedCancellations) {
        // A cancellation still queued goes out even after its booking is gone.
        await forget(trx, { kinds: ["booking_invitation", "booking_reminder"], payloadsLike });
        await forget(trx, {
          kinds: ["booking_cancellation"],
          payloadsLike,
          statuses: ["sending", "sent", "failed", "cancelled"],
        });
      } else {
        await forget(trx, { kinds: bookingMailKinds, payloadsLike });
      }
      const result = await trx.deleteFrom("bookings").where("id", "in", chunk).executeTakeFirst();
      deleted += Number(result.numDeletedRows);
    }
    return deleted;
  }

  const repository = {
    async availability(): Promise<Availability> {
      const row = await db
        .selectFrom("booking_settings")
        .select("availability")
        .where("id", "=", 1)
        .executeTakeFirst();
      if (!row) return defaultAvailability;
      const parsed = availabilitySchema.safeParse(JSON.parse(row.availability));
      return parsed.success ? parsed.data : defaultAvailability;
    },

    async saveAvailability(availability: Availability): Promise<void> {
      const at = clock().toISOString();
      await db
        .insertInto("booking_settings")
        .values({ id: 1, availability: JSON.stringify(availability), updated_at: at })
        .onConflict((conflict) =>
          conflict
            .column("id")
            .doUpdateSet({ availability: JSON.stringify(availability), updated_at: at }),
        )
        .execute();
    },

    async feedTokenHash(): Promise<string | null> {
      const row = await db
        .selectFrom("booking_settings")
        .select("feed_token_hash")
        .where("id", "=", 1)
        .executeTakeFirst();
      return row?.feed_token_hash ?? null;
    },

    /** Replaces the feed's token (null revokes it); the availability row is made if need be. */
    async setFeedTokenHash(hash: string | null): Promise<void> {
      const at = clock().toISOString();
      await db
        .insertInto("booking_settings")
        .values({
          id: 1,
          availability: JSON.stringify(defaultAvailability),
          feed_token_hash: hash,
          updated_at: at,
        })
        .onConflict((conflict) =>
          conflict.column("id").doUpdateSet({ feed_token_hash: hash, updated_at: at }),
        )
        .execute();
    },

    /** Calls still booked that end after `from`. */
    async taken(from: Date, trx: Db = db): Promise<{ start: number; end: number }[]> {
      const rows = await trx
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
     * instance or any other. Returns the reader's links' token, which rests
     * in the outbox only until the invitation is sent.
     */
    async create(input: NewBooking): Promise<{ id: number; token: string } | "taken"> {
      const at = clock().toISOString();
      const token = newToken();
      try {
        return await db.transaction().execute(async (trx) => {
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
              uid: `booking.${randomBytes(12).toString("hex")}@${input.uidHost}`,
              meeting_url: input.meetingUrl,
              token_hash: hashToken(token),
              visitor_id: input.visitorId,
              ip_hash: input.ipHash,
              address_hash: input.addressHash,
              created_at: at,
              updated_at: at,
            })
            .returning("id")
            .executeTakeFirstOrThrow();
          await queueInvitations(
            trx,
            { id, email: input.email, start: input.start, sequence: 0 },
            token,
            input.ownerEmail,
          );
          return { id, token };
        });
      } catch (error) {
        if (isUniqueViolation(error)) return "taken";
        throw error;
      }
    },

    /**
     * Moves a booking to a new time by its links' token, which is spent: the
     * new invitation (the same UID, SEQUENCE one higher) carries a new one.
     * "taken" when another reader holds that start; undefined when the token
     * is not known (used, or the call cancelled).
     */
    async reschedule(
      token: string,
      move: { start: Date; end: Date; ownerEmail: string | undefined },
    ): Promise<{ booking: StoredBooking; token: string } | "taken" | undefined> {
      const next = newToken();
      try {
        return await db.transaction().execute(async (trx) => {
          const row = await trx
            .updateTable("bookings")
            .set((eb) => ({
              starts_at: move.start.toISOString(),
              ends_at: move.end.toISOString(),
              sequence: eb("sequence", "+", 1),
              token_hash: hashToken(next),
              updated_at: clock().toISOString(),
            }))
            .where("token_hash", "=", hashToken(token))
            .where("status", "=", "booked")
            .returningAll()
            .executeTakeFirst();
          if (!row) return undefined;
          const booking = toStored(row);
          await dropQueued(trx, booking.id);
          await queueInvitations(
            trx,
            { id: booking.id, email: booking.email, start: move.start, sequence: booking.sequence },
            next,
            move.ownerEmail,
          );
          return { booking, token: next };
        });
      } catch (error) {
        if (isUniqueViolation(error)) return "taken";
        throw error;
      }
    },

    /**
     * Cancels a call still booked, by its id (the owner) or its links' token
     * (the reader): what was queued for it goes, the cancellations are
     * queued to both sides. Undefined when there was no such booked call.
     */
    async cancel(
      which: { id: number } | { token: string },
      by: { who: "reader" | "owner"; message: string | null; ownerEmail: string | undefined },
    ): Promise<StoredBooking | undefined> {
      return db.transaction().execute(async (trx) => {
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
          .$if("id" in which, (q) => q.where("id", "=", "id" in which ? which.id : 0))
          .$if("token" in which, (q) =>
            q.where("token_hash", "=", "token" in which ? hashToken(which.token) : ""),
          )
          .where("status", "=", "booked")
          .returningAll()
          .executeTakeFirst();
        if (!row) return undefined;
        const booking = toStored(row);
        await dropQueued(trx, booking.id);
        await queueCancellations(trx, booking, by.ownerEmail);
        return booking;
      });
    },

    async get(id: number, trx: Db = db): Promise<StoredBooking | undefined> {
      const row = await trx
        .selectFrom("bookings")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirst();
      return row ? toStored(row) : undefined;
    },

    /** The booked call a reader's link names; undefined when the link is spent or unknown. */
    async byToken(token: string): Promise<StoredBooking | undefined> {
      const row = await db
        .selectFrom("bookings")
        .selectAll()
        .where("token_hash", "=", hashToken(token))
        .where("status", "=", "booked")
        .executeTakeFirst();
      return row ? toStored(row) : undefined;
    },

    /** Upcoming calls soonest first, or past ones latest first (cancelled ones among them). */
    async list(when: "upcoming" | "past", limit = 500): Promise<StoredBooking[]> {
      const now = clock().toISOString();
      const rows = await db
        .selectFrom("bookings")
        .selectAll()
        .$if(when === "upcoming", (q) => q.where("ends_at", ">", now).orderBy("starts_at", "asc"))
        .$if(when === "past", (q) => q.where("ends_at", "<=", now).orderBy("starts_at", "desc"))
        .orderBy("id")
        .limit(limit)
        .execute();
      return rows.map(toStored);
    },

    /** Every booking from a time on, for the owner's calendar feed. */
    async since(from: Date): Promise<StoredBooking[]> {
      const rows = await db
        .selectFrom("bookings")
        .selectAll()
        .where("ends_at", ">", from.toISOString())
        .orderBy("starts_at")
        .limit(5000)
        .execute();
      return rows.map(toStored);
    },

    /** Bookings made from one connection, and for one mailbox, since a time. */
    async countSince({
      ipHash,
      addressHash,
      since,
    }: {
      ipHash: string;
      addressHash: string;
      since: Date;
    }): Promise<{ fromIp: number; forAddress: number }> {
      const count = async (column: "ip_hash" | "address_hash", value: string) => {
        const row = await db
          .selectFrom("bookings")
          .select((eb) => eb.fn.countAll<number | string>().as("n"))
          .where(column, "=", value)
          .where("created_at", ">=", since.toISOString())
          .executeTakeFirstOrThrow();
        return Number(row.n);
      };
      return {
        fromIp: await count("ip_hash", ipHash),
        forAddress: await count("address_hash", addressHash),
      };
    },

    /** Calls still ahead for one mailbox. */
    async pendingFor(addressHash: string): Promise<number> {
      const row = await db
        .selectFrom("bookings")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("address_hash", "=", addressHash)
        .where("status", "=", "booked")
        .where("ends_at", ">", clock().toISOString())
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Calls booked per week (Monday 00:00 UTC, by the call's start), over the last `weeks` and the next 4. */
    async perWeek(weeks = 12): Promise<{ week: string; count: number }[]> {
      const now = clock();
      const monday =
        Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) -
        ((now.getUTCDay() + 6) % 7) * 86_400_000;
      const week = 7 * 86_400_000;
      const first = monday - (weeks - 1) * week;
      const total = weeks + 4;
      const rows = await db
        .selectFrom("bookings")
        .select("starts_at")
        .where("status", "=", "booked")
        .where("starts_at", ">=", new Date(first).toISOString())
        .where("starts_at", "<", new Date(first + total * week).toISOString())
        .execute();
      const result = Array.from({ length: total }, (_, index) => ({
        week: new Date(first + index * week).toISOString().slice(0, 10),
        count: 0,
      }));
      for (const row of rows) {
        const bucket = result[Math.floor((Date.parse(toIso(row.starts_at)) - first) / week)];
        if (bucket) bucket.count += 1;
      }
      return result;
    },

    /** A browser's own bookings ("Your data"). */
    async byVisitor(visitorId: string): Promise<StoredBooking[]> {
      const rows = await db
        .selectFrom("bookings")
        .selectAll()
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
        .select(["id", "status", "ends_at"])
        .where("visitor_id", "=", visitorId)
        .execute();
      const now = clock().toISOString();
      for (const row of mine) {
        if (row.status === "booked" && toIso(row.ends_at) > now) {
          await repository.cancel({ id: row.id }, { who: "reader", message: null, ownerEmail });
        }
      }
      return db.transaction().execute((trx) =>
        deleteWhere(
          trx,
          mine.map((row) => row.id),
          { keepQueuedCancellations: true },
        ),
      );
    },

    async delete(id: number): Promise<boolean> {
      return db.transaction().execute(async (trx) => (await deleteWhere(trx, [id])) > 0);
    },

    /** Retention: bookings whose call ended more than `days` ago go, with their mails. */
    async prune(days: number): Promise<number> {
      const cutoff = new Date(clock().getTime() - days * 86_400_000).toISOString();
      const rows = await db
        .selectFrom("bookings")
        .select("id")
        .where("ends_at", "<", cutoff)
        .execute();
      if (rows.length === 0) return 0;
      return db.transaction().execute((trx) =>
        deleteWhere(
          trx,
          rows.map((row) => row.id),
        ),
      );
    },
  };
  return repository;
}

export type BookingsRepository = ReturnType<typeof createBookingsRepository>;
