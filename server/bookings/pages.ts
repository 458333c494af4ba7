import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import fastifyRateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  bookingRequestSchema,
  type SlotsResponse,
  slotTakenMessage,
} from "../../contract/bookings.ts";
import { otherService, otherServiceLabel } from "../../contract/enquiries.ts";
import { escapeHtml } from "../../contract/html.ts";
import { limits } from "../../contract/limits.ts";
import {
  isTimeZone,
  momentLabel,
  slotsByDay,
  timeZones,
  zoneName,
} from "../../contract/time-zones.ts";
import { storeFailureOf } from "../db/errors.ts";
import {
  acceptForms,
  formFields,
  fromElsewhere,
  fromSite,
  linkPages,
  paragraph,
  queryToken,
  renderActionPage,
  sendPage,
} from "../lib/action-page.ts";
import { calendarFeed } from "./feed.ts";
import { hashToken } from "./repository.ts";
import type { Bookings } from "./service.ts";

/**
 * The booking pages (docs/product.md, "Book a call"), all working without JavaScript: `/book`
 * (the built page with the free times put in its placeholder), the reader's links
 * `/book/cancel?token=` and `/book/reschedule?token=`, and the owner's calendar feed
 * `/book/feed/<token>.ics`. Opening a link changes nothing (mail scanners open links): only
 * the page's button, a POST from this site, acts, and once.
 */
export const bookPath = "/book";
const note = "Engage with Engineer · booking a call";
const hole = '<ewe-fragment data-part="booking"></ewe-fragment>';
/** Page loads and posts one address may make in a minute: a person needs a few. */
const perMinute = 60;
const tokenPattern = /^[A-Za-z0-9_-]{43}$/;
const zoneOr = (zone: unknown, otherwise: string) =>
  typeof zone === "string" && isTimeZone(zone) ? zone : otherwise;

const hidden = (name: string, value: string) =>
  `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
const alert = (text: string) => `<p class="booking-alert" role="alert">${escapeHtml(text)}</p>`;

let zoneOptionsCache: string[] | undefined;
function zoneSelect(id: string, chosen: string): string {
  zoneOptionsCache ??= timeZones();
  const zones = zoneOptionsCache.includes(chosen) ? zoneOptionsCache : timeZones(chosen);
  return `<label for="${id}" class="booking-label">Time zone</label>
<select id="${id}" name="zone" class="field booking-zone-select">${zones
    .map(
      (zone) =>
        `<option value="${escapeHtml(zone)}"${zone === chosen ? " selected" : ""}>${escapeHtml(zoneName(zone))}</option>`,
    )
    .join("")}</select>`;
}

/** The free times as radio buttons, one group per day, each named by its local time. */
function timesHtml(starts: string[], zone: string, chosen?: string): string {
  const days = slotsByDay(starts, zone);
  if (days.length === 0) {
    return `<p class="booking-empty">No free times in the coming weeks. Send an enquiry instead: <a href="/services#send-enquiry">Send an enquiry</a>.</p>`;
  }
  return `<fieldset class="booking-times"><legend class="booking-label">Free times, in ${escapeHtml(zoneName(zone))}</legend>
${days
  .map(
    (day) =>
      `<fieldset class="booking-day"><legend class="booking-day-label">${escapeHtml(day.label)}</legend><div class="booking-slots">${day.slots
        .map(
          (slot) =>
            `<label class="booking-slot"><input type="radio" name="start" value="${escapeHtml(slot.start)}" required${slot.start === chosen ? " checked" : ""}><span>${escapeHtml(slot.label)}</span></label>`,
        )
        .join("")}</div></fieldset>`,
  )
  .join("\n")}
</fieldset>`;
}

type Filled = { name?: string; email?: string; service?: string; note?: string; start?: string };

export async function bookingPages(
  app: FastifyInstance,
  {
    bookings,
    root,
    siteUrl,
    booked = async () => {},
  }: {
    bookings: Bookings;
    root: string;
    siteUrl: string;
    /** Told of each call booked by the form post (readership attributes it). */
    booked?: (request: FastifyRequest) => Promise<void>;
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

  function serviceSelect(chosen: string): string {
    const choices = [...bookings.services, { id: otherService, title: otherServiceLabel }];
    return `<label for="booking-service" class="booking-label">Service</label>
