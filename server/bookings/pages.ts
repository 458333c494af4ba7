import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  bookingRequestSchema,
  notBookedMessage,
  slotTakenMessage,
} from "../../contract/bookings.ts";
import { isServiceChoice } from "../../contract/enquiry-choices.ts";
import { escapeHtml } from "../../contract/html.ts";
import { momentLabel, offeredZoneName } from "../../contract/time-zones.ts";
import { storeFailureOf } from "../db/errors.ts";
import {
  type ActionPage,
  acceptForms,
  databaseFailed,
  errorPages,
  formFields,
  fromElsewhere,
  fromSite,
  hidden,
  linkPages,
  lostAsItSaved,
  paragraph,
  queryToken,
  renderActionPage,
  sendPage,
  tryAgainIn,
} from "../lib/action-page.ts";
import { keptAddressOf, mistypedAddress } from "../lib/form-html.ts";
import { formTokenRefusal } from "../lib/form-token.ts";
import { isToken, tokenDigest } from "../lib/tokens.ts";
import { calendarFeed } from "./feed.ts";
import {
  alert,
  bookedHtml,
  formHtml as bookingForm,
  bookingProblems,
  bookPath,
  daysAtOnce,
  type Filled,
  type FormOptions,
  moreDays,
  rescheduleHtml,
  timesHtml,
} from "./form-html.ts";
import { bookingPagesLimit } from "./limits.ts";
import type { Bookings } from "./service.ts";

/**
 * The booking pages (docs/product.md, "Book a call"), all working without JavaScript: `/book`
 * (the built page with the free times put in its placeholder: a week of days, `?days=` more),
 * the reader's links `/book/cancel?token=` and `/book/reschedule?token=`, and the owner's
 * calendar feed `/book/feed/<token>.ics`. Opening a link changes nothing (mail scanners open
 * links): only the page's button, a POST from this site, acts, and once. With JavaScript,
 * `/book/times?zone=` gives the page's script the list alone in the reader's zone, before
 * any island (docs/decisions/043-bookings.md, "The reader's page").
 */
const note = "Engage with Engineer · booking a call";
const hole = '<ewe-fragment data-part="booking"></ewe-fragment>';
/** A form sent again (a reload of "You're booked", or of a refusal, sends its post again). */
const sentAgain =
  "This form was sent already: if it booked your call, the invitation is on its way to your inbox. If it did not, or to book another, choose a time and press Book this time.";
/** A zone of the list, by the list's name whatever its case or spelling; else `otherwise`. */
const zoneOr = (zone: unknown, otherwise: string) =>
  (typeof zone === "string" && offeredZoneName(zone)) || otherwise;

