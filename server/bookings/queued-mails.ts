import { z } from "zod";
import type { OutboxKind } from "../db/schema.ts";
import type { Db, Store } from "../db/store.ts";
import { jsonOf } from "../lib/json.ts";
import { toIso } from "../lib/time.ts";
import { forget, hold } from "../outbox/forget.ts";
import { enqueue, type QueuedMessage } from "../outbox/queue.ts";

/**
 * A booking's mails in the outbox (docs/product.md, "Book a call"): queued in
 * the transaction of the change that causes them (both invitations at once,
 * and the four reminders, 24 hours and 1 hour before to each side, due at
 * their times), and dropped in the transaction of a cancellation or a move,
 * so no reminder goes after one; the outbox sends each once, on whichever
 * instance claims it (mails.ts composes them). A row names its booking in a payload
 * that starts `{"bookingId":N,`, which is how it is found again.
 */

export const bookingMailKinds = [
  "booking_invitation",
  "booking_cancellation",
  "booking_reminder",
  "booking_not_made",
] as const satisfies readonly OutboxKind[];

const cancelledCall = z.object({
  uid: z.string(),
  start: z.string(),
  end: z.string(),
  service: z.string(),
  readerZone: z.string(),
  message: z.string().nullable(),
  /** `undeliverable`: nobody; the reader's invitation hard-bounced (undeliverable.ts). */
  by: z.enum(["reader", "owner", "undeliverable"]),
});
export type CancelledCall = z.infer<typeof cancelledCall>;

const bookingMailPayload = z.object({
  bookingId: z.number(),
  to: z.enum(["reader", "owner"]),
  /** The invitation's SEQUENCE when the row was queued. */
  sequence: z.number(),
  /** A reminder: hours before the call. */
  hoursBefore: z.literal([24, 1]).optional().catch(undefined),
  /**
   * A cancellation carries the call itself, so it goes out even when the
   * booking was deleted meanwhile (its reader asked for it from "Your data").
   */
  call: cancelledCall.optional().catch(undefined),
  /** An invitation after the owner moved the call: their reason, if they gave one. */
  ownerMove: z.object({ reason: z.string().nullable() }).optional().catch(undefined),
  /**
   * The owner's invitation after the reader moved the call: the time it was moved from, as
   * the owner was last sent it (two moves before the first one's mail went: the time before both).
   */
  movedFrom: z.iso.datetime().optional().catch(undefined),
  /** An invitation: the time it gives (rows queued before it was recorded have none). */
  start: z.iso.datetime().optional().catch(undefined),
  /**
   * An invitation or a cancellation to a side that was mailed no invitation of the call
   * before it (decision 095): it opens that side's thread, and a cancellation carries no
   * calendar file. Absent from rows queued before it was recorded: a first at sequence 0.
   */
  first: z.literal(true).optional().catch(undefined),
  /**
   * The owner's invitation: its calendar file, chosen as it is queued (`ownerCalendar`);
   * absent from rows queued before it was, whose copy was chosen as they went.
   */
  calendar: z.enum(["publish", "cancel", "none"]).optional().catch(undefined),
});
type BookingMailPayload = z.infer<typeof bookingMailPayload>;

export const parseBookingPayload = (raw: string | null) => jsonOf(raw, bookingMailPayload);

const payloadLike = (id: number) => `{"bookingId":${id},%`;

/**
 * A call's mails to one side go in the order queued (the outbox's series, decision 092):
 * its reminders, a move and its cancellation wait for the invitation before them to go
 * (or be dropped), so none answers or reminds of a mail the reader has not had.
 */
export const seriesOf = (id: number, to: "reader" | "owner") => `booking ${id} ${to}`;

/** The series of a row of a booking's mail, by its payload (a row restored from before). */
export const seriesOfRow = (payload: string | null) => {
  const parsed = parseBookingPayload(payload);
  return parsed ? seriesOf(parsed.bookingId, parsed.to) : null;
};
const reminderHours = [24, 1] as const;

/** The recipients of a booking's mails: the reader, and the owner when there is an address. */
const recipientsOf = (email: string, ownerEmail: string | undefined) =>
  [["reader", email], ...(ownerEmail ? [["owner", ownerEmail]] : [])] as [
    "reader" | "owner",
    string,
  ][];

