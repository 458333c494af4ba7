import type { SlotsResponse } from "../../contract/bookings.ts";
import { escapeHtml } from "../../contract/html.ts";
import { limits } from "../../contract/limits.ts";
import {
  momentLabel,
  ownerZoneNote,
  slotsByDay,
  timeZones,
  zoneName,
} from "../../contract/time-zones.ts";
import { hidden, paragraph, problemList } from "../lib/action-page.ts";
import {
  contactFieldsHtml,
  fieldProblems,
  formFieldsHtml,
  honeypotHtml,
  type Mistyped,
  type FieldProblems as Problems,
} from "../lib/form-html.ts";

/**
 * The booking form as the server writes it (server/bookings/pages.ts): plain
 * HTML that books by an ordinary post, for /book, its fragment and the
 * reschedule page (docs/product.md, "Book a call"). Everything a reader typed
 * is escaped.
 */

export const bookPath = "/book";

/** Days of free times the form lists at first, and "Show more days" adds: a week is enough to choose from. */
export const daysAtOnce = 7;

export const alert = (text: string) =>
  `<p class="booking-alert" role="alert">${escapeHtml(text)}</p>`;

const option = (zone: string) =>
  `<option value="${escapeHtml(zone)}">${escapeHtml(zoneName(zone))}</option>`;
/** Every zone's option, written once: the select is most of the form's bytes. */
let zoneOptions: { zones: string[]; html: string } | undefined;

const zoneNote = (slots: SlotsResponse) => escapeHtml(ownerZoneNote(slots));

function zoneSelect(id: string, chosen: string): string {
  zoneOptions ??= { zones: timeZones(), html: timeZones().map(option).join("") };
  const html = zoneOptions.zones.includes(chosen)
    ? zoneOptions.html
    : timeZones(chosen).map(option).join("");
  const mark = `<option value="${escapeHtml(chosen)}">`;
  return `<label for="${id}" class="booking-label">Time zone</label>
<select id="${id}" name="zone" class="field booking-zone-select" aria-describedby="${id}-note">${html.replace(mark, `${mark.slice(0, -1)} selected>`)}</select>`;
}

/**
 * The free times as radio buttons, one group per day, each named by its local
 * time; with `more`, only the first `more.days` days, each with an id by its place
 * (`day-8`), and a link to the same page with a week more when there are, which lands
 * on the first day it adds.
 */
export function timesHtml(
  starts: string[],
  zone: string,
  chosen?: string,
  more?: { days: number; href: (days: number) => string },
): string {
  const all = slotsByDay(starts, zone, more?.days);
  const days = more ? all.slice(0, more.days) : all;
  if (days.length === 0) {
    // As the island says it (booking-form.tsx).
    return `<p class="booking-empty">No free times in the coming weeks. <a href="/services#send-enquiry">Send an enquiry</a> instead.</p>`;
  }
  const moreLink =
    more && all.length > days.length
      ? `\n<a class="btn-secondary" href="${escapeHtml(more.href(more.days + daysAtOnce))}#day-${days.length + 1}">Show more days</a>`
      : "";
  return `<fieldset class="booking-times" data-zone="${escapeHtml(zone)}"><legend class="booking-label">Free times, in ${escapeHtml(zoneName(zone))}</legend>
${days
  .map(
    (day, index) =>
      `<fieldset class="booking-day"${more ? ` id="day-${index + 1}"` : ""}><legend class="booking-day-label">${escapeHtml(day.label)}</legend><div class="booking-slots">${day.slots
        .map(
          (slot) =>
            `<label class="booking-slot"><input type="radio" name="start" value="${escapeHtml(slot.start)}" required${slot.start === chosen ? " checked" : ""}><span>${escapeHtml(slot.label)}</span></label>`,
        )
        .join("")}</div></fieldset>`,
  )
  .join("\n")}${moreLink}
</fieldset>`;
}

export type Filled = {
  name?: string;
  email?: string;
  service?: string;
  note?: string;
  start?: string;
  /** The address the reader was asked about and kept (`keptAddressOf`). */
  kept?: string;
};

/** The form's fields a refusal may concern, in order. */
const bookingFields = ["name", "email", "service", "note"] as const;
type FieldProblems = Problems<(typeof bookingFields)[number]>;
/** The problems of the fields the form marks, the first for each, from `[field, message]` pairs. */
export const bookingProblems = (pairs: [unknown, string][]) => fieldProblems(bookingFields, pairs);

