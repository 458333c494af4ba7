import { type ReactNode, useEffect, useState } from "react";
import type { Booking } from "../../../contract/bookings.ts";
import { limits } from "../../../contract/limits.ts";
import { slotsByDay, zoneName } from "../../../contract/time-zones.ts";
import { FreeTimes } from "../../features/bookings/free-times.tsx";
import { ConfirmButton } from "../confirm-button.tsx";
import { useConsoleData } from "../console-api.ts";
import { useRefusal } from "../refusal.tsx";
import { Input, Loading } from "../ui.tsx";
import type { Shared } from "./availability-form.tsx";

/** Days of times listed at first, and added by "Show more days", as on the booking page. */
const daysAtOnce = 7;

/**
 * The times a call may move to, in the owner's zone, day by day as the booking page lists
 * them, and the form's other fields (`children`) under them once there is a time to choose:
 * the first field, which the dialog focuses, is the chosen time. `onNone` hears whether
 * there is none to choose (the dialog then says so, and offers only the way out).
 */
function TimesToMoveTo({
  id,
  ownerZone,
  value,
  onChange,
  onNone,
  children,
}: {
  id: number;
  ownerZone: string;
  value: string;
  onChange: (start: string) => void;
  onNone: (none: boolean) => void;
  children: ReactNode;
}) {
  const { loaded } = useConsoleData("GET /admin/bookings/:id/times", { params: { id } });
  const starts = loaded.state === "ready" ? loaded.data.starts : null;
  const [shownDays, setShownDays] = useState(daysAtOnce);
  // The first time is chosen, and again when the one chosen is no longer among them.
  useEffect(() => {
    if (starts?.[0] && !starts.includes(value)) onChange(starts[0]);
  }, [starts, value, onChange]);
  const none = starts?.length === 0;
  useEffect(() => {
    onNone(none);
    return () => onNone(false);
  }, [none, onNone]);
  return (
    <Loading loaded={loaded}>
      {({ starts, busy }) => {
        if (starts.length === 0) return null;
        // The days shown and one more, which says whether there are more.
        const allDays = slotsByDay(starts, ownerZone, shownDays);
        return (
          <>
            <div className="mt-4 max-h-[45vh] overflow-y-auto pr-1">
              {busy.length > 0 ? (
                <p className="mb-2 text-sm text-slate-300">
                  A time marked busy meets an event in your own calendar; you may still choose it.
                </p>
              ) : null}
              <FreeTimes
                id={`move-${id}`}
                zone={ownerZone}
                legend={`New time, in ${zoneName(ownerZone)}`}
                days={allDays.slice(0, shownDays)}
                more={allDays.length > shownDays}
                problem={undefined}
                start={value}
                choose={onChange}
                showMore={() => setShownDays((shown) => shown + daysAtOnce)}
                busy={new Set(busy)}
              />
            </div>
            {children}
          </>
        );
      }}
    </Loading>
  );
}

/**
 * The owner's move of a call (docs/console.md, "Bookings"): a dialog with the times it may
 * move to and a reason for the reader; the list shows the new time once it is moved.
 */
export function MoveCall({ booking, ownerZone, changed }: { booking: Booking } & Shared) {
  const [start, setStart] = useState("");
  const [reason, setReason] = useState("");
  const [none, setNone] = useState(false);
  const refusal = useRefusal(["reason"]);
  return (
    <ConfirmButton
      label="Move"
      ariaLabel={`Move the call with ${booking.name}`}
      title={`Move the call with ${booking.name}`}
      description={`${booking.name} is mailed the moved invitation, saying you moved it and why; their links keep working.`}
      confirmLabel="Move the call"
      dismissLabel="Keep the time"
      tone="primary"
      call={[
        "POST /admin/bookings/:id/move",
        { params: { id: booking.id }, body: { start, reason } },
      ]}
      done={`Moved the call with ${booking.name}`}
      after={changed}
      refusal={refusal}
      unavailable={
        none
          ? "No free time to move it to: every time within your hours, as far ahead as calls are booked, is taken or a date off. Open more under Availability, or keep the time."
          : undefined
      }
    >
      <TimesToMoveTo
        id={booking.id}
        ownerZone={ownerZone}
        value={start}
        onChange={setStart}
        onNone={setNone}
      >
        <Input
          label="Why (optional, for the reader)"
          maxLength={limits.moveReasonMax}
          value={reason}
          onChange={setReason}
          className="mt-4"
          {...refusal.field("reason")}
        />
      </TimesToMoveTo>
      <div className="mt-2">{refusal.problem}</div>
    </ConfirmButton>
  );
}
