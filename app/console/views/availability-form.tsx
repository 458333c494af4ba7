import { type FormEvent, useEffect, useId, useRef, useState } from "react";
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
import { consoleApi, errorMessage, keepEdits, useBusy } from "../console-api.ts";
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
});
type Draft = ReturnType<typeof draftOf>;

/** What is wrong with a field as written: a day's hours, the dates off or the room. */
type Wrong = { field: WeekdayName | "datesOff" | "meetingUrl"; problem: string };

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
  const [problem, setProblem] = useState<string | null>(null);
  const [wrong, setWrong] = useState<Wrong | null>(null);
  const [saving, busyWhile] = useBusy();
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  // The field at fault takes the focus, its message read with it, at each refused save.
  useEffect(() => {
    if (wrong) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [wrong]);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) =>
    setDraft((before) => ({ ...before, [key]: value }));
  /** A text control's value, its change and its look; `described`, the line that describes it. */
  const bind = (key: Exclude<keyof Draft, "weekly" | "meeting">, described?: string) => {
    const fault = wrong?.field === key;
    return {
      value: draft[key],
      onChange: (event: { target: { value: string } }) => {
        set(key, event.target.value);
        if (fault) setWrong(null);
      },
      "aria-invalid": fault || undefined,
      "aria-describedby":
        [fault && `${id}-${key}-problem`, described && `${id}-${described}`]
          .filter(Boolean)
          .join(" ") || undefined,
      className: inputClass,
    };
  };
  /** The message under a field written wrong, which describes it. */
  const fault = (key: Wrong["field"]) =>
    wrong?.field === key ? (
      <span id={`${id}-${key}-problem`} className="text-red-300">
        {wrong.problem}
      </span>
    ) : null;
  const hint = (name: string, text: string) => (
    <span id={`${id}-${name}`} className="text-slate-400">
      {text}
    </span>
  );

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = availabilityOf(draft);
    if ("problem" in body) {
      setProblem(null);
      return setWrong(body);
    }
    setWrong(null);
    void busyWhile(async () => {
      try {
        const saved = await consoleApi("PUT /admin/bookings/availability", { body });
        setProblem(null);
        setDraft((now) => keepEdits(draftOf(saved.availability), draft, now));
        toast.success("Availability saved");
        await changed();
      } catch (error) {
        setProblem(errorMessage(error));
      }
    });
  }

  return (
    <form ref={form} onSubmit={save} className="space-y-5">
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
          {weekdayNames.map((day) => {
            const fault = wrong?.field === day ? wrong.problem : null;
            return (
              <div key={day}>
                <Input
                  label={weekdayLabels[day]}
                  value={draft.weekly[day]}
                  aria-invalid={fault ? true : undefined}
                  aria-describedby={fault ? `${id}-${day}-problem ${id}-hours` : `${id}-hours`}
                  onChange={(hours) => {
                    set("weekly", { ...draft.weekly, [day]: hours });
                    if (fault) setWrong(null);
                  }}
                />
                {fault ? (
                  <p id={`${id}-${day}-problem`} className="mt-1 text-sm text-red-300">
                    {fault}
                  </p>
                ) : null}
              </div>
            );
          })}
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
      {problem ? (
        <p role="alert" className="text-sm text-red-300">
          {problem}
        </p>
      ) : null}
      <button type="submit" className={primaryClass} disabled={saving}>
        {saving ? "Saving…" : "Save availability"}
      </button>
    </form>
  );
}
