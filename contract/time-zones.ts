/*
 * Wall-clock time in an IANA zone, with Intl alone (Temporal is not built
 * into Node 24 or every browser yet). The server lays out the owner's hours
 * with it and both sides show a time in a reader's zone with it
 * (docs/decisions/043-bookings.md).
 */

/**
 * One date format per zone and purpose, made once: making one costs far more
 * than using it, and a list of free times formats hundreds of times in a zone.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(
  zone: string,
  purpose: string,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  const key = `${purpose} ${zone}`;
  let made = formatters.get(key);
  if (!made) {
    made = new Intl.DateTimeFormat("en-GB", { timeZone: zone, ...options });
    formatters.set(key, made);
  }
  return made;
}

const partsFormatter = (zone: string) =>
  formatter(zone, "parts", {
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    weekday: "short",
  });

let listed: ReadonlySet<string> | undefined;

/**
 * Whether Intl knows `zone` as an IANA time zone. Intl's own list of zones
 * answers for nearly every name at no cost; only a name it does not list as
 * written ("UTC", "US/Eastern", another case) is tried on a date format, whose
 * first one loads ICU's date data: about 25 ms and 8 MB that a server's start,
 * which checks the owner's zone, need not spend
 * (docs/decisions/053-filled-pages-load-their-renderer.md).
 */
export function isTimeZone(zone: string): boolean {
  if (zone === "" || zone.length > 64) return false;
  listed ??= new Set(Intl.supportedValuesOf("timeZone").map(currentZoneName));
  if (listed.has(zone)) return true;
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `zone` is one the "Time zone" select offers (timeZones): a zone of
 * Intl's list, or UTC, in any of its IANA spellings, as a browser may give it
 * ("Asia/Kolkata", "America/Argentina/Buenos_Aires" for the list's
 * "Asia/Calcutta" and "America/Buenos_Aires"); never an offset ("+05:30") nor
 * a zone the list leaves out ("SystemV/AST4", "Etc/GMT+5"). A reader's zone
 * is held to it; the owner's own (BOOKING_TIMEZONE) may be any isTimeZone.
 */
export function isOfferedTimeZone(zone: string): boolean {
  if (!isTimeZone(zone)) return false;
  if (listed?.has(zone)) return true;
  const { timeZone } = new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions();
  return timeZone === "UTC" || listed?.has(currentZoneName(timeZone)) === true;
}

/**
 * An offered zone (isOfferedTimeZone) by the name it is kept under: the
 * list's own spelling when it is written so, else Intl's name for it in
 * today's spelling ("asia/kolkata", "Asia/Calcutta" and "ASIA/KOLKATA" are
 * all "Asia/Kolkata"; "etc/utc" is "UTC"), so that a reader's mails and the
 * zone select never meet a spelling of their own. Null when not offered.
 */
export function offeredZoneName(zone: string): string | null {
  if (!isOfferedTimeZone(zone)) return null;
  if (listed?.has(zone)) return zone;
  return currentZoneName(
    new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions().timeZone,
  );
}

type WallTime = {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** 0 Sunday … 6 Saturday. */
  weekday: number;
};

const weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** What a clock on the wall in `zone` reads at `instant`. */
export function wallTime(instant: Date | number, zone: string): WallTime {
  const parts: Record<string, string> = {};
  for (const part of partsFormatter(zone).formatToParts(instant)) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    weekday: weekdays.indexOf(parts.weekday ?? ""),
  };
}

/** The widest a zone's offset from UTC runs, either way (-12 to +14 hours): 14 hours. */
export const widestOffsetMs = 14 * 3_600_000;

