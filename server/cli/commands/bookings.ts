import { group } from "../command.ts";

const handlers = () => import("../handlers/bookings.ts");

/**
 * `bookings list|show|cancel|move|delete|hours|feed` (docs/product.md, "Book a
 * call"): the console's Bookings screen for scripts and for when the console
 * cannot be reached. Every change is audited.
 */
export const bookingCommands = group(handlers, [
  {
    name: "bookings list",
    usage: "[--past] [--json]",
    summary: "booked calls ahead, soonest first (or past ones)",
    help: `Lists the calls still ahead, soonest first, as tab-separated columns: id,
start (UTC), status, service, name, email, the reader's time zone and the
note's first line. Cancelled calls are listed too, marked so. A cell that a
spreadsheet would run as a formula starts with a '.

  --past   the calls that have ended instead, latest first
  --json   one JSON array of whole bookings instead`,
  },
  {
    name: "bookings show",
    usage: "ID [--json]",
    summary: "one call in full: when, with whom, about what",
    help: `Prints one booking: its time in your zone and the reader's, who booked it,
the service, the room, whether and by whom it was cancelled, and the
reader's whole note. Exit code 3 when there is no such booking.

  --json   the booking as JSON instead`,
  },
  {
    name: "bookings cancel",
    usage: "ID [--message TEXT] [--yes] [--json]",
    summary: "cancel a call; both calendars are sent the cancellation",
    help: `Cancels a call still ahead: the reader is mailed the cancellation with your
message, you are sent one for your calendar, and its reminders are dropped.
Asks first at a terminal; a script adds --yes. Exit code 3 when there is no
such booked call, 1 when the call has begun.

  --message TEXT   a few words to the reader, in the cancellation mail
  --yes            cancel without asking
  --json           print the cancelled booking as JSON`,
  },
  {
    name: "bookings move",
    usage: "ID --to TIME [--reason TEXT] [--json]",
    summary: "move a call to another free time; the reader is sent the new invitation",
    help: `Moves a call still ahead to one of its free times: those readers see, but
you may ignore the notice and the daily maximum. The reader is mailed the moved
invitation (same event, new time) with a line saying you moved it, and your
reason; their links keep working, and your moves do not count against theirs.
Exit code 2 when the time is not free (the reason and the nearest free times
are printed), 3 when there is no such booking, 1 when the call has begun, was
cancelled, or was moved by its reader meanwhile.

  --to TIME       2026-12-09T10:00 in your zone, or with an offset
                  (2026-12-09T10:00Z, 2026-12-09T10:00+01:00)
  --reason TEXT   one line to the reader, at most 200 characters
  --json          print the moved booking as JSON`,
  },
  {
    name: "bookings delete",
    usage: "ID [--json]",
    summary: "delete a past or cancelled booking and every mail about it",
    help: `Deletes a booking and every mail about it, queued or recorded, when its
reader asks by mail (the reader's own "Your data" does the same). A call
still ahead must be cancelled first, so that both calendars hear of it: exit
code 1. Exit code 3 when there is no such booking.

  --json   print {"id":ID,"deleted":true} instead`,
  },
  {
    name: "bookings hours",
    usage: "[--mon HOURS] … [--length MIN] [--dates-off DATES] … [--json]",
    summary: "show or change when calls can be booked",
    help: `Without options, prints when calls can be booked. With any, changes those
settings (the rest stay as they are), checks them as the console does, and
prints the result. Calls booked already stay where they are.

  --zone ZONE        the zone of your hours (Europe/London); "default" follows
                     BOOKING_TIMEZONE, else the owner profile's zone, else UTC
  --mon … --sun H    a day's hours: "10:00-13:00, 14:00-17:00", or "off"
  --length MIN       a call's length in minutes (10 to 240)
  --first-call F     "free" or "paid": what the site says of a first call
  --buffer MIN       minutes kept free after each call (0 to 240)
  --notice HOURS     how long before a call it can be booked at the latest
  --horizon DAYS     how far ahead calls can be booked (1 to 365)
  --daily-max N      the most calls on one day; "none" for no limit
  --dates-off DATES  the dates with no calls, YYYY-MM-DD separated by commas
                     (the whole list); "none" for none
  --meeting M        "fixed": your own room; "jitsi": a new Jitsi Meet room per call
  --meeting-url URL  your fixed room (https://); "none" follows BOOKING_MEETING_URL
  --json             print the settings as JSON`,
    // The usage line shows a few of them; each takes a value.
    options: Object.fromEntries(
      "zone tue wed thu fri sat sun first-call buffer notice horizon daily-max meeting meeting-url"
        .split(" ")
        .map((name) => [name, { type: "string" as const }]),
    ),
  },
  {
    name: "bookings feed",
    usage: "--new | --revoke",
    summary: "a new secret address of your calendar feed, or none",
    help: `Your booked calls as a calendar feed (.ics) to subscribe to in a calendar
app, at a secret address.

  --new      make a new address and print it; the one before stops working
  --revoke   stop the feed; exit code 3 when there was none`,
  },
]);
