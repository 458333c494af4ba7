import { type FormEvent, useId, useState } from "react";
import { toast } from "sonner";
import {
  dateMessage,
  hoursText,
  isDate,
  isRoom,
  parseDatesText,
  parseHoursText,
  roomMessage,
  type WeekdayName,
  weekdayLabels,
  weekdayNames,
} from "../../../contract/booking-hours.ts";
import type { Availability, AvailabilityInput } from "../../../contract/bookings.ts";
import { timeZones, zoneName } from "../../../contract/time-zones.ts";
import { consoleApi, keepEdits, useBusy } from "../console-api.ts";
import { useRefusal } from "../refusal.tsx";
import { Choice, fieldClass, Input, inputClass, primaryClass, Radios } from "../ui.tsx";

/* When calls can be booked, as the owner sets it on the bookings screen (bookings-view.tsx). */

/** What the screen's parts share: the owner's zone, and the reload after a change. */
export type Shared = { ownerZone: string; changed: () => Promise<void> };

/** The numbers of the rules, each with its bounds; all but the last are required. */
const numberFields = [
  ["callMinutes", "Call length (minutes)", 10, 240],
  ["bufferMinutes", "Free after each call (minutes)", 0, 240],
  ["noticeHours", "Notice (hours)", 0, 720],
  ["horizonDays", "Bookable ahead (days)", 1, 365],
  ["dailyMax", "Most calls a day", 1, 48],
] as const;
const numberKeys = numberFields.map(([key]) => key);

const byKey = <K extends string, V>(keys: readonly K[], make: (key: K) => V) =>
  Object.fromEntries(keys.map((key) => [key, make(key)])) as Record<K, V>;

const draftOf = (a: Availability) => ({
  ...byKey(numberKeys, (key) => String(a[key] ?? "")),
  timeZone: a.timeZone ?? "",
  weekly: byKey(weekdayNames, (day) => hoursText(a.weekly[day])),
  datesOff: a.datesOff.join("\n"),
  meeting: a.meeting,
  meetingUrl: a.meetingUrl ?? "",
  firstCallFree: a.firstCallFree,
});
type Draft = ReturnType<typeof draftOf>;

/** What is wrong with a field as written: a day's hours, the dates off or the room. */
type Wrong = {
  field: WeekdayName | (typeof numberKeys)[number] | "datesOff" | "meetingUrl";
  problem: string;
};

/** The draft as the server reads it, or the first field written wrong. */
function availabilityOf(draft: Draft): AvailabilityInput | Wrong {
  const weekly = {} as Record<WeekdayName, [string, string][]>;
  for (const day of weekdayNames) {
    const stretches = parseHoursText(draft.weekly[day]);
    if (typeof stretches === "string") return { field: day, problem: stretches };
    weekly[day] = stretches;
  }
  // As the server checks them, said here with what was written and next to its field.
  const datesOff = parseDatesText(draft.datesOff);
  const date = datesOff.find((d) => !isDate(d));
  if (date) return { field: "datesOff", problem: dateMessage.replace(/\.$/, `, not "${date}".`) };
  const room = draft.meetingUrl.trim();
  if (room && !isRoom(room)) return { field: "meetingUrl", problem: roomMessage };
  return {
    timeZone: draft.timeZone || null,
    weekly,
    callMinutes: Number(draft.callMinutes),
    firstCallFree: draft.firstCallFree,
    bufferMinutes: Number(draft.bufferMinutes),
    noticeHours: Number(draft.noticeHours),
    horizonDays: Number(draft.horizonDays),
    dailyMax: draft.dailyMax.trim() === "" ? null : Number(draft.dailyMax),
    datesOff,
    meeting: draft.meeting,
    meetingUrl: draft.meetingUrl.trim() || null,
  };
}

