import { useEffect, useReducer, useRef, useState } from "react";
import type { Booking } from "../../../contract/bookings.ts";
import { limits } from "../../../contract/limits.ts";
import { momentLabel, zoneName } from "../../../contract/time-zones.ts";
import { ConfirmButton } from "../confirm-button.tsx";
import { consoleApi, useConsoleData } from "../console-api.ts";
import { List } from "../data.tsx";
import { useRefusal } from "../refusal.tsx";
import {
  buttonClass,
  Fact,
  Facts,
  Input,
  inputClass,
  Loading,
  Panel,
  primaryClass,
  When,
} from "../ui.tsx";
import { AvailabilityForm, type Shared } from "./availability-form.tsx";
import { MoveCall } from "./move-call.tsx";

/** One call: when (in the owner's zone and the reader's), with whom, about what, and the note. */
function BookingCard({ booking, ownerZone, changed }: { booking: Booking } & Shared) {
  const [message, setMessage] = useState("");
  const refusal = useRefusal(["message"]);
  const params = { id: booking.id };
  const start = Date.parse(booking.start);
  const end = Date.parse(booking.end);
  const booked = booking.status === "booked";
  // Drawn again as the call begins and as it ends, when its buttons change.
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    const wait = Math.min(...[start, end].map((at) => at - Date.now()).filter((ms) => ms > 0));
    if (!(wait < 2 ** 31)) return; // none ahead, or beyond what a timer takes
    const timer = setTimeout(redraw, wait + 1);
    return () => clearTimeout(timer);
  });
  return (
    <article
      aria-label={`Call with ${booking.name}`}
      className="rounded-xl border border-line bg-ink/40 p-4"
    >
      <header className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 className="min-w-0 font-semibold wrap-anywhere text-slate-100">
          {momentLabel(start, ownerZone)} · {booking.name}
        </h3>
        <p className="text-sm text-slate-400">
          {booked
            ? "Booked"
            : booking.undeliverable
              ? "Cancelled: the reader's address does not receive mail"
              : `Cancelled by ${booking.cancelledBy === "owner" ? "you" : "the reader"}`}
          {booking.moves > 0
            ? `, moved by the reader ${booking.moves === 1 ? "once" : `${booking.moves} times`}`
            : ""}
          {booking.ownerMoves > 0
            ? `, moved by you ${booking.ownerMoves === 1 ? "once" : `${booking.ownerMoves} times`}`
            : ""}
        </p>
      </header>
      <Facts>
        <Fact label="Service" value={booking.serviceTitle} />
        <Fact label="Length" value={`${(end - start) / 60_000} minutes`} />
        <Fact label="Their time" value={momentLabel(start, booking.readerZone)} />
        <Fact label="Email" value={booking.email} href={`mailto:${booking.email}`} />
        <Fact label="Room" value={booking.meetingUrl} href={booking.meetingUrl ?? ""} />
        <Fact label="Booked" value={<When iso={booking.createdAt} />} />
        <Fact label="Your message" value={booking.cancelMessage} pre />
      </Facts>
      {booking.note ? (
        <p className="mt-3 border-l-2 border-accent/60 pl-4 break-words whitespace-pre-wrap text-slate-100">
          {booking.note}
        </p>
      ) : null}
      <div className="mt-4 flex flex-wrap gap-2">
        {booked && start > Date.now() ? (
          <MoveCall booking={booking} ownerZone={ownerZone} changed={changed} />
        ) : null}
        {booked && start > Date.now() ? (
          <ConfirmButton
            label="Cancel the call"
            ariaLabel={`Cancel the call with ${booking.name}`}
            title={`Cancel the call with ${booking.name}?`}
            description={`${booking.name} is mailed the cancellation with your message, and you are sent one for your calendar. The time is free again.`}
            dismissLabel="Keep the call"
            call={["POST /admin/bookings/:id/cancel", { params, body: { message } }]}
            done={`Cancelled the call with ${booking.name}`}
            after={changed}
            refusal={refusal}
          >
            <Input
              label={`Message to ${booking.name}`}
              rows={3}
              maxLength={limits.bookingNoteMax}
              value={message}
              onChange={setMessage}
              className="mt-4"
              {...refusal.field("message")}
            />
            <div className="mt-2">{refusal.problem}</div>
          </ConfirmButton>
        ) : booked && end > Date.now() ? (
          <p className="text-sm text-slate-400">Under way: it can be deleted once it has ended.</p>
        ) : (
          <ConfirmButton
            label="Delete"
            ariaLabel={`Delete the booking of ${booking.name}`}
            title={`Delete the booking of ${booking.name}?`}
            description="The booking and every mail about it are deleted, as when a reader asks. This cannot be undone."
            call={["DELETE /admin/bookings/:id", { params }]}
            done={`Deleted the booking of ${booking.name}`}
            after={changed}
          />
        )}
      </div>
    </article>
  );
}

