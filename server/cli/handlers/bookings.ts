import type { z } from "zod";
import { loadServiceTitles } from "../../../content/catalog.ts";
import { hoursText, parseDatesText, parseHoursText } from "../../../contract/booking-hours.ts";
import {
  type Availability,
  type AvailabilityInput,
  availabilitySchema,
  type Booking,
  cancelBookingRequestSchema,
  moveBookingRequestSchema,
  weekdayNames,
} from "../../../contract/bookings.ts";
import { plural } from "../../../contract/plural.ts";
import { instantOf, momentLabel, wallTime } from "../../../contract/time-zones.ts";
import { meetsAny } from "../../bookings/availability.ts";
import { calendarReader } from "../../bookings/busy-calendar.ts";
import { bookingActions, moveRefusals, toBooking } from "../../bookings/owner-actions.ts";
import { createBookingsRepository } from "../../bookings/repository.ts";
import { ownerZoneIn } from "../../bookings/settings-repository.ts";
import { enquiryReader } from "../../enquiries/owner-actions.ts";
import { onFirstUse } from "../../lib/on-first-use.ts";
import {
  AdminError,
  agreed,
  type CommandContext,
  exitCodes,
  ownerAction,
  parseId,
  usageError,
  type Values,
} from "../command.ts";
import { listed, printedJson } from "../table.ts";

/**
 * The bookings on the configured database, read as the console reads them,
 * and the owner's actions. A cancellation queued here is sent by the
 * server's outbox worker, which looks for new mail every second.
 */
async function bookingsOf({ store, config, allowPrivate, clock }: CommandContext) {
  const repository = createBookingsRepository(await store());
  const zoneOf = (availability: Availability) => ownerZoneIn(availability, config.bookingTimeZone);
  const ownerZone = async () => zoneOf(await repository.availability());
  const url = config.BOOKING_BUSY_CALENDAR_URL;
  const reader = url
    ? calendarReader({
        url,
        siteUrl: config.siteUrl,
        clock,
        hours: async () => {
          const availability = await repository.availability();
          return { zone: zoneOf(availability), horizonDays: availability.horizonDays };
        },
        ...(allowPrivate ? { allowPrivate } : {}),
      })
    : null;
  /** The owner's calendar, read once by the command that asks for it; null when none is set. */
  const busyCalendar = onFirstUse(async () => (reader ? await reader.read() : null));
  const desk = {
    repository,
    serviceTitle: enquiryReader(loadServiceTitles()).serviceTitle,
    ownerEmail: config.OWNER_EMAIL ?? config.contactEmail,
    woken: () => {},
    clock,
    ownerZone,
    busy: async () => {
      const read = await busyCalendar();
      return read && "busy" in read ? read.busy : [];
    },
  };
  const actions = bookingActions(desk, config.siteUrl);
  return { repository, desk, ownerZone, actions, busyCalendar };
}

const bookingId = ({ positionals }: CommandContext) => parseId(positionals[0], "ID");
const noBooking = (id: number) => `There is no booking ${id}.`;

export const bookingsList = listed(
  async (context) => {
    const { repository, desk } = await bookingsOf(context);
    const list = await repository.list(context.values.past ? "past" : "upcoming", 100_000);
    return list.map((stored) => toBooking(desk, stored));
  },
  ["id", "start", "status", "service", "name", "email", "reader_zone", "note"],
  (b) => [
    b.id,
    b.start,
    b.status,
    b.serviceTitle,
    b.name,
    b.email,
    b.readerZone,
    b.note.split(/\r?\n/)[0] ?? "",
  ],
);

function statusLine(booking: Booking): string {
  if (booking.status === "booked") return "booked";
  if (booking.undeliverable) return "cancelled: the reader's address does not receive mail";
  return booking.cancelledBy === "owner" ? "cancelled by you" : "cancelled by the reader";
}

