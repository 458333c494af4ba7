import { createHmac } from "node:crypto";
import type { Selectable } from "kysely";
import type { BookingsTable } from "../db/schema-bookings.ts";
import { toIso } from "../lib/time.ts";
import { keyFor } from "../lib/tokens.ts";

/* A booking as the bookings' code reads it from its row, and its reader's links' token. */

export type BookingRow = Selectable<BookingsTable>;

/** A booking as the site works with it: times as ISO strings, the columns camel-cased. */
export function toStored(row: BookingRow) {
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
    ownerMoves: Number(row.owner_moves),
    meetingUrl: row.meeting_url,
    cancelledBy: row.cancelled_by,
    cancelMessage: row.cancel_message,
    undeliverable: Number(row.undeliverable) === 1,
    visitorId: row.visitor_id,
    createdAt: toIso(row.created_at),
  };
}
export type StoredBooking = ReturnType<typeof toStored>;

/** The token of a call's links at one of its sequences (docs/decisions/043-bookings.md). */
export type LinkToken = (call: { uid: string; sequence: number; ownerMoves?: number }) => string;

/**
 * The reader's links' token, made from the site's secret, the call's UID and
 * its sequence less the owner's moves: every mail about the call makes it again,
 * so none waits in the outbox, and the reader's move or a cancellation, which
 * raise the sequence, spends it. The owner's move does not: the reader's links
 * keep working for the new time (decision 071).
 */
export function linkTokens(secret: string): LinkToken {
  const key = keyFor(secret, "booking links");
  return ({ uid, sequence, ownerMoves = 0 }) =>
    createHmac("sha256", key)
      .update(`${uid} ${sequence - ownerMoves}`)
      .digest("base64url");
}
