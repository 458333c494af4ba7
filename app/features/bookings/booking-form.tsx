import {
  type FormEvent,
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
} from "react";
import type {
  BookedResponse,
  BookingConflictResponse,
  SlotsResponse as Slots,
} from "../../../contract/bookings.ts";
import { isServiceChoice } from "../../../contract/enquiry-choices.ts";
import { limits } from "../../../contract/limits.ts";
import {
  currentZoneName,
  dateKey,
  isOfferedTimeZone,
  momentLabel,
  ownerZoneNote,
  slotsByDay,
  timeLabel,
  timeZones,
  zoneName,
} from "../../../contract/time-zones.ts";
import {
  ContactFields,
  FormField,
  focusFirstProblem,
  type ServiceChoice,
} from "../../components/ui/form-field.tsx";
import { ApiError, api, formRefusal } from "../../lib/api-client.ts";
import { useFormGuard } from "../../lib/form-guard.tsx";
import { FreeTimes, look } from "./free-times.tsx";

type Fields = { name: string; email: string; service: string; note: string };
type FieldName = keyof Fields | "start";

/** The form the server wrote into the page (server/bookings/pages.ts), which this island replaces. */
const serverFormId = "booking-form-html";

/** What the reader had chosen and typed in the server's form before the island took over. */
function fromServerForm(services: ServiceChoice[]): {
  fields: Fields;
  start: string;
  zone: string;
  days: number;
} {
  const fromAddress = new URLSearchParams(window.location.search);
  const root = document.getElementById(serverFormId);
  const form = root?.querySelector<HTMLFormElement>("form[method=post]");
  const data = form ? new FormData(form) : new FormData();
  const text = (name: string) => String(data.get(name) ?? "");
  const wanted = text("service") || fromAddress.get("service") || "";
  const known = isServiceChoice(services, wanted);
  // A zone picked in the select but not yet shown ("Show times" not pressed) is the
  // reader's latest choice; then one in the address, chosen with the select; else the browser's.
  const select = root?.querySelector<HTMLSelectElement>("select[name=zone]");
  const picked = select && select.value !== text("zone") ? select.value : "";
  const asked = fromAddress.get("zone") ?? "";
  const browser = currentZoneName(Intl.DateTimeFormat().resolvedOptions().timeZone ?? "");
  const zone = [picked, asked, browser].find(isOfferedTimeZone) ?? "UTC";
  return {
    fields: {
      name: text("name"),
      email: text("email"),
      service: known ? wanted : "",
      note: text("note"),
    },
    start: text("start"),
    zone,
    // The days it listed ("Show more days" followed before the island was live).
    days: root?.querySelectorAll(".booking-day").length ?? 0,
  };
}

/** Days of free times listed at first, and added by "Show more days": a week or so is enough to choose from. */
const daysAtOnce = 7;

const freeTimes = (zone: string): Promise<Slots> => api("GET /bookings/slots", { query: { zone } });

/**
 * Booking a call on /book (docs/product.md, "Book a call"). The server writes
 * a plain form into the page, with the free times in the engineer's zone (or
 * the one chosen with its select), which books by an ordinary post; once the
 * page has loaded, a script of the page puts that form in the reader's zone.
 * At the reader's first move, this island takes the form's place: the times in the
 * reader's own zone (the browser's), another zone at a change of the select,
 * and the booking sent in place, through the same function on the server.
 * Until the free times arrive the server's form stays, so a failure here
 * leaves the page as it works without JavaScript.
 */