<select id="booking-service" name="service" class="field" required>
<option value=""${chosen ? "" : " selected"}>Choose a service</option>
${choices
  .map(
    (choice) =>
      `<option value="${escapeHtml(choice.id)}"${choice.id === chosen ? " selected" : ""}>${escapeHtml(choice.title)}</option>`,
  )
  .join("")}
</select>`;
  }

  /** The form, with the free times in `zone` (or those given: a refusal's list, already fresh). */
  async function formHtml(
    zone: string,
    filled: Filled,
    problem?: string,
    given?: SlotsResponse,
  ): Promise<string> {
    const slots = given ?? (await bookings.slots(zone));
    return `<div class="booking" id="booking-form-html">
${problem ? alert(problem) : ""}
<form method="get" action="${bookPath}" class="booking-zone">
${zoneSelect("booking-zone", slots.zone)}
${filled.service ? hidden("service", filled.service) : ""}
<button type="submit" class="btn-secondary">Show times</button>
</form>
<form method="post" action="${bookPath}" class="booking-form">
${hidden("zone", slots.zone)}${hidden("formToken", bookings.issueFormToken())}
<div aria-hidden="true" class="booking-honeypot"><label>Website <input type="text" name="website" tabindex="-1" autocomplete="off"></label></div>
${timesHtml(slots.starts, slots.zone, filled.start)}
${
  slots.starts.length === 0
    ? ""
    : `<div class="booking-fields">
<label for="booking-name" class="booking-label">Your name</label>
<input id="booking-name" name="name" class="field" required maxlength="${limits.enquiryNameMax}" autocomplete="name" value="${escapeHtml(filled.name ?? "")}">
<label for="booking-email" class="booking-label">Your email</label>
<input id="booking-email" name="email" type="email" class="field" required maxlength="${limits.emailMax}" autocomplete="email" value="${escapeHtml(filled.email ?? "")}">
${serviceSelect(filled.service ?? "")}
<label for="booking-note" class="booking-label">What would you like to discuss?</label>
<textarea id="booking-note" name="note" class="field" rows="4" maxlength="${limits.bookingNoteMax}">${escapeHtml(filled.note ?? "")}</textarea>
<p class="booking-small">The invitation goes to this address, with links to cancel or move the call. Your booking is kept ${bookings.retentionDays} days after the call, then deleted: see the <a href="/privacy#bookings">privacy policy</a>.</p>
<button type="submit" class="btn-primary">Book this time</button>
</div>`
}
</form>
</div>`;
  }

  const bookedHtml = (start: string, zone: string, ownerZone: string) => {
    const instant = Date.parse(start);
    const yours = momentLabel(instant, zone);
    const theirs = momentLabel(instant, ownerZone);
    return `<div class="booking-done" role="status">
