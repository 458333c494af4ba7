import type { SlotsResponse } from "../../contract/bookings.ts";
import { otherService, otherServiceLabel } from "../../contract/enquiries.ts";
import { escapeHtml } from "../../contract/html.ts";
import { limits } from "../../contract/limits.ts";
import {
  momentLabel,
  ownerZoneNote,
  slotsByDay,
  timeZones,
  zoneName,
} from "../../contract/time-zones.ts";
import { hidden } from "../lib/action-page.ts";

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

export const zoneNote = (ownerZone: string) => escapeHtml(ownerZoneNote(ownerZone));

export function zoneSelect(id: string, chosen: string): string {
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
    return `<p class="booking-empty">No free times in the coming weeks. Send an enquiry instead: <a href="/services#send-enquiry">Send an enquiry</a>.</p>`;
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
};

/** What the server refused in a field of the form, by the field's name. */
export type FieldProblems = Partial<Record<"name" | "email" | "service" | "note", string>>;

/**
 * A refused field's marks, as the island's form has them: invalid, described by its message,
 * and the first one in the form focused when the page loads, its name, state and message read
 * together.
 */
function refused(problems: FieldProblems, field: keyof FieldProblems) {
  const problem = problems[field];
  if (!problem) return { marks: "", line: "" };
  const first = fieldOrder.find((each) => problems[each]) === field;
  return {
    marks: ` aria-invalid="true" aria-describedby="booking-${field}-problem"${first ? " autofocus" : ""}`,
    line: `\n<p id="booking-${field}-problem" class="text-sm text-red-300">${escapeHtml(problem)}</p>`,
  };
}
const fieldOrder = ["name", "email", "service", "note"] as const;

/** The problems of the fields the form marks, the first for each, from `[field, message]` pairs. */
export function fieldProblems(pairs: [unknown, string][]): FieldProblems {
  const problems: FieldProblems = {};
  for (const [field, problem] of pairs) {
    const known = fieldOrder.find((each) => each === field);
    if (known) problems[known] ??= problem;
  }
  return problems;
}

function serviceSelect(
  services: { id: string; title: string }[],
  chosen: string,
  marks: string,
): string {
  const choices = [...services, { id: otherService, title: otherServiceLabel }];
  return `<label for="booking-service" class="booking-label">Service</label>
<select id="booking-service" name="service" class="field" required${marks}>
<option value=""${chosen ? "" : " selected"}>Choose a service</option>
${choices
  .map(
    (choice) =>
      `<option value="${escapeHtml(choice.id)}"${choice.id === chosen ? " selected" : ""}>${escapeHtml(choice.title)}</option>`,
  )
  .join("")}
</select>`;
}

/** The address of /book listing `days` days, in `zone`, with `service` chosen. */
export const moreDays = (zone: string, service?: string) => (days: number) => {
  const query = new URLSearchParams({ zone });
  if (service) query.set("service", service);
  query.set("days", String(days));
  return `${bookPath}?${query}`;
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
  days,
  formToken,
  services,
  retentionDays,
}: {
  slots: SlotsResponse;
  filled: Filled;
  problem?: string;
  problems?: FieldProblems;
  days: number;
  formToken: string;
  services: { id: string; title: string }[];
  retentionDays: number;
}): string {
  const href = moreDays(slots.zone, filled.service);
  const [name, email, service, note] = [
    refused(problems, "name"),
    refused(problems, "email"),
    refused(problems, "service"),
    refused(problems, "note"),
  ];
  return `<div class="booking" id="booking-form-html">
${problem ? alert(problem) : ""}
<div><form method="get" action="${bookPath}" class="booking-zone">
${zoneSelect("booking-zone", slots.zone)}
${filled.service ? hidden("service", filled.service) : ""}
<button type="submit" class="btn-secondary">Show times</button>
</form>
<p id="booking-zone-note" class="booking-small mt-1">${zoneNote(slots.ownerZone)}</p></div>
<form method="post" action="${bookPath}" class="booking-form">
${hidden("zone", slots.zone)}${hidden("formToken", formToken)}${days > daysAtOnce ? hidden("days", String(days)) : ""}
<div aria-hidden="true" class="booking-honeypot"><label>Website <input type="text" name="website" tabindex="-1" autocomplete="off"></label></div>
${timesHtml(slots.starts, slots.zone, filled.start, { days, href })}
${
  slots.starts.length === 0
    ? ""
    : `<div class="booking-fields">
<label for="booking-name" class="booking-label">Your name</label>
<input id="booking-name" type="text" name="name" class="field" required maxlength="${limits.enquiryNameMax}" autocomplete="name" value="${escapeHtml(filled.name ?? "")}"${name.marks}>${name.line}
<label for="booking-email" class="booking-label">Your email</label>
<input id="booking-email" name="email" type="email" class="field" required maxlength="${limits.emailMax}" autocomplete="email" value="${escapeHtml(filled.email ?? "")}"${email.marks}>${email.line}
${serviceSelect(services, filled.service ?? "", service.marks)}${service.line}
<label for="booking-note" class="booking-label">What would you like to discuss?</label>
<textarea id="booking-note" name="note" class="field" rows="4" maxlength="${limits.bookingNoteMax}"${note.marks}>${escapeHtml(filled.note ?? "")}</textarea>${note.line}
<p class="booking-small">The invitation goes to this address, with links to cancel or move the call. Your booking is kept ${retentionDays} days after the call, then deleted: see the <a href="/privacy#bookings">privacy policy</a>.</p>
<button type="submit" class="btn-primary">Book this time</button>
</div>`
}
</form>
</div>`;
}

export function bookedHtml(start: string, zone: string, ownerZone: string): string {
  const instant = Date.parse(start);
  const yours = momentLabel(instant, zone);
  const theirs = momentLabel(instant, ownerZone);
  return `<div class="booking-done" role="status">
<h2 class="booking-done-title">You're booked</h2>
<p>Your call is on <strong>${escapeHtml(yours)}</strong>${yours === theirs ? "" : `, which is ${escapeHtml(theirs)} for the engineer`}.</p>
<p>An invitation for your calendar is on its way to your inbox, with links to cancel or move the call.</p>
</div>`;
}