export async function bookingsShow(context: CommandContext) {
  const id = bookingId(context);
  const { repository, desk, ownerZone } = await bookingsOf(context);
  const found = await repository.get(id);
  if (!found) throw new AdminError(noBooking(id), exitCodes.notFound);
  const booking = toBooking(desk, found);
  if (printedJson(context, booking)) return;
  const zone = await ownerZone();
  const lines = [
    `Call ${booking.id}, ${statusLine(booking)}`,
    `When: ${momentLabel(Date.parse(booking.start), zone)}, ${(Date.parse(booking.end) - Date.parse(booking.start)) / 60_000} minutes`,
    `The reader's time: ${momentLabel(Date.parse(booking.start), booking.readerZone)}`,
    `With: ${booking.name} <${booking.email}>`,
    `Service: ${booking.serviceTitle}`,
    ...(booking.meetingUrl ? [`Room: ${booking.meetingUrl}`] : []),
    `Booked: ${booking.createdAt}`,
    ...(booking.cancelMessage ? [`Your message: ${booking.cancelMessage}`] : []),
    ...(booking.note ? ["", booking.note] : []),
  ];
  context.stdout.write(`${lines.join("\n")}\n`);
}

export async function bookingsCancel(context: CommandContext) {
  const id = bookingId(context);
  const request = cancelBookingRequestSchema.safeParse({ message: context.values.message ?? "" });
  if (!request.success) {
    throw usageError(request.error.issues.map((issue) => issue.message).join(" "));
  }
  const { repository, actions } = await bookingsOf(context);
  const found = await repository.get(id);
  if (found?.status !== "booked") {
    throw new AdminError(
      `There is no booked call ${id}; it may be cancelled already.`,
      exitCodes.notFound,
    );
  }
  await agreed(
    context,
    `Cancelling call ${id} mails ${found.name} a cancellation.`,
    `Cancel the call with ${found.name} at ${found.start} and mail them the cancellation?`,
  );
  const cancelled = await actions.cancel(context.actor, id, request.data.message);
  if (cancelled === "not_found") {
    throw new AdminError(`Call ${id} was cancelled meanwhile.`, exitCodes.notFound);
  }
  if (cancelled === "begun") {
    throw new AdminError(`Call ${id} has begun; it can no longer be cancelled.`);
  }
  if (!printedJson(context, cancelled)) {
    context.stdout.write(
      `Cancelled call ${id}; ${cancelled.name} and you are sent the cancellation.\n`,
    );
  }
}

/** `--to`: a time with its offset, or a wall time in the owner's `zone`; null when it is neither. */
function moveTarget(text: string, zone: string): string | null {
  const time = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/i;
  const wall = time.exec(text.trim());
  if (!wall) return null;
  if (wall[8]) {
    const instant = Date.parse(text.trim().replace(" ", "T").toUpperCase());
    return Number.isNaN(instant) ? null : new Date(instant).toISOString();
  }
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0] = wall.slice(1, 6).map(Number);
  const instant = instantOf({ year, month, day }, hour * 60 + minute, zone);
  if (instant === null || Number.isNaN(instant)) return null;
  // A date or time the calendar or the zone's clocks do not have (31 February, a skipped hour).
  const back = wallTime(instant, zone);
  const same =
    [back.year, back.month, back.day, back.hour, back.minute].join() ===
    wall.slice(1, 6).map(Number).join();
  const seconds = Number(wall[6]?.slice(1) ?? 0);
  return same && seconds === 0 ? new Date(instant).toISOString() : null;
}

