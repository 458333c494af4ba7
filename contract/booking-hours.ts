/*
 * The owner's weekly hours written as text, without zod: the console's
 * Bookings screen imports this, and zod in a page probes for `new Function`,
 * which the console's Content-Security-Policy reports. The command line reads
 * the same text, so "10:00-13:00, 14:00-17:00" means one thing everywhere;
 * contract/bookings.ts checks what the server is sent.
 */

export const weekdayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type WeekdayName = (typeof weekdayNames)[number];

export const weekdayLabels: Record<WeekdayName, string> = {
  mon: "Monday",
  tue: "Tuesday",
  wed: "Wednesday",
  thu: "Thursday",
  fri: "Friday",
  sat: "Saturday",
  sun: "Sunday",
};

type Stretch = [from: string, to: string];

/** A day's stretches as the owner writes them: "10:00-13:00, 14:00-17:00", or "" for none. */
export function hoursText(stretches: readonly (readonly [string, string])[]): string {
  return stretches.map(([from, to]) => `${from}-${to}`).join(", ");
}

const stretchPattern = /^(\d{1,2}):(\d{2})\s*[-–]\s*(\d{1,2}):(\d{2})$/;
const clock = (hour: string, minute: string) => `${hour.padStart(2, "0")}:${minute}`;

/** A time of day as the hours keep it, "00:00" to "24:00", and what is said of one that is not. */
export const clockPattern = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
export const clockMessage = "Write times as HH:MM, from 00:00 to 24:00.";
export const stretchOrderMessage = "A stretch of hours must end after it starts.";
export const dateMessage = "Write dates as YYYY-MM-DD.";
export const roomMessage = "The meeting address must start with https://.";
/** A date off as the contract takes it, without zod (the console's pages): a day the calendar has. */
export const isDate = (text: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(text) &&
  new Date(Date.parse(text) || 0).toISOString().startsWith(text);
/** The room as the contract takes it: an https address. */
export const isRoom = (text: string) => URL.canParse(text) && new URL(text).protocol === "https:";
export const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3));

/**
 * Reads "10:00-13:00, 14:00-17:00" (or "off", or nothing, for a day without
 * calls) into stretches; a string saying what is wrong otherwise, as the
 * contract would (contract/bookings.ts), so the console marks the day itself.
 */
export function parseHoursText(text: string): Stretch[] | string {
  const trimmed = text.trim();
  if (trimmed === "" || /^(off|none)$/i.test(trimmed)) return [];
  const stretches: Stretch[] = [];
  for (const part of trimmed.split(/\s*,\s*/)) {
    const match = stretchPattern.exec(part);
    if (!match) return `Write hours as 10:00-17:00, stretches separated by commas, not "${part}".`;
    const [, fromHour = "", fromMinute = "", toHour = "", toMinute = ""] = match;
    const stretch: Stretch = [clock(fromHour, fromMinute), clock(toHour, toMinute)];
    const unreal = stretch.find((time) => !clockPattern.test(time));
    if (unreal) return clockMessage.replace(/\.$/, `, not "${unreal}".`);
    if (minutesOf(stretch[0]) >= minutesOf(stretch[1])) {
      return stretchOrderMessage.replace(/\.$/, `, not "${part}".`);
    }
    stretches.push(stretch);
  }
  return stretches;
}

/** Dates written one per line or separated by commas or spaces: "2026-12-25, 2026-12-26". */
export function parseDatesText(text: string): string[] {
  return text.split(/[\s,]+/).filter((date) => date !== "");
}