/** The zone's offset from UTC at `instant`, in minutes (India +330, New York -300 or -240). */
function offsetMinutes(instant: number, zone: string): number {
  const wall = wallTime(instant, zone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  return Math.round((asUtc - Math.floor(instant / 60_000) * 60_000) / 60_000);
}

/**
 * The instant at which a clock in `zone` reads the given date and time; null
 * when that reading never happens there (the hour skipped when clocks go
 * forward). A reading that happens twice (clocks going back) is the first.
 */
export function instantOf(
  date: { year: number; month: number; day: number },
  minutesOfDay: number,
  zone: string,
): number | null {
  const midnight = Date.UTC(date.year, date.month - 1, date.day);
  const wall = midnight + minutesOfDay * 60_000;
  // All but the few days a year the clocks change: the day's one offset, read once a day.
  const steady = steadyOffset(midnight, zone);
  if (steady !== null) return wall - steady * 60_000;
  // The same few readings are asked for at every look at the free times: each is worked out once.
  const key = `${zone} ${wall}`;
  const known = instants.get(key);
  if (known !== undefined) return known;
  if (instants.size >= instantsKept) instants.clear();
  const found = firstInstant(wall, zone);
  instants.set(key, found);
  return found;
}

const instants = new Map<string, number | null>();
const instantsKept = 10_000;

/**
 * The offset every reading of the day at `midnight` (a date's 00:00 written as UTC) has
 * in `zone`, or null when the clocks change near it. Its readings happen between 14 hours
 * before that midnight and 38 hours after (offsets run from -12 to +14 hours); where the
 * zone keeps one offset across that span, each reading happens once, at that offset. Read
 * every 13 hours: the clocks never change twice, and back, so close together. Each day is
 * worked out once: a year of 10-minute calls read the zone's clock at each, for seconds
 * a look at the free times.
 */
function steadyOffset(midnight: number, zone: string): number | null {
  const key = `${zone} ${midnight}`;
  const known = steadyDays.get(key);
  if (known !== undefined) return known;
  if (steadyDays.size >= steadyDaysKept) steadyDays.clear();
  const first = offsetMinutes(midnight - widestOffsetMs, zone);
  let found: number | null = first;
  for (let hours = -1; hours <= 38 && found !== null; hours += 13) {
    if (offsetMinutes(midnight + hours * 3_600_000, zone) !== first) found = null;
  }
  steadyDays.set(key, found);
  return found;
}

const steadyDays = new Map<string, number | null>();
const steadyDaysKept = 10_000;

function firstInstant(wall: number, zone: string): number | null {
  // The offsets a day can have are those a few hours either side.
  const candidates = new Set([
    offsetMinutes(wall - widestOffsetMs, zone),
    offsetMinutes(wall, zone),
    offsetMinutes(wall + widestOffsetMs, zone),
  ]);
  const matches = [...candidates]
    .map((offset) => wall - offset * 60_000)
    .filter((instant) => offsetMinutes(instant, zone) * 60_000 === wall - instant)
    .sort((a, b) => a - b);
  return matches[0] ?? null;
}

/** `2026-03-29`: the calendar date in `zone` at `instant`. */
export function dateKey(instant: Date | number, zone: string): string {
  const { year, month, day } = wallTime(instant, zone);
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** "Monday 30 March 2026": a day as a heading, in `zone`. */
export function dayLabel(instant: Date | number, zone: string): string {
  return formatter(zone, "day", { weekday: "long", day: "numeric", month: "long", year: "numeric" })
    .formatToParts(instant)
    .filter((part) => part.type !== "literal")
    .map((part) => part.value)
    .join(" ");
}

/** "10:00": a time of day in `zone`, on the 24-hour clock. */
export function timeLabel(instant: Date | number, zone: string): string {
  return formatter(zone, "time", { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(
    instant,
  );
}

/**
 * "Monday 30 March 2026, 10:00 (Europe / London, GMT+1)": a whole moment in `zone`, named by
 * its place and its offset from GMT ("GMT" alone at none, where Intl says "GMT+0"), in every
 * page and mail alike. An offset reads the same
 * to a reader anywhere and compares with their own; an abbreviation ("CET", "EST") is known
 * where it is used, and "IST" is three zones. Its minus is a non-breaking hyphen, so a narrow
 * line never parts "GMT" from "-5".
 */
export function momentLabel(instant: Date | number, zone: string): string {
  const named = formatter(zone, "offset", { timeZoneName: "shortOffset" });
  const offset = (
    named.formatToParts(instant).find((part) => part.type === "timeZoneName")?.value ?? zone
  ).replace(/^GMT[+-]0$/, "GMT");
  const utc = named.resolvedOptions().timeZone === "UTC";
  return `${dayLabel(instant, zone)}, ${timeLabel(instant, zone)} (${utc ? "UTC" : `${zoneName(zone)}, ${offset.replace("-", "\u2011")}`})`;
}

/** "Asia/Kolkata" as people read it: "Asia / Kolkata". */
export function zoneName(zone: string): string {
  return zone.replaceAll("_", " ").replaceAll("/", " / ");
}

/**
 * A first call's length and price as the owner sets them (the console's Bookings hours):
 * "30 minutes, free", or "30 minutes". Every service page says it where it offers a
 * first call (content/service-page.ts, `firstCallHole`), as /book says it (ownerZoneNote).
 */
export const callTerms = ({
  callMinutes,
  firstCallFree,
}: {
  callMinutes: number;
  firstCallFree: boolean;
}) => `${callMinutes} minutes${firstCallFree ? ", free" : ""}`;

/**
 * Under the booking form's zone select, served and live alike: how long a call is and
 * whether it is free (callTerms), and the engineer's zone; the times' own zone is their
 * legend's.
 */
export const ownerZoneNote = ({
  ownerZone,
  ...call
}: {
  ownerZone: string;
  callMinutes: number;
  firstCallFree: boolean;
}) => `A call is ${callTerms(call)}. My time zone is ${zoneName(ownerZone)}.`;

/**
 * Names V8's list still gives in their old spelling (it offers "Asia/Calcutta",
 * never "Asia/Kolkata", which is what people and BOOKING_TIMEZONE write).
 */
const renamed: Record<string, string> = {
  "Africa/Asmera": "Africa/Asmara",
  "Asia/Calcutta": "Asia/Kolkata",
  "Asia/Katmandu": "Asia/Kathmandu",
  "Asia/Rangoon": "Asia/Yangon",
  "Asia/Saigon": "Asia/Ho_Chi_Minh",
  "Europe/Kiev": "Europe/Kyiv",
  "Atlantic/Faeroe": "Atlantic/Faroe",
  "America/Godthab": "America/Nuuk",
  "Pacific/Enderbury": "Pacific/Kanton",
  "Pacific/Ponape": "Pacific/Pohnpei",
  "Pacific/Truk": "Pacific/Chuuk",
};

/** A zone as people write it today: "Asia/Calcutta" is "Asia/Kolkata". */
export const currentZoneName = (zone: string) => renamed[zone] ?? zone;

/**
 * Every zone Intl knows, for the "Time zone" select (UTC first, the rest in
 * order), with `including` added where the list spells it otherwise, so the
 * zone chosen (or the browser's own) is always there to be selected.
 */
export function timeZones(...including: string[]): string[] {
  const all = new Set(Intl.supportedValuesOf("timeZone").map(currentZoneName));
  for (const zone of including) if (isOfferedTimeZone(zone)) all.add(zone);
  all.delete("UTC");
  return ["UTC", ...[...all].sort()];
}

type SlotDay = { date: string; label: string; slots: { start: string; label: string }[] };

/**
 * Free times grouped by their day in `zone`, in order, each named by its local
 * time; with `days`, no more than one day past that many (so a caller knows
 * there are more), the rest left unformatted.
 */
export function slotsByDay(starts: readonly string[], zone: string, days = Infinity): SlotDay[] {
  const grouped: SlotDay[] = [];
  for (const start of starts) {
    const instant = Date.parse(start);
    const date = dateKey(instant, zone);
    let day = grouped.at(-1);
    if (day?.date !== date) {
      if (grouped.length > days) break;
      day = { date, label: dayLabel(instant, zone), slots: [] };
      grouped.push(day);
    }
    day.slots.push({ start, label: timeLabel(instant, zone) });
  }
  return grouped;
}