export function BookingForm({
  services,
  retentionDays,
}: {
  services: ServiceChoice[];
  retentionDays: number;
}) {
  const [live, setLive] = useState(false);
  const [slots, setSlots] = useState<Slots | null>(null);
  /** A zone the reader chose whose free times are on their way. */
  const [asking, setAsking] = useState<string | null>(null);
  const [fields, setFields] = useState<Fields>({ name: "", email: "", service: "", note: "" });
  const [start, setStart] = useState("");
  const [sending, setSending] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  /** Refusals of a booking so far: each hands the focus on once drawn. */
  const [refusals, setRefusals] = useState(0);
  const [problems, setProblems] = useState<Partial<Record<FieldName, string>>>({});
  const [booked, setBooked] = useState<BookedResponse | null>(null);
  const [shownDays, setShownDays] = useState(daysAtOnce);
  const zones = useRef<string[]>([]);
  /** The zone asked for last: an answer for any other comes too late and is dropped. */
  const wanted = useRef("");
  const done = useRef<HTMLDivElement>(null);
  const alert = useRef<HTMLParagraphElement>(null);
  /** After a refusal of the time chosen: the free time the focus goes to, where the fix is. */
  const retryAt = useRef<string | null>(null);
  const guard = useFormGuard("GET /bookings/form-token");
  const id = useId();

  // The free times in the zone chosen last: an answer for an earlier choice is dropped.
  const changeZone = useCallback(async (zone: string) => {
    wanted.current = zone;
    setAsking(zone);
    setProblem(null);
    try {
      const next = await freeTimes(zone);
      if (wanted.current === zone) setSlots(next);
    } catch {
      if (wanted.current === zone)
        setProblem("The free times could not be fetched just now. Please try again in a moment.");
    } finally {
      if (wanted.current === zone) setAsking(null);
    }
  }, []);

  // The server's answer to a booking without JavaScript ("You're booked") is left as it is.
  useEffect(() => {
    if (document.querySelector(".booking-done")) return;
    const before = fromServerForm(services);
    zones.current = timeZones(before.zone);
    wanted.current = before.zone;
    freeTimes(before.zone).then(
      (loaded) => {
        setSlots(loaded);
        setLive(true);
      },
      // The server's form goes on working.
      () => {},
    );
  }, [services]);

  // The server's form goes in the commit that puts this one in its place, before the
  // browser paints again: a frame with neither moved the page below it (a layout shift).
  // What it holds is read in that same commit, not when the times arrived: the reader may
  // have typed meanwhile, and a key pressed while this render waited would be lost. The
  // state set here renders again before the paint, and before any further key.
  // The field the reader was in keeps the focus in this form.
  useLayoutEffect(() => {
    const server = document.getElementById(serverFormId);
    if (!live || !slots || !server) return;
    const now = fromServerForm(services);
    // A zone picked in the server's form while these times were on their way wins.
    if (now.zone !== wanted.current) {
      zones.current = timeZones(wanted.current, now.zone);
      void changeZone(now.zone);
    }
    setFields(now.fields);
    if (slots.starts.includes(now.start)) setStart(now.start);
    setShownDays((shown) => Math.max(shown, now.days));
    const field = document.activeElement;
    const name = server?.contains(field) ? field?.getAttribute("name") : null;
    const radio = field instanceof HTMLInputElement && field.type === "radio";
    const focused = name ? `[name="${name}"]${radio ? `[value="${field.value}"]` : ""}` : null;
    // Times in another zone than the server's (the reader moved before the script put theirs in):
    // a reader scrolled into or past the list keeps what is below it where it was, by a scroll.
    const served = server.querySelector(".booking-times")?.getBoundingClientRect();
    const drawn = document.querySelector("#booking-live .booking-times")?.getBoundingClientRect();
    server.remove();
    if (served && drawn && served.top < 0) {
      window.scrollBy({ top: drawn.height - served.height, behavior: "instant" });
    }
    if (focused) document.querySelector<HTMLElement>(`#booking-live ${focused}`)?.focus();
  }, [live, slots, services, changeZone]);

  useEffect(() => {
    if (booked) done.current?.focus();
  }, [booked]);

  useEffect(() => {
    if (refusals === 0) return;
    const time = retryAt.current;
    retryAt.current = null;
    const form = alert.current?.parentElement;
    const radio = time
      ? form?.querySelector<HTMLElement>(`input[name="start"][value="${time}"]`)
      : null;
    if (radio) radio.focus();
    else focusFirstProblem(form, alert.current);
  }, [refusals]);

  const change = (name: keyof Fields) => (value: string) => {
    setFields((current) => ({ ...current, [name]: value }));
    setProblems((current) => ({ ...current, [name]: undefined }));
  };

  async function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (sending || !slots) return;
    if (!start) {
      setProblems({ start: "Choose one of the free times." });
      setProblem("Choose one of the free times.");
      // Where the fix is: the first time listed.
      event.currentTarget.querySelector<HTMLElement>('input[name="start"]')?.focus();
      return;
    }
    setSending(true);
    setProblem(null);
    setProblems({});
    try {
      const answer = await guard.sent((guarded) =>
        api("POST /bookings", {
          // The zone chosen last, even while its times are on their way: the start is an instant.
          body: { ...fields, start, zone: asking ?? slots.zone, ...guarded },
        }),
      );
      setBooked(answer);
    } catch (error) {
      if (
        error instanceof ApiError &&
        (error.code === "slot_taken" || error.code === "not_offered")
      ) {
        const without = { ...slots, starts: slots.starts.filter((free) => free !== start) };
        // "That time was just taken…": the answer carries the free times left, shown at
        // once. A time no longer offered (too soon now): the free times are asked again.
        const now =
          error.code === "slot_taken"
            ? ((error.detail as Partial<BookingConflictResponse["error"]>).slots ?? without)
            : await freeTimes(slots.zone).catch(() => without);
        setSlots(now);
        const next = now.starts.filter((free) => free > start);
        // The focus goes where the fix is: the first free time of that day, or the next.
        const day = dateKey(Date.parse(start), now.zone);
        retryAt.current =
          now.starts.find((free) => dateKey(Date.parse(free), now.zone) === day) ?? next[0] ?? null;
        setStart("");
        const named = next.slice(0, 3).map((free) => momentLabel(Date.parse(free), now.zone));
        setProblem(
          error.code === "slot_taken" && named.length > 0
            ? `${error.message} The next: ${named.join("; ")}.`
            : error.message,
        );
      } else {
        const refusal = formRefusal(
          error,
          ["name", "email", "service", "note", "start"],
          "The booking could not be sent: the site did not answer. Check your connection and try again.",
        );
        setProblems(refusal.problems);
        setProblem(refusal.problem);
      }
      setRefusals((count) => count + 1);
    } finally {
      setSending(false);
    }
  }

  if (!live || !slots) return null;

  if (booked) {
    const instant = Date.parse(booked.start);
    const yours = momentLabel(instant, booked.zone);
    const theirs = momentLabel(instant, booked.ownerZone);
    return (
      <div ref={done} tabIndex={-1} role="status" className="booking-done">
        <h2 className="booking-done-title">You're booked</h2>
        <p>
          Your call is on <strong>{yours}</strong>
          {yours === theirs ? "" : `, which is ${theirs} for me`}.
        </p>
        <p>
          An invitation for your calendar is on its way to {fields.email.trim()}, with links to
          cancel or move the call.
        </p>
      </div>
    );
  }

  // The days shown and one more, which says whether there are more: the rest is not formatted.
  const allDays = slotsByDay(slots.starts, slots.zone, shownDays);
  const days = allDays.slice(0, shownDays);

  return (
    <div className="booking">
      {problem ? (
        <p ref={alert} tabIndex={-1} role="alert" className="booking-alert outline-none">
          {problem}
        </p>
      ) : null}
      <div>
        <div className="booking-zone">
          <label htmlFor={`${id}-zone`} className="booking-label">
            Time zone
          </label>
          <select
            id={`${id}-zone`}
            className="field booking-zone-select"
            value={asking ?? slots.zone}
            aria-describedby={`${id}-zone-note`}
            onChange={(event) => void changeZone(event.target.value)}
          >
            {zones.current.map((zone) => (
              <option key={zone} value={zone}>
                {zoneName(zone)}
              </option>
            ))}
          </select>
        </div>
        {/* As the served form's, which has a button beside the select. */}
        <p id={`${id}-zone-note`} className="booking-small mt-1">
          {asking ? "Fetching the free times…" : ownerZoneNote(slots)}
        </p>
      </div>
      <form className="booking-form" onSubmit={send} onFocus={guard.start}>
        {guard.honeypot}
        {days.length === 0 ? (
          <p className="booking-empty">
            No free times in the coming weeks. <a href="/services#send-enquiry">Send an enquiry</a>{" "}
            instead.
          </p>
        ) : (
          <FreeTimes
            id={id}
            zone={slots.zone}
            days={days}
            more={allDays.length > days.length}
            problem={problems.start}
            start={start}
            choose={(chosen) => {
              setStart(chosen);
              setProblems((current) => ({ ...current, start: undefined }));
            }}
            showMore={() => setShownDays((shown) => shown + daysAtOnce)}
          />
        )}
        {days.length === 0 ? null : (
          <div className="booking-fields">
            <ContactFields
              id={id}
              values={fields}
              problems={problems}
              change={change}
              services={services}
              look={look}
            />
            <FormField
              id={`${id}-note`}
              label="What would you like to discuss? (optional)"
              problem={problems.note}
              look={look}
            >
              {(control) => (
                <textarea
                  {...control}
                  name="note"
                  className={look.control}
                  rows={4}
                  maxLength={limits.bookingNoteMax}
                  value={fields.note}
                  onChange={(event) => change("note")(event.target.value)}
                />
              )}
            </FormField>
            <p className="booking-small">
              The invitation goes to this address, with links to cancel or move the call. Your
              booking is kept {retentionDays} days after the call, then deleted: see the{" "}
              <a href="/privacy#bookings">privacy policy</a>.
            </p>
            <div>
              <button type="submit" className="btn-primary" disabled={sending}>
                {sending ? "Booking..." : "Book this time"}
              </button>
            </div>
            {start ? (
              <p className="booking-small">
                Chosen: {momentLabel(Date.parse(start), slots.zone)} (
                {timeLabel(Date.parse(start), slots.ownerZone)} for me).
              </p>
            ) : null}
          </div>
        )}
      </form>
    </div>
  );
}