/** When calls can be booked: the weekly hours in the owner's zone and the rules around them. */
export function AvailabilityForm({ saved, ownerZone, changed }: { saved: Availability } & Shared) {
  const [draft, setDraft] = useState(() => draftOf(saved));
  const refusal = useRefusal<Wrong["field"]>([
    ...weekdayNames,
    ...numberKeys,
    "datesOff",
    "meetingUrl",
  ]);
  const [saving, busyWhile] = useBusy();
  const id = useId();
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) =>
    setDraft((before) => ({ ...before, [key]: value }));
  /** A text control's value, its change and its look; `described`, the line that describes it. */
  const bind = (key: Exclude<Wrong["field"], WeekdayName>, described?: string) => {
    const { problem, ...marked } = refusal.field(key);
    return {
      value: draft[key],
      onChange: (event: { target: { value: string } }) => set(key, event.target.value),
      "aria-invalid": problem ? true : undefined,
      "aria-describedby":
        [problem && `${id}-${key}-problem`, described && `${id}-${described}`]
          .filter(Boolean)
          .join(" ") || undefined,
      className: inputClass,
      ...marked,
    };
  };
  /** The message under a field written wrong, which describes it. */
  const fault = (key: Wrong["field"]) => {
    const { problem } = refusal.field(key);
    return problem ? (
      <span id={`${id}-${key}-problem`} className="text-red-300">
        {problem}
      </span>
    ) : null;
  };
  const hint = (name: string, text: string) => (
    <span id={`${id}-${name}`} className="text-slate-400">
      {text}
    </span>
  );

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = availabilityOf(draft);
    if ("problem" in body) return refusal.mark(body.field, body.problem);
    refusal.clear();
    void busyWhile(async () => {
      try {
        const saved = await consoleApi("PUT /admin/bookings/availability", { body });
        setDraft((now) => keepEdits(draftOf(saved.availability), draft, now));
        toast.success("Availability saved");
        await changed();
      } catch (error) {
        refusal.refused(error);
      }
    });
  }

  return (
    <form onSubmit={save} className="space-y-5">
      <Choice
        label="Time zone"
        value={draft.timeZone}
        onChange={(zone) => set("timeZone", zone)}
        options={[
          ["", `The default (${zoneName(ownerZone)})`],
          ...timeZones().map((zone) => [zone, zoneName(zone)] as const),
        ]}
      />
      <fieldset>
        <legend className="text-sm font-medium text-slate-200">Weekly hours</legend>
        <p id={`${id}-hours`} className="mt-1 text-sm text-slate-400">
          In your zone, like 10:00-13:00, 14:00-17:00; empty for a day without calls.
        </p>
        <div className="mt-2 grid gap-3 sm:grid-cols-2">
          {weekdayNames.map((day) => (
            <Input
              key={day}
              label={weekdayLabels[day]}
              value={draft.weekly[day]}
              aria-describedby={`${id}-hours`}
              onChange={(hours) => set("weekly", { ...draft.weekly, [day]: hours })}
              {...refusal.field(day)}
            />
          ))}
        </div>
      </fieldset>
      <div className="grid gap-3 sm:grid-cols-2">
        {numberFields.map(([key, label, min, max]) => (
          <label key={key} className={fieldClass}>
            {label}
            <input
              type="number"
              inputMode="numeric"
              required={key !== "dailyMax"}
              min={min}
              max={max}
              {...bind(key, key === "dailyMax" ? "daily" : undefined)}
            />
            {key === "dailyMax" ? hint("daily", "Empty for no limit beyond the hours.") : null}
          </label>
        ))}
      </div>
      <div className={fieldClass}>
        <label className="flex items-center gap-2">
          <input
            type="checkbox"
            className="size-5 accent-accent"
            checked={draft.firstCallFree}
            onChange={(event) => set("firstCallFree", event.target.checked)}
            aria-describedby={`${id}-free`}
          />
          The first call is free
        </label>
        {hint("free", "Booking a call and every service page say so, with the call's length.")}
      </div>
      <label className={fieldClass}>
        Dates off
        <textarea rows={3} {...bind("datesOff", "dates")} />
        {fault("datesOff")}
        {hint("dates", "One a line, as 2026-12-25, in your zone.")}
      </label>
      <Radios
        legend="Where calls happen"
        value={draft.meeting}
        onChange={(meeting) => set("meeting", meeting)}
        className="space-y-2"
        options={[
          ["fixed", "Your own room"],
          ["jitsi", "A new Jitsi Meet room for each call"],
        ]}
      />
      <label className={fieldClass}>
        Room address
        <input type="url" placeholder="https://" {...bind("meetingUrl", "room")} />
        {fault("meetingUrl")}
        {hint("room", "Empty for the one BOOKING_MEETING_URL gives, if any.")}
      </label>
      {refusal.problem}
      <button type="submit" className={primaryClass} disabled={saving}>
        {saving ? "Saving…" : "Save availability"}
      </button>
    </form>
  );
}