export async function bookingPages(
  app: FastifyInstance,
  {
    bookings,
    root,
    siteUrl,
    booked,
  }: {
    bookings: Bookings;
    root: string;
    siteUrl: string;
    /** Told of each call booked by the form post (readership attributes it). */
    booked: (request: FastifyRequest) => Promise<void>;
  },
) {
  const siteOrigin = new URL(siteUrl).origin;
  const file = path.join(root, "book", "index.html");
  const template = existsSync(file) ? readFileSync(file, "utf8").split(hole) : null;
  if (template && template.length !== 2) {
    throw new Error(`${file} has not one booking placeholder: rebuild the site.`);
  }
  /** The built page with `html` in its placeholder; a plain page where the site is not built. */
  const page = (html: string) =>
    template
      ? `${template[0]}${html}${template[1]}`
      : renderActionPage({ note, title: "Book a call", body: html });

  /** The form, with the free times in `zone` (or those given: a refusal's list, already fresh). */
  async function formHtml(
    zone: string,
    filled: Filled,
    { given, days = daysAtOnce, sent, ...asked }: FormOptions = {},
  ): Promise<string> {
    return bookingForm({
      slots: given ?? (await bookings.slots(zone)),
      filled,
      ...asked,
      days,
      // A form sent back with its token not spent (`sent`): the reader's time counts on.
      formToken: bookings.formTokens.carried(sent),
      services: bookings.services,
      retentionDays: bookings.retentionDays,
    });
  }

  /** Every answer but the form (a refusal, what a post made) is kept out of search engines. */
  const send = (reply: FastifyReply, status: number, html: string, indexed = false) =>
    sendPage(reply, status, page(html), { indexed });

  // One count for the booking pages and the reader's links' (a move page lists the free times).
  const limitedWith = bookingPagesLimit(app);

  await app.register(async (scope) => {
    acceptForms(scope);
    const limited = limitedWith((reply, said) => send(reply, 429, alert(said)));

    errorPages(scope, "booking page failed", storeFailureOf, (status, known) =>
      page(
        alert(
          status < 500
            ? "The form could not be read. Go back and send it again."
            : known?.lostAtCommit
              ? `${lostAsItSaved(known.lostAtCommit)} your booking, so it may or may not have been booked. Check your inbox for its confirmation before you book again.`
              : `${databaseFailed(known)}; nothing was booked. Please try again in ${tryAgainIn(known)}.`,
        ),
      ),
    );

    /** What the address asks the form for: a zone, a service, how many days. */
    const asked = async (request: FastifyRequest) => {
      const { zone, service, days } = request.query as Record<string, unknown>;
      const chosenZone = zoneOr(zone, "");
      const chosenService =
        typeof service === "string" && isServiceChoice(bookings.services, service) ? service : "";
      const weeks = Math.ceil(Number(days) / daysAtOnce);
      return {
        unknownZone: typeof zone === "string" && zone !== "" && !chosenZone,
        zone: chosenZone || (await bookings.ownerZone()),
        filled: { service: chosenService },
        days: Number.isSafeInteger(weeks)
          ? Math.min(Math.max(weeks, 1), 9) * daysAtOnce
          : daysAtOnce,
      };
    };
    const show = async (request: FastifyRequest, reply: FastifyReply) => {
      const { unknownZone, zone, filled, days } = await asked(request);
      const problem = unknownZone
        ? "That time zone is not known; the times are shown in mine."
        : undefined;
      return send(
        reply,
        200,
        await formHtml(zone, filled, { problem, days }),
        // The page a buyer may search for ("book a call with …"); its canonical
        // link is /book whatever the zone or service asked for.
        problem === undefined,
      );
    };
    // Every address the built page has: its file's own too, or that would be sent without the form.
    for (const address of [bookPath, `${bookPath}/`, `${bookPath}/index.html`]) {
      scope.get(address, { preHandler: limited }, show);
    }

    // The free times alone, in the zone asked for: what the page's script puts in the form.
    scope.get(`${bookPath}/times`, { preHandler: limited }, async (request, reply) => {
      const { unknownZone, zone, filled, days } = await asked(request);
      if (unknownZone) return sendPage(reply, 400, alert("That time zone is not known."));
      const slots = await bookings.slots(zone);
      const more = { days, href: moreDays(slots.zone, filled.service) };
      return sendPage(reply, 200, timesHtml(slots.starts, slots.zone, undefined, more));
    });

    scope.post(bookPath, { preHandler: limited }, async (request, reply) => {
      if (!fromSite(request, siteOrigin)) {
        return send(reply, 403, alert("The form must be sent from this site's own page."));
      }
      const form = formFields(request);
      // What it answers holds only what the reader sent: their browser may keep it for Back.
      const answer = (status: number, html: string) =>
        sendPage(reply, status, page(html), { forBack: true });
      const field = (name: string) => form.get(name) ?? "";
      const formToken = field("formToken");
      // Shown in a zone of the list; a zone sent from outside it is refused below.
      const zone = zoneOr(field("zone"), "") || (await bookings.ownerZone());
      // The days the form listed, so the time chosen is listed again with what to change.
      const days = Math.max(daysAtOnce, Math.min(Number(field("days")) || 0, 9 * daysAtOnce));
      const filled: Filled = {
        name: field("name"),
        email: field("email"),
        service: field("service"),
        note: field("note"),
        start: field("start"),
        kept: keptAddressOf(form),
      };
      const { kept: _kept, ...sent } = filled;
      const parsed = bookingRequestSchema.safeParse({
        ...sent,
        start: filled.start || "",
        zone: field("zone") || zone,
        formToken: formToken || undefined,
        website: field("website"),
      });
      if (!parsed.success) {
        const problems = parsed.error.issues.map((issue) =>
          issue.path[0] === "start" ? "Choose one of the free times." : issue.message,
        );
        return answer(
          400,
          await formHtml(zone, filled, {
            problem: [...new Set(problems)].join(" "),
            problems: bookingProblems(
              parsed.error.issues.map((issue) => [issue.path[0], issue.message]),
            ),
            days,
            sent: formToken,
          }),
        );
      }
      // An address that looks mistyped is asked about once, in the form, before it books.
      const mistyped = mistypedAddress(form);
      if (mistyped)
        return answer(200, await formHtml(zone, filled, { mistyped, days, sent: formToken }));
      const outcome = await bookings.book(parsed.data, { ip: request.ip, visitorId: null });
      if (outcome.outcome === "booked") {
        if (outcome.booking) await booked(request);
        return answer(200, bookedHtml(parsed.data.start, zone, outcome.ownerZone));
      }
      if (outcome.outcome === "taken" || outcome.outcome === "not_booked") {
        // A time taken goes from what was typed; one not booked for the address is still free.
        const taken = outcome.outcome === "taken";
        const { start: _taken, ...rest } = filled;
        const problem = taken
          ? `${slotTakenMessage}. Here are the free times now; choose another.`
          : notBookedMessage;
        return answer(
          409,
          await formHtml(zone, taken ? rest : filled, { problem, given: outcome.slots, days }),
        );
      }
      const { refusal } = outcome;
      if (refusal.retryAfterSeconds) reply.header("retry-after", String(refusal.retryAfterSeconds));
      return answer(
        refusal.status,
        await formHtml(zone, filled, {
          // Sent again (a reload of "You're booked"): the reader may be booked already.
          problem:
            refusal.message === formTokenRefusal("used").message ? sentAgain : refusal.message,
          problems: bookingProblems([[refusal.field, refusal.message]]),
          days,
          // Refused before it was spent: pressed again, it is taken.
          ...(refusal.code === "too_fast" ? { sent: formToken } : {}),
        }),
      );
    });

    scope.get<{ Params: { file: string } }>(`${bookPath}/feed/:file`, async (request, reply) => {
      const token = request.params.file.replace(/\.ics$/, "");
      const known = await bookings.repository.feedTokenHash();
      if (!isToken(token) || known === null || known !== tokenDigest(token)) {
        return reply.code(404).type("text/plain; charset=utf-8").send("No such calendar.\n");
      }
      return reply
        .header("cache-control", "private, no-store")
        .header("x-robots-tag", "noindex")
        .type("text/calendar; charset=utf-8")
        .send(await calendarFeed(bookings));
    });
  });

  // The reader's links from the invitation and the reminders.
  await app.register(async (scope) => {
    acceptForms(scope);
    const answer = linkPages(scope, {
      note,
      mail: "the mail",
      failure: "booking link page failed",
      failureOf: storeFailureOf,
    });
    const tooMany = (reply: FastifyReply, said: string) =>
      answer(reply, 429, { title: "Too many requests", body: paragraph(said) });
    scope.addHook("preHandler", limitedWith(tooMany));
    /** What a button did, holding no token: the browser may keep it for Back (from "Book another time"). */
    const done = (reply: FastifyReply, page: ActionPage) =>
      answer(reply, 200, page, { forBack: true });
    const spent = {
      title: "This link has been used",
      body: paragraph(
        "The call it came with has been cancelled or moved already, or the link was copied incompletely. A moved call's mail carries new links.",
      ),
    };
    const refused = { title: "Nothing was changed", body: fromElsewhere(siteOrigin) };
    const begun = {
      title: "This call has begun",
      body: paragraph(
        "A call that has begun, or is over, can no longer be cancelled or moved from its links. Reply to the invitation to write to me.",
      ),
    };
    /** A call moved as often as its links may: the way left is to cancel it. */
    const movedEnough = (token: string) => ({
      title: "This call cannot be moved again",
      body: `${paragraph("It has been moved as often as its links allow. Cancel it and book another time, or reply to the invitation to write to me.")}
<p><a href="${escapeHtml(`${bookPath}/cancel?token=${token}`)}">Cancel the call</a></p>`,
    });
    /** The link's token, and its booking when the token is still good. */
    const bookingOf = async (request: FastifyRequest) => {
      const given =
        request.method === "POST" ? (formFields(request).get("token") ?? "") : queryToken(request);
      const token = isToken(given) ? given : "";
      return { token, booking: token ? await bookings.repository.byToken(token) : undefined };
    };

    scope.get(`${bookPath}/cancel`, async (request, reply) => {
      const { token, booking } = await bookingOf(request);
      if (!booking) return answer(reply, 404, spent);
      if (bookings.begun(booking)) return answer(reply, 409, begun);
      return answer(reply, 200, {
        title: "Cancel your call?",
        body: `<dl><dt>When</dt><dd>${escapeHtml(momentLabel(Date.parse(booking.start), booking.readerZone))}</dd><dt>About</dt><dd>${escapeHtml(bookings.serviceTitle(booking.service))}</dd></dl>
<form method="post" action="${bookPath}/cancel">
${hidden("token", token)}
<button type="submit" class="danger">Cancel the call</button>
</form>
${paragraph("Nothing happens until you press the button. Both calendars then hear of it, and the time is free again.", "note")}`,
      });
    });

    scope.post(`${bookPath}/cancel`, async (request, reply) => {
      if (!fromSite(request, siteOrigin)) return answer(reply, 403, refused);
      const given = formFields(request).get("token") ?? "";
      const booking = isToken(given) ? await bookings.cancelByReader(given) : undefined;
      if (!booking) return answer(reply, 404, spent);
      if (booking === "begun") return answer(reply, 409, begun);
      return done(reply, {
        title: "Your call is cancelled",
        body: `${paragraph(`The call on ${momentLabel(Date.parse(booking.start), booking.readerZone)} is cancelled. If its invitation reached you, a cancellation is on its way to your inbox and takes it out of your calendar.`)}
<p><a href="${bookPath}">Book another time</a></p>`,
      });
    });

    /** The page that moves a call: every time it may move to, not its own, which it has already. */
    const reschedulePage = async (
      token: string,
      zone: string,
      current: { start: string; readerZone: string },
      problem?: string,
    ) => ({
      title: "Move your call",
      body: rescheduleHtml(token, await bookings.slots(zone, current), current, problem),
    });

    /** Why a move was refused, by the outcome its page's address names. */
    const refusals = new Map<unknown, [number, string]>([
      ["taken", [409, `${slotTakenMessage}. Choose another.`]],
      ["same", [409, "Your call is already at that time. Choose another to move it."]],
      ["not_offered", [400, "Choose one of the free times."]],
    ]);
    scope.get(`${bookPath}/reschedule`, async (request, reply) => {
      const { token, booking } = await bookingOf(request);
      if (!booking) return answer(reply, 404, spent);
      if (bookings.begun(booking)) return answer(reply, 409, begun);
      if (bookings.movedEnough(booking)) return answer(reply, 409, movedEnough(token));
      const { zone: asked, refused } = request.query as Record<string, unknown>;
      const zone = zoneOr(asked, booking.readerZone);
      const [status, problem] = refusals.get(refused) ?? [200, undefined];
      return answer(reply, status, await reschedulePage(token, zone, booking, problem));
    });

    scope.post(`${bookPath}/reschedule`, async (request, reply) => {
      if (!fromSite(request, siteOrigin)) return answer(reply, 403, refused);
      const { token, booking } = await bookingOf(request);
      if (!booking) return answer(reply, 404, spent);
      const form = formFields(request);
      const zone = zoneOr(form.get("zone"), booking.readerZone);
      const moved = await bookings.reschedule(token, form.get("start") ?? "");
      if (moved.outcome === "unknown") return answer(reply, 404, spent);
      if (moved.outcome === "begun") return answer(reply, 409, begun);
      if (moved.outcome === "moved_enough") return answer(reply, 409, movedEnough(token));
      if (moved.outcome !== "moved") {
        // The page at an address of its own, where Back and a reload land, not a form to send again.
        const query = new URLSearchParams({ token, zone, refused: moved.outcome });
        return reply.redirect(`${bookPath}/reschedule?${query}`, 303);
      }
      return done(reply, {
        title: "Your call is moved",
        body: paragraph(
          `Your call is now on ${momentLabel(Date.parse(moved.booking.start), moved.booking.readerZone)}. The updated invitation is on its way to your inbox, with new links; the old ones no longer work.`,
        ),
      });
    });
  });
}