const queuedOf = (id: number, except: readonly number[] = []) => ({
  kinds: bookingMailKinds,
  payloadsLike: [payloadLike(id)],
  statuses: ["queued" as const],
  except,
});

/**
 * The booking's outbox rows still waiting: gone, so nothing queued before a change is sent;
 * but `sending`, the row whose send made the change (on PostgreSQL a row being sent is still
 * `queued`), which stays for its outcome (decision 090).
 */
export async function dropQueued(trx: Db, id: number, sending?: number) {
  await forget(trx, queuedOf(id, sending === undefined ? [] : [sending]));
}

/**
 * PostgreSQL: the booking's outbox rows still waiting, locked before a change takes its
 * booking's row, as a send does (its row, then the booking it releases, undeliverable.ts):
 * waits for a mail of the call being sent, and no change waits for a send that waits for it.
 */
export const holdQueued = (trx: Db, id: number, kind: Store["kind"]) =>
  hold(trx, queuedOf(id), kind);

type Call = { id: number; email: string; start: Date; sequence: number };

/** A mail's payload: its booking, to whom, and a reminder's hours or a cancellation's call. */
const payloadOf = (
  { id, sequence }: { id: number; sequence: number },
  to: "reader" | "owner",
  more: Pick<
    BookingMailPayload,
    "hoursBefore" | "call" | "ownerMove" | "calendar" | "movedFrom" | "start" | "first"
  > = {},
) => JSON.stringify({ bookingId: id, to, sequence, ...more } satisfies BookingMailPayload);

/** The reminder `hours` before the call to both sides, due at `due`. */
const reminders = (call: Call, ownerEmail: string | undefined, hours: 24 | 1, due: number) =>
  recipientsOf(call.email, ownerEmail).map(([to, email]) => ({
    kind: "booking_reminder" as const,
    email,
    payload: payloadOf(call, to, { hoursBefore: hours }),
    due: new Date(due).toISOString(),
    series: seriesOf(call.id, to),
  }));

const dueOf = (call: Call, hours: number) => call.start.getTime() - hours * 3_600_000;

/** The reminders to both sides whose time is still ahead: one passed would only repeat the invitation. */
function remindersAhead(now: Date, call: Call, ownerEmail: string | undefined): QueuedMessage[] {
  return reminderHours.flatMap((hours) => {
    const due = dueOf(call, hours);
    return due > now.getTime() ? reminders(call, ownerEmail, hours, due) : [];
  });
}

/**
 * What each side was mailed of call `id` (before outbox row `before`, when given), by its
 * invitations' rows in its series (decision 095): the last one sent (or being sent, on
 * SQLite: it may reach them), which is what that side's calendar holds; and whether any
 * was queued here at all (none: the call came by an import, invited by the site it came
 * from). A queued, failed or dropped one never reached it.
 * A row's own earlier rows are done as it goes (decision 092).
 */
export async function invitedBefore(db: Db, id: number, before?: number) {
  const invitations = db
    .selectFrom("outbox")
    .select(["status", "payload"])
    .where("kind", "=", "booking_invitation")
    .$if(before !== undefined, (query) => query.where("id", "<", before ?? 0))
    .orderBy("id", "desc");
  const series = [seriesOf(id, "reader"), seriesOf(id, "owner")];
  let rows = await invitations.where("series", "in", series).execute();
  // A call booked before series: the rows that went, by their payload, on the index of states.
  if (rows.length === 0)
    rows = await invitations
      .where("status", "in", ["sent", "sending"])
      .where("payload", "like", payloadLike(id))
      .execute();
  return (to: "reader" | "owner") => {
    const mine = rows.filter((row) => parseBookingPayload(row.payload)?.to === to);
    const sent = mine.find((row) => row.status === "sent" || row.status === "sending");
    return { sent: parseBookingPayload(sent?.payload ?? null) ?? undefined, any: mine.length > 0 };
  };
}
export type Invited = ReturnType<Awaited<ReturnType<typeof invitedBefore>>>;

/**
 * The calendar file of the owner's next invitation of a call (decision 074): the call
 * published while no calendar feed stands; while one does, nothing (the feed has it),
 * but the cancellation of the copy an earlier mail of the call published (`last`), taken
 * out once: else the owner's calendar keeps it at the old time beside the feed's. One
 * queued before the choice was recorded published a copy (it did before the feed left them out).
 */