/** The secret address of the owner's calendar feed: shown once, when made. */
function CalendarFeed({ live, changed }: { live: boolean; changed: () => Promise<void> }) {
  const [url, setUrl] = useState<string | null>(null);
  const refusal = useRefusal([]);
  const address = useRef<HTMLInputElement>(null);
  // A new address takes the focus, selected, to be copied at once: a screen reader says it came.
  useEffect(() => {
    if (url) address.current?.focus();
  }, [url]);
  const make = () => {
    refusal.clear();
    return consoleApi("POST /admin/bookings/feed")
      .then(({ url }) => setUrl(url))
      .then(changed)
      .catch(refusal.refused);
  };
  return (
    <div className="space-y-3 text-sm">
      <p className="text-slate-300">
        {live
          ? "Your calls are in a calendar feed at a secret address, and your booking mails carry no calendar copy (a calendar would show each call twice); a move takes out one mailed before the feed. A new address stops the one before."
          : "No calendar feed: each booking mail carries the call for your calendar. Make an address to subscribe to in your calendar app instead."}
      </p>
      {url ? (
        <label className="flex flex-col gap-1 text-slate-300">
          Calendar feed address
          <input
            ref={address}
            readOnly
            value={url}
            onFocus={(event) => event.target.select()}
            className={`${inputClass} w-full font-mono text-xs`}
          />
          <span className="text-slate-400">Shown this once; keep it secret.</span>
        </label>
      ) : null}
      <div className="flex flex-wrap gap-2">
        {live ? (
          // The address calendars subscribe to stops at once: asked first, as Revoke is.
          <ConfirmButton
            label="New address"
            title="Make a new calendar feed address?"
            description="The address your calendars subscribe to stops working now; subscribe them to the new one."
            confirmLabel="Make a new address"
            dismissLabel="Keep the address"
            onConfirm={() => void make()}
          />
        ) : (
          <button type="button" className={buttonClass} onClick={() => void make()}>
            Make an address
          </button>
        )}
        {live ? (
          <ConfirmButton
            label="Revoke"
            ariaLabel="Revoke the calendar feed"
            title="Revoke the calendar feed?"
            description="Its address stops working; calendars subscribed to it keep what they have and hear no more."
            call={["DELETE /admin/bookings/feed"]}
            done="Calendar feed revoked"
            after={() => {
              setUrl(null);
              return changed();
            }}
          />
        ) : null}
        {refusal.problem}
      </div>
    </div>
  );
}

/**
 * Booked calls (docs/product.md, "Book a call"): upcoming ones soonest
 * first or past ones latest first, each with the reader's note and service;
 * cancelling with a message; when calls can be booked; the calendar feed.
 */
export function BookingsView() {
  const [when, setWhen] = useState<"upcoming" | "past">("upcoming");
  const { loaded, reload } = useConsoleData("GET /admin/bookings", { query: { when } });
  return (
    <Loading loaded={loaded}>
      {({ bookings, availability, ownerZone, feed, retentionDays }) => {
        const shared = { ownerZone, changed: reload };
        return (
          <div className="grid grid-cols-1 gap-5 2xl:grid-cols-[3fr_2fr]">
            <Panel title="Calls">
              <fieldset className="mb-4 flex gap-2">
                <legend className="sr-only">Which calls</legend>
                {(["upcoming", "past"] as const).map((each) => (
                  <button
                    key={each}
                    type="button"
                    aria-pressed={when === each}
                    onClick={() => setWhen(each)}
                    className={when === each ? primaryClass : buttonClass}
                  >
                    {each === "upcoming" ? "Upcoming" : "Past"}
                  </button>
                ))}
              </fieldset>
              <p className="mb-4 text-sm text-slate-400">
                Times in {zoneName(ownerZone)}. A booking is deleted {retentionDays} days after its
                call.
              </p>
              <List
                items={bookings}
                label={
                  when === "upcoming" ? "Upcoming calls, soonest first" : "Past calls, latest first"
                }
                empty={when === "upcoming" ? "No calls ahead." : "No past calls."}
              >
                {(booking) => (
                  <li key={booking.id}>
                    <BookingCard booking={booking} {...shared} />
                  </li>
                )}
              </List>
            </Panel>
            <div className="space-y-5">
              <Panel title="Availability">
                {/* Not keyed by the hours: the read-back would remount it, losing edits since the save. */}
                <AvailabilityForm saved={availability} {...shared} />
              </Panel>
              <Panel title="Calendar feed">
                <CalendarFeed live={feed} changed={reload} />
              </Panel>
            </div>
          </div>
        );
      }}
    </Loading>
  );
}