export async function bookingsMove(context: CommandContext) {
  const id = bookingId(context);
  const { values } = context;
  if (typeof values.to !== "string") throw usageError("Say when with --to 2026-12-09T10:00.");
  const { actions, ownerZone, busyCalendar, repository, desk } = await bookingsOf(context);
  const zone = await ownerZone();
  const start = moveTarget(values.to, zone);
  if (!start) {
    throw usageError(
      `--to takes a time such as 2026-12-09T10:00 (in ${zone}) or one with its offset, not "${values.to}".`,
    );
  }
  const request = moveBookingRequestSchema.safeParse({ start, reason: values.reason ?? "" });
  if (!request.success) {
    throw usageError(request.error.issues.map((issue) => issue.message).join(" "));
  }
  const moved = await actions.move(context.actor, id, start, request.data.reason);
  if (moved === "not_found") throw new AdminError(noBooking(id), exitCodes.notFound);
  /** That the owner's calendar could not be read, or that some of its events were skipped. */
  const calendarSays = async () => {
    const read = await busyCalendar();
    if (!read) return "";
    if ("why" in read) return `\nYour calendar could not be read (${read.why}).`;
    const skipped = read.skipped.length;
    return skipped
      ? `\nYour calendar: ${plural(skipped, "event")} skipped: could not be expanded.`
      : "";
  };
  if (moved === "not_free" || moved === "same") {
    const times = await actions.moveTimes(id);
    const near =
      typeof times === "string"
        ? []
        : times.starts
            .filter((free) => Math.abs(Date.parse(free) - Date.parse(start)) < 2 * 86_400_000)
            .slice(0, 6)
            .map(
              (free) =>
                `  ${momentLabel(Date.parse(free), zone)}${times.busy.includes(free) ? "  busy in your calendar" : ""}`,
            );
    const list = near.length > 0 ? `\nFree times near it:\n${near.join("\n")}` : "";
    throw usageError(`${moveRefusals[moved]}${list}${await calendarSays()}`);
  }
  if (typeof moved === "string") throw new AdminError(moveRefusals[moved]);
  if (!printedJson(context, moved)) {
    const hours = await repository.availability();
    const busy = meetsAny(hours, await desk.busy())(Date.parse(moved.start))
      ? "\nIt meets a busy time in your own calendar."
      : await calendarSays();
    context.stdout.write(
      `Moved call ${id} to ${momentLabel(Date.parse(moved.start), zone)}; ${moved.name} and you are sent the new invitation.${busy}\n`,
    );
  }
}

export const bookingsDelete = ownerAction(
  bookingId,
  async (context, id) => {
    const removed = await (await bookingsOf(context)).actions.remove(context.actor, id);
    if (removed === "ahead") {
      throw new AdminError(
        `Call ${id} is still ahead: cancel it first ("bookings cancel ${id}"), so both calendars hear of it.`,
      );
    }
    return removed;
  },
  (id, _deleted, { json }) =>
    json ? `${JSON.stringify({ id, deleted: true })}\n` : `Deleted booking ${id}.\n`,
  noBooking,
);

/** A whole number written in digits, as an option's value. */
function digits(value: string, name: string): number {
  if (!/^\d{1,6}$/.test(value)) throw usageError(`--${name} is a whole number, not "${value}".`);
  return Number(value);
}

/** An option's value read by `read`, null for "none", undefined when not given. */
function option<T>(
  values: Values,
  name: string,
  read: (text: string) => T,
  none = false,
): T | null | undefined {
  const value = values[name];
  if (typeof value !== "string") return undefined;
  return none && value.trim().toLowerCase() === "none" ? null : read(value);
}

/** The settings the options change, over the ones in force. */
function changedAvailability(values: Values, current: Availability): AvailabilityInput {
  const next: AvailabilityInput = { ...current, weekly: { ...current.weekly } };
  if (typeof values.zone === "string") {
    next.timeZone = values.zone.trim().toLowerCase() === "default" ? null : values.zone;
  }
  for (const day of weekdayNames) {
    const text = values[day];
    if (typeof text !== "string") continue;
    const stretches = parseHoursText(text);
    if (typeof stretches === "string") throw usageError(`--${day}: ${stretches}`);
    next.weekly[day] = stretches;
  }
  const number = (name: string) => option(values, name, (text) => digits(text, name));
  next.callMinutes = number("length") ?? next.callMinutes;
  const firstCall = option(values, "first-call", (text) => text.trim().toLowerCase());
  if (firstCall !== undefined) {
    if (firstCall !== "free" && firstCall !== "paid") {
      throw usageError(`--first-call: say "free" or "paid", not "${firstCall}".`);
    }
    next.firstCallFree = firstCall === "free";
  }
  next.bufferMinutes = number("buffer") ?? next.bufferMinutes;
  next.noticeHours = number("notice") ?? next.noticeHours;
  next.horizonDays = number("horizon") ?? next.horizonDays;
  const dailyMax = option(values, "daily-max", (text) => digits(text, "daily-max"), true);
  if (dailyMax !== undefined) next.dailyMax = dailyMax;
  const datesOff = option(values, "dates-off", parseDatesText, true);
  if (datesOff !== undefined) next.datesOff = datesOff ?? [];
  const meeting = option(values, "meeting", (text) => text as Availability["meeting"]);
  if (meeting) next.meeting = meeting;
  const meetingUrl = option(values, "meeting-url", (url) => url.trim(), true);
  if (meetingUrl !== undefined) next.meetingUrl = meetingUrl;
  return next;
}