<h2 class="booking-done-title">You're booked</h2>
<p>Your call is on <strong>${escapeHtml(yours)}</strong>${yours === theirs ? "" : `, which is ${escapeHtml(theirs)} for the engineer`}.</p>
<p>An invitation for your calendar is on its way to your inbox, with links to cancel or move the call.</p>
</div>`;
  };

  /**
   * Every answer but the form itself is kept out of search engines: a refusal, or
   * what a post made (docs/product.md, "Book a call").
   */
  const send = (reply: FastifyReply, status: number, html: string, indexed = false) =>
    sendPage(reply, status, page(html), { indexed });

  await app.register(async (scope) => {
    acceptForms(scope);
    await scope.register(fastifyRateLimit, { global: false });
    const limit = scope.createRateLimit({
      max: perMinute,
      timeWindow: 60_000,
      keyGenerator: (request) => request.ip,
    });
    const tooMany = (reply: FastifyReply) =>
      send(reply, 429, alert("Too many requests from your address; wait a minute and try again."));
    const allowed = async (request: FastifyRequest, reply: FastifyReply) => {
      const allowance = await limit(request);
      if (allowance.isAllowed || !allowance.isExceeded) return true;
      reply.header("retry-after", String(Math.max(1, allowance.ttlInSeconds)));
      return false;
    };

    scope.setErrorHandler(async (error, request, reply) => {
      const status = (error as { statusCode?: number }).statusCode ?? 500;
      if (status < 500) {
        return send(reply, status, alert("The form could not be read. Go back and send it again."));
      }
      request.log.error({ err: error }, "booking page failed");
      const failure = storeFailureOf(error);
      if (failure) reply.header("retry-after", String(failure.retryAfterSeconds));
      return send(
        reply,
        503,
        alert(
          "The site could not reach its database just now; nothing was booked. Please try again in a moment.",
        ),
      );
    });

    const show = async (request: FastifyRequest, reply: FastifyReply) => {
      if (!(await allowed(request, reply))) return tooMany(reply);
      const { zone, service } = request.query as { zone?: unknown; service?: unknown };
      const chosenZone = zoneOr(zone, "");
      const chosenService =
        typeof service === "string" &&
        (service === otherService || bookings.services.some((s) => s.id === service))
          ? service
          : "";
      const problem =
        typeof zone === "string" && zone !== "" && !chosenZone
          ? "That time zone is not known; the times are shown in the engineer's."
          : undefined;
      return send(
        reply,
        200,
        await formHtml(
          chosenZone || (await bookings.ownerZone()),
          { service: chosenService },
          problem,
        ),
        // The page a buyer may search for ("book a call with …"); its canonical
        // link is /book whatever the zone or service asked for.
        problem === undefined,
      );
    };
    scope.get(bookPath, show);
    scope.get(`${bookPath}/`, show);

    scope.post(bookPath, async (request, reply) => {
      if (!(await allowed(request, reply))) return tooMany(reply);
      if (!fromSite(request, siteOrigin)) {
        return send(reply, 403, alert("The form must be sent from this site's own page."));
      }
      const form = formFields(request);
      const field = (name: string) => form.get(name) ?? "";
      const zone = zoneOr(field("zone"), "") || (await bookings.ownerZone());
      const filled: Filled = {
        name: field("name"),
        email: field("email"),
        service: field("service"),
        note: field("note"),
        start: field("start"),
      };
      const parsed = bookingRequestSchema.safeParse({
        ...filled,
        start: filled.start || "",
        zone,
        formToken: field("formToken") || undefined,
        website: field("website"),
      });
      if (!parsed.success) {
        const problems = parsed.error.issues.map((issue) =>
          issue.path[0] === "start" ? "Choose one of the free times." : issue.message,
        );
        return send(reply, 400, await formHtml(zone, filled, [...new Set(problems)].join(" ")));
      }
      const outcome = await bookings.book(parsed.data, { ip: request.ip, visitorId: null });
      if (outcome.outcome === "booked") {
        if (outcome.booking) await booked(request);
        return send(reply, 200, bookedHtml(parsed.data.start, zone, outcome.ownerZone));
      }
      if (outcome.outcome === "taken") {
        const { start: _taken, ...rest } = filled;
        return send(
          reply,
          409,
          await formHtml(
            zone,
            rest,
            `${slotTakenMessage}. Here are the free times now; choose another.`,
            outcome.slots,
          ),
        );
      }
      const { refusal } = outcome;
      if (refusal.retryAfterSeconds) reply.header("retry-after", String(refusal.retryAfterSeconds));
      return send(reply, refusal.status, await formHtml(zone, filled, refusal.message));
    });

    scope.get<{ Params: { file: string } }>(`${bookPath}/feed/:file`, async (request, reply) => {
      const token = request.params.file.replace(/\.ics$/, "");
      const known = await bookings.repository.feedTokenHash();
      if (!tokenPattern.test(token) || known === null || known !== hashToken(token)) {
        return reply.code(404).type("text/plain; charset=utf-8").send("No such calendar.\n");
      }
      return reply
        .header("cache-control", "private, no-store")
        .header("x-robots-tag", "noindex")
        .type("text/calendar; charset=utf-8")
        .send(await calendarFeed(bookings));
    });
  });

  // The reader's links from the invitation.
  await app.register(async (scope) => {
    acceptForms(scope);
    const answer = linkPages(scope, {
      note,
      mail: "the invitation",
      failure: "booking link page failed",
      failureOf: storeFailureOf,
    });
    const spent = {
      title: "This link has been used",
      body: paragraph(
        "The call it came with has been cancelled or moved already, or the link was copied incompletely. A moved call's mail carries new links.",
      ),
    };
    const refused = { title: "Nothing was changed", body: fromElsewhere(siteOrigin) };
    /** The link's token, and its booking when the token is still good. */
    const bookingOf = async (request: FastifyRequest) => {
      const given =
        request.method === "POST" ? (formFields(request).get("token") ?? "") : queryToken(request);
      const token = tokenPattern.test(given) ? given : "";
      return { token, booking: token ? await bookings.byToken(token) : undefined };
    };

    scope.get(`${bookPath}/cancel`, async (request, reply) => {
      const { token, booking } = await bookingOf(request);
      if (!booking) return answer(reply, 404, spent);
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
      const booking = tokenPattern.test(given) ? await bookings.cancelByReader(given) : undefined;
      if (!booking) return answer(reply, 404, spent);
      return answer(reply, 200, {
        title: "Your call is cancelled",
        body: `${paragraph(`The call on ${momentLabel(Date.parse(booking.start), booking.readerZone)} is cancelled. A cancellation is on its way to your inbox, and takes it out of your calendar.`)}
