import { z } from "zod";
import { momentLabel } from "../../contract/time-zones.ts";
import { transact } from "../db/owner-actor.ts";
import type { Db, Store } from "../db/store.ts";
import { takeTurn } from "../db/turns.ts";
import { jsonOf } from "../lib/json.ts";
import { dayMs } from "../lib/time.ts";
import { forget } from "../outbox/forget.ts";
import {
  button,
  detailsHtml,
  detailsText,
  laidOut as mail,
  markedLink,
  oneLine,
} from "../outbox/mail-layout.ts";
import type { OutgoingMail } from "../outbox/mailer.ts";
import { enqueue } from "../outbox/queue.ts";
import type { MailboxFull } from "./limits.ts";

/**
 * A booking its mailbox may not have now (docs/product.md, "Book a call"): one booked for
 * it within the hour, or its most calls ahead. What an address holds is its mailbox's to
 * know, not the form's: the form is refused in the same words for either (409 `not_booked`),
 * and the mailbox is told why, at most once a day (its outbox row, kept a day, counts it).
 */

/** Why a booking for a mailbox was not made, and what it asked for. */
const notMadePayload = z.object({
  why: z.enum(["calls ahead", "booked this hour", "booked today"]),
  start: z.string(),
  zone: z.string(),
  service: z.string(),
});
export type NotMade = z.infer<typeof notMadePayload>;
export const parseNotMade = (raw: string | null) => jsonOf(raw, notMadePayload);

/** Why a booking was not made, by the mailbox's limit that refused it (limits.ts). */
export const notMadeWhy: Record<MailboxFull, NotMade["why"]> = {
  mailbox: "booked this hour",
  "mailbox today": "booked today",
  "mailbox ahead": "calls ahead",
};

/**
 * The news that a booking for `email` was not made, queued unless the mailbox was told
 * so within the day: a form that could not book for it cannot fill it either, and a
 * stranger's tries, hour after hour, are one mail (decision 086).
 * In turn with the bookings for the same mailbox (limits.ts), so that two at once queue one.
 */
export function tellNotMade(store: Store, clock: () => Date) {
  return (to: { email: string; addressHash: string }, news: NotMade) =>
    transact(store.db, async (trx) => {
      await takeTurn(store.kind, trx, "booking mailbox", to.addressHash);
      const dayAgo = new Date(clock().getTime() - dayMs);
      await queueNotMade(trx, clock(), dayAgo, to, news);
    });
}

async function queueNotMade(
  trx: Db,
  now: Date,
  since: Date,
  to: { email: string; addressHash: string },
  news: NotMade,
) {
  // Found by the mailbox's digest (`address_hash`), which the outbox row keeps for it.
  const told = await trx
    .selectFrom("outbox")
    .select("id")
    .where("email_hash", "=", to.addressHash)
    .where("kind", "=", "booking_not_made")
    .where("created_at", ">=", since.toISOString())
    .limit(1)
    .executeTakeFirst();
  if (told) return;
  await enqueue(trx, now.toISOString(), [
    {
      kind: "booking_not_made",
      email: to.email,
      emailHash: to.addressHash,
      payload: JSON.stringify(news),
    },
  ]);
}

/** The news of bookings not made, queued before `before`: kept only while it caps its hour. */
export async function forgetNotMade(trx: Db, before: Date) {
  const rows = await trx
    .selectFrom("outbox")
    .select("id")
    .where("kind", "=", "booking_not_made")
    .where("created_at", "<", before.toISOString())
    .execute();
  await forget(trx, { kinds: ["booking_not_made"], ids: rows.map((row) => Number(row.id)) });
}

/**
 * The news that a booking for this address was not made, and why: the form's answer says
 * only that it was not, so that no one learns from it what the address holds. Nothing the
 * form's sender typed, as in every mail to the reader.
 */
export function notMadeMail(
  to: string,
  news: NotMade,
  context: { siteUrl: string; ownerName: string; ownerAddress: string; serviceTitle: string },
): OutgoingMail {
  const why = {
    "calls ahead":
      "This address has as many calls ahead as one address may hold. To book another, cancel one with the link in its mail.",
    "booked this hour":
      "A call was booked for this address less than an hour ago; its invitation is in this inbox. To book another, try again in an hour.",
    "booked today":
      "Three calls were booked for this address in the last day, the most one address may be sent. To book another, try again tomorrow.",
  }[news.why];
  const again = markedLink(context.siteUrl, "/book", "booking-not-made");
  const details: [string, string][] = [
    ["Asked for", momentLabel(Date.parse(news.start), news.zone)],
    ["About", context.serviceTitle],
  ];
  return mail({
    to,
    subject: oneLine(`Your call with ${context.ownerName} was not booked`),
    footer: `You get this mail because this address was given to book a call on ${context.siteUrl}/book. If that was not you, there is nothing to do: nothing was booked.`,
    lead: `A call was asked for with this address and was not booked. ${why}`,
    html: `${detailsHtml(details)}
<p style="margin:0">${button(again, "Book another time")}</p>`,
    text: `${detailsText(details)}

Book another time: ${again}`,
    replyTo: context.ownerAddress,
    headers: { "Auto-Submitted": "auto-replied" },
  });
}
