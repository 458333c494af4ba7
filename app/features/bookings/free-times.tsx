import { useEffect, useRef } from "react";
import { type slotsByDay, zoneName } from "../../../contract/time-zones.ts";

/** The classes of the server's form (server/bookings/pages.ts), which this one takes the place of. */
export const look = { label: "booking-label", control: "field", problem: "text-sm text-red-300" };

/**
 * The free times of the booking form (booking-form.tsx), day by day in the zone chosen; the
 * console's Move dialog lists the times a call may move to with it (`legend`), the word
 * "busy" beside those that meet the owner's own calendar (`busy`).
 */
export function FreeTimes({
  id,
  zone,
  legend = `Free times, in ${zoneName(zone)}`,
  days,
  more,
  problem,
  start,
  choose,
  showMore,
  busy,
}: {
  id: string;
  zone: string;
  legend?: string;
  days: ReturnType<typeof slotsByDay>;
  /** Whether there are days after those shown. */
  more: boolean;
  problem: string | undefined;
  start: string;
  choose: (start: string) => void;
  showMore: () => void;
  busy?: ReadonlySet<string>;
}) {
  const list = useRef<HTMLFieldSetElement>(null);
  /** After "Show more days": the first day it adds, whose first time takes the focus. */
  const added = useRef<number | null>(null);
  useEffect(() => {
    const at = added.current;
    if (at === null || days.length <= at) return;
    added.current = null;
    list.current?.querySelectorAll(".booking-day")[at]?.querySelector("input")?.focus();
  }, [days.length]);
  return (
    <fieldset
      ref={list}
      className="booking-times"
      aria-describedby={problem ? `${id}-start-problem` : undefined}
    >
      <legend className="booking-label">{legend}</legend>
      {problem ? (
        <p id={`${id}-start-problem`} className={look.problem}>
          {problem}
        </p>
      ) : null}
      {days.map((day) => (
        <fieldset key={day.date} className="booking-day">
          <legend className="booking-day-label">{day.label}</legend>
          <div className="booking-slots">
            {day.slots.map((slot) => (
              <label key={slot.start} className="booking-slot">
                <input
                  type="radio"
                  name="start"
                  value={slot.start}
                  checked={start === slot.start}
                  onChange={() => choose(slot.start)}
                />
                <span>{slot.label}</span>
                {busy?.has(slot.start) ? <span className="booking-slot-busy"> busy</span> : null}
              </label>
            ))}
          </div>
        </fieldset>
      ))}
      {more ? (
        <button
          type="button"
          className="btn-secondary"
          onClick={() => {
            // As the served page's link lands on the first day it adds (`#day-8`).
            added.current = days.length;
            showMore();
          }}
        >
          Show more days
        </button>
      ) : null}
    </fieldset>
  );
}