/** The option each setting is changed by (a day's hours by the day's name; the zone's below). */
const optionOfSetting: Record<string, string> = {
  callMinutes: "length",
  bufferMinutes: "buffer",
  noticeHours: "notice",
  horizonDays: "horizon",
  dailyMax: "daily-max",
  datesOff: "dates-off",
  meeting: "meeting",
  meetingUrl: "meeting-url",
};

/** A refused setting's message, after the option it came from: "--tue: A stretch…". */
function refusalOf({ path, message, input }: z.core.$ZodIssue): string {
  const [setting, day] = path;
  // The console's message points at its list of zones; here there is none.
  if (setting === "timeZone") {
    return `--zone: "${String(input)}" is not a time zone: give an IANA zone such as Europe/Paris, or "default".`;
  }
  const name = setting === "weekly" ? day : optionOfSetting[String(setting)];
  const given = setting === "datesOff" && typeof input === "string" ? `, not "${input}"` : "";
  return name === undefined ? message : `--${String(name)}: ${message.replace(/\.$/, `${given}.`)}`;
}

function availabilityText(
  availability: Availability,
  ownerZone: string,
  meetingUrl: string | undefined,
): string {
  const { weekly } = availability;
  const days = weekdayNames.map((day) => `  ${day}  ${hoursText(weekly[day]) || "off"}`);
  // The room an invitation names now, and where it comes from when not from here.
  const room =
    availability.meeting === "jitsi"
      ? "a new Jitsi Meet room per call"
      : (availability.meetingUrl ??
        (meetingUrl
          ? `${meetingUrl} (BOOKING_MEETING_URL)`
          : "none: each invitation says you will send the link (set --meeting-url, or --meeting jitsi)"));
  return [
    `Time zone: ${ownerZone}${availability.timeZone ? "" : " (the default)"}`,
    "Hours:",
    ...days,
    `Calls: ${plural(availability.callMinutes, "minute")}, ${plural(availability.bufferMinutes, "minute")} free after each`,
    `First call: ${availability.firstCallFree ? "free" : "paid"}`,
    `Notice: ${plural(availability.noticeHours, "hour")}; up to ${plural(availability.horizonDays, "day")} ahead`,
    `Most calls a day: ${availability.dailyMax ?? "no limit"}`,
    `Dates off: ${availability.datesOff.join(", ") || "none"}`,
    `Room: ${room}`,
    "",
  ].join("\n");
}

export async function bookingsHours(context: CommandContext) {
  const { values } = context;
  const { repository, actions, ownerZone } = await bookingsOf(context);
  let availability = await repository.availability();
  // Every option but --json changes a setting.
  if (Object.keys(values).some((name) => name !== "json")) {
    const checked = availabilitySchema.safeParse(changedAvailability(values, availability), {
      reportInput: true,
    });
    if (!checked.success) {
      throw usageError([...new Set(checked.error.issues.map(refusalOf))].join(" "));
    }
    availability = await actions.setAvailability(context.actor, checked.data);
  }
  if (!printedJson(context, availability)) {
    context.stdout.write(
      availabilityText(availability, await ownerZone(), context.config.BOOKING_MEETING_URL),
    );
  }
}

export async function bookingsFeed(context: CommandContext) {
  const { values } = context;
  if (Boolean(values.new) === Boolean(values.revoke)) {
    throw usageError("Say --new for a new address, or --revoke to stop the feed.");
  }
  const { actions } = await bookingsOf(context);
  if (values.new) {
    const { url, replaced } = await actions.newFeed(context.actor);
    const before = replaced ? " The address before no longer works." : "";
    context.stdout.write(
      `${url}\nSubscribe to it in your calendar app; keep it secret.${before}\n`,
    );
    return;
  }
  if ((await actions.revokeFeed(context.actor)) === "not_found") {
    throw new AdminError("There is no calendar feed.", exitCodes.notFound);
  }
  context.stdout.write("The calendar feed is revoked; its address no longer works.\n");
}