<p><a href="${bookPath}">Book another time</a></p>`,
      });
    });

    const reschedulePage = async (
      token: string,
      zone: string,
      current: { start: string; readerZone: string },
      problem?: string,
    ) => {
      const slots = await bookings.slots(zone);
      const list = slots.starts.filter((start) => start !== current.start);
      return {
        title: "Move your call",
        body: `${problem ? `<ul class="problems" role="alert"><li>${escapeHtml(problem)}</li></ul>` : ""}
${paragraph(`Your call is on ${momentLabel(Date.parse(current.start), current.readerZone)}. Choose another time; nothing changes until you press the button.`)}
<form method="get" action="${bookPath}/reschedule">
${hidden("token", token)}
${zoneSelect("reschedule-zone", slots.zone)}
<button type="submit">Show times</button>
</form>
<form method="post" action="${bookPath}/reschedule">
${hidden("token", token)}${hidden("zone", slots.zone)}
${timesHtml(list, slots.zone)}
${list.length > 0 ? '<p><button type="submit">Move the call</button></p>' : ""}
</form>`,
      };
    };

    scope.get(`${bookPath}/reschedule`, async (request, reply) => {
      const { token, booking } = await bookingOf(request);
      if (!booking) return answer(reply, 404, spent);
      const { zone } = request.query as { zone?: unknown };
      return answer(
        reply,
        200,
        await reschedulePage(token, zoneOr(zone, booking.readerZone), booking),
      );
    });

    scope.post(`${bookPath}/reschedule`, async (request, reply) => {
      if (!fromSite(request, siteOrigin)) return answer(reply, 403, refused);
      const { token, booking } = await bookingOf(request);
      if (!booking) return answer(reply, 404, spent);
      const form = formFields(request);
      const zone = zoneOr(form.get("zone"), booking.readerZone);
      const moved = await bookings.reschedule(token, form.get("start") ?? "");
      if (moved.outcome === "unknown") return answer(reply, 404, spent);
      if (moved.outcome !== "moved") {
        const taken = moved.outcome === "taken";
        const problem = taken
          ? `${slotTakenMessage}. Choose another.`
          : "Choose one of the free times.";
        return answer(
          reply,
          taken ? 409 : 400,
          await reschedulePage(token, zone, booking, problem),
        );
      }
      return answer(reply, 200, {
        title: "Your call is moved",
        body: paragraph(
          `Your call is now on ${momentLabel(Date.parse(moved.booking.start), moved.booking.readerZone)}. The updated invitation is on its way to your inbox, with new links; the old ones no longer work.`,
        ),
      });
    });
  });
}