async function ownerCalendar(
  trx: Db,
  last: BookingMailPayload | undefined,
): Promise<"publish" | "cancel" | "none"> {
  const feed = await trx
    .selectFrom("booking_settings")
    .select("feed_token_hash")
    .where("id", "=", 1)
    .executeTakeFirst();
  if (!feed?.feed_token_hash) return "publish";
  return last && (last.calendar ?? "publish") === "publish" ? "cancel" : "none";
}

/** The reminders still ahead of a call, to both sides: of one a restore moves as it was moved since. */
export const queueReminders = (trx: Db, now: Date, call: Call, ownerEmail: string | undefined) =>
  enqueue(trx, now.toISOString(), remindersAhead(now, call, ownerEmail));

/**
 * The invitations and the reminders still ahead, in place of those still queued (a move's).
 * No row holds the reader's links: mails.ts makes them again as each mail goes (stored.ts,
 * `linkTokens`). After the owner's move (`reason` given, null or not), the invitations say
 * so; after the reader's (`from`, the time it was), the owner's says from when. Each records
 * its time, and is the first of its side (`first`) when none before it reached that side
 * (decision 095): the composer reads again what went meanwhile.
 */
export async function queueInvitations(
  trx: Db,
  now: Date,
  booking: Call,
  ownerEmail: string | undefined,
  { reason, from }: { reason?: string | null; from?: string } = {},
) {
  // A booking's are the first of its call; a move's replace those still queued.
  const invited =
    booking.sequence === 0
      ? () => ({ sent: undefined, any: false })
      : await invitedBefore(trx, booking.id);
  if (booking.sequence > 0) await dropQueued(trx, booking.id);
  const ownerMove = reason === undefined ? {} : { ownerMove: { reason } };
  const start = booking.start.toISOString();
  const calendar = ownerEmail ? await ownerCalendar(trx, invited("owner").sent) : "none";
  const invitations = recipientsOf(booking.email, ownerEmail).map(([to, email]) => {
    const held = invited(to);
    const first = isFirst(held, booking.sequence === 0) ? { first: true as const } : {};
    const movedFrom = from ? { movedFrom: held.sent?.start ?? from } : {};
    const owners = to === "owner" ? { calendar, ...movedFrom } : {};
    return {
      kind: "booking_invitation" as const,
      email,
      payload: payloadOf(booking, to, { ...ownerMove, start, ...first, ...owners }),
      series: seriesOf(booking.id, to),
    };
  });
  await enqueue(trx, now.toISOString(), [
    ...invitations,
    ...remindersAhead(now, booking, ownerEmail),
  ]);
}

/** A moved call's mails: what was queued for it goes, the new invitations and reminders come. */
export const queueMoved = (
  trx: Db,
  now: Date,
  { id, email, sequence }: Omit<Call, "start">,
  { start, ownerEmail }: { start: Date; ownerEmail: string | undefined },
  how: { reason?: string | null; from?: string },
) => queueInvitations(trx, now, { id, email, start, sequence }, ownerEmail, how);

/**
 * Whether a side's next mail of a call is its first (decision 095): none of its
 * invitations reached it, though one was queued here (`invited`) or the mail was queued
 * as the first (`queuedFirst`, its earlier rows dropped since).
 */
export const isFirst = ({ sent, any }: Invited, queuedFirst = false) =>
  !sent && (any || queuedFirst);

/**
 * A call at the time a side holds of it (`invited`, decision 095), and whether it is
 * the first mail of it to that side (`isFirst`): a move whose mail had not gone changed
 * nothing there.
 */
export function asHeld<T extends { start: string; end: string }>(
  call: T,
  invited: Invited,
  queuedFirst = false,
) {
  const start = invited.sent?.start ?? call.start;
  const end = new Date(Date.parse(start) + Date.parse(call.end) - Date.parse(call.start));
  const held = { ...call, start, end: end.toISOString() };
  return { call: held, first: isFirst(invited, queuedFirst) };
}