/** The address of /book listing `days` days, in `zone`, with `service` chosen. */
export const moreDays = (zone: string, service?: string) => (days: number) => {
  const query = new URLSearchParams({ zone });
  if (service) query.set("service", service);
  query.set("days", String(days));
  return `${bookPath}?${query}`;
};

/** What the form is answered with besides its times: what to change, an address to check (`mistyped`). */
type FormAsked = { problem?: string; problems?: FieldProblems; mistyped?: Mistyped | null };

/** How the page asks for the form: `FormAsked`, with the times given (a refusal's) and the days listed. */
export type FormOptions = FormAsked & {
  given?: SlotsResponse;
  days?: number;
  /** The form token the post sent and did not spend, carried on (`carried`). */
  sent?: string | undefined;
};

/**
 * The form, with the free times of `slots`: its first `days` days, and a
 * "Show more days" link to /book with a week more, the zone and service kept.
 */
export function formHtml({
  slots,
  filled,
  problem,
  problems = {},
  mistyped = null,
  days,
  formToken,
  services,
  retentionDays,
}: FormAsked & {
  slots: SlotsResponse;
  filled: Filled;
  days: number;
  formToken: string;
  services: { id: string; title: string }[];
  retentionDays: number;
}): string {
  const href = moreDays(slots.zone, filled.service);
  const form = formFieldsHtml({
    id: "booking",
    order: bookingFields,
    filled,
    problems,
    look: { label: "booking-label", control: "field", problem: "text-sm text-red-300" },
  });
  return `<div class="booking" id="booking-form-html">
${problem ? alert(problem) : ""}
<div><form method="get" action="${bookPath}" class="booking-zone">
${zoneSelect("booking-zone", slots.zone)}
${filled.service ? hidden("service", filled.service) : ""}
<button type="submit" class="btn-secondary">Show times</button>
</form>
<p id="booking-zone-note" class="booking-small mt-1">${zoneNote(slots)}</p></div>
<form method="post" action="${bookPath}" class="booking-form">
${hidden("zone", slots.zone)}${hidden("formToken", formToken)}${days > daysAtOnce ? hidden("days", String(days)) : ""}
${honeypotHtml("booking-honeypot")}
${timesHtml(slots.starts, slots.zone, filled.start, { days, href })}
${
  slots.starts.length === 0
    ? ""
    : `<div class="booking-fields">
${contactFieldsHtml(form, services, filled.service ?? "", mistyped, filled.kept)}
${form.area("note", "What would you like to discuss? (optional)", ` rows="4" maxlength="${limits.bookingNoteMax}"`)}
<p class="booking-small">The invitation goes to this address, with links to cancel or move the call. Your booking is kept ${retentionDays} days after the call, then deleted: see the <a href="/privacy#bookings">privacy policy</a>.</p>
<button type="submit" class="btn-primary">Book this time</button>
</div>`
}
</form>
</div>`;
}

/** The reschedule page's body: the zone's select, the times of `slots` to move the call to, and why a move was refused. */
export function rescheduleHtml(
  token: string,
  slots: SlotsResponse,
  current: { start: string; readerZone: string },
  problem?: string,
): string {
  const path = `${bookPath}/reschedule`;
  return `${problem ? problemList([problem]) : ""}
${paragraph(`Your call is on ${momentLabel(Date.parse(current.start), current.readerZone)}. Choose another time; nothing changes until you press the button.`)}
<form method="get" action="${path}">
${hidden("token", token)}
${zoneSelect("reschedule-zone", slots.zone)}
<button type="submit">Show times</button>
</form>
<p id="reschedule-zone-note">${zoneNote(slots)}</p>
<form method="post" action="${path}">
${hidden("token", token)}${hidden("zone", slots.zone)}
${timesHtml(slots.starts, slots.zone)}
${slots.starts.length > 0 ? '<p><button type="submit">Move the call</button></p>' : ""}
</form>`;
}

export function bookedHtml(start: string, zone: string, ownerZone: string): string {
  const instant = Date.parse(start);
  const yours = momentLabel(instant, zone);
  const theirs = momentLabel(instant, ownerZone);
  return `<div class="booking-done" role="status">
<h2 class="booking-done-title">You're booked</h2>
<p>Your call is on <strong>${escapeHtml(yours)}</strong>${yours === theirs ? "" : `, which is ${escapeHtml(theirs)} for me`}.</p>
<p>An invitation for your calendar is on its way to your inbox, with links to cancel or move the call.</p>
</div>`;
}