/**
 * The reminders of the calls an import brought (docs/backups.md, "Moving in
 * and out"), queued in the import's transaction: an export holds the bookings
 * but not their mails, so a call still booked and ahead that no mail here names
 * came from another site, whose invitations the reader has. Its reminders still
 * ahead are queued for their times; of those that fell due during the move
 * (after `exportedAt`, when the old site had stopped, and by now), the latest
 * goes at once, so a reader whose hour-before reminder fell due meanwhile still
 * gets it. A call that has begun gets none (mails.ts). A call booked here always
 * has its invitations' rows, so it is never reminded twice, and reading the same
 * file again queues nothing more. Only the calls of `ids` (the file's, as the
 * import wrote or found them) are reminded: a call an unsigned file brought
 * before is not, by a later file's import.
 */
export async function queueMovedReminders(
  trx: Db,
  now: Date,
  ownerEmail: string | undefined,
  exportedAt: Date | undefined,
  ids: readonly number[],
) {
  for (const row of await callsAhead(trx, now, ids)) {
    const mailed = await trx
      .selectFrom("outbox")
      .select("id")
      .where("kind", "in", bookingMailKinds)
      .where("payload", "like", payloadLike(row.id))
      .limit(1)
      .executeTakeFirst();
    if (mailed) continue;
    const { id, email, sequence } = row;
    const call = { id, email, start: new Date(toIso(row.starts_at)), sequence: Number(sequence) };
    const missed =
      exportedAt &&
      reminderHours.findLast(
        (hours) => dueOf(call, hours) > exportedAt.getTime() && dueOf(call, hours) <= now.getTime(),
      );
    await enqueue(trx, now.toISOString(), [
      ...(missed ? reminders(call, ownerEmail, missed, now.getTime()) : []),
      ...remindersAhead(now, call, ownerEmail),
    ]);
  }
}

/** Of these bookings, the calls still booked and ahead. */
async function callsAhead(trx: Db, now: Date, ids: readonly number[]) {
  const batches = Array.from({ length: Math.ceil(ids.length / 500) }, (_, i) =>
    ids.slice(i * 500, (i + 1) * 500),
  );
  const calls = [];
  for (const batch of batches) {
    calls.push(
      ...(await trx
        .selectFrom("bookings")
        .select(["id", "email", "starts_at", "sequence"])
        .where("id", "in", batch)
        .where("status", "=", "booked")
        .where("starts_at", ">", now.toISOString())
        .execute()),
    );
  }
  return calls;
}

/**
 * A call just cancelled: the mails still queued for it go (but `sending`, `dropQueued`),
 * and its cancellations are queued to both sides (or the owner's alone, `reader: false`),
 * with the call in them (it may be deleted before they go) at the time that side holds,
 * and to a side none of whose invitations reached it, as its first (`asHeld`).
 */
export async function queueCancellations(
  trx: Db,
  now: Date,
  booking: { id: number; email: string; sequence: number } & Omit<CancelledCall, "message" | "by">,
  { by, message }: Pick<CancelledCall, "by" | "message">,
  ownerEmail: string | undefined,
  { reader = true, sending }: { reader?: boolean; sending?: number } = {},
) {
  const invited = await invitedBefore(trx, booking.id);
  await dropQueued(trx, booking.id, sending);
  const { uid, start, end, service, readerZone } = booking;
  const recipients = recipientsOf(booking.email, ownerEmail).filter(
    ([to]) => reader || to !== "reader",
  );
  await enqueue(
    trx,
    now.toISOString(),
    recipients.map(([to, email]) => {
      const held = asHeld({ uid, start, end, service, readerZone, message, by }, invited(to));
      const first = held.first ? { first: true as const } : {};
      return {
        kind: "booking_cancellation",
        email,
        payload: payloadOf(booking, to, { call: held.call, ...first }),
        series: seriesOf(booking.id, to),
      };
    }),
  );
}

/**
 * The mails about bookings about to be deleted, gone with them; with
 * `keepQueuedCancellations`, a cancellation still queued or being sent stays and goes out.
 */
export async function forgetMails(trx: Db, ids: number[], keepQueuedCancellations: boolean) {
  const payloadsLike = ids.map(payloadLike);
  if (!keepQueuedCancellations) return forget(trx, { kinds: bookingMailKinds, payloadsLike });
  await forget(trx, { kinds: ["booking_invitation", "booking_reminder"], payloadsLike });
  await forget(trx, {
    kinds: ["booking_cancellation"],
    payloadsLike,
    // One being sent stays too: a "later" from the reader's server puts it back in the queue.
    statuses: ["sent", "failed", "cancelled"],
  });
}
