import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import {
  bookedResponseSchema,
  bookingConflictResponseSchema,
  bookingRequestSchema,
  notBookedMessage,
  slotsQuerySchema,
  slotsResponseSchema,
  slotTakenMessage,
} from "../../../contract/bookings.ts";
import { bookingLoadsPerMinute, tooManyLoads } from "../../bookings/limits.ts";
import type { Bookings } from "../../bookings/service.ts";
import { countByAddress, networkFactor } from "../../lib/address-limit.ts";
import type { Readers } from "../../readers/service.ts";
import { ApiError, routesTagged } from "../errors.ts";
import { issueVisitor } from "../guards.ts";
import { formTokenRoute, refusalError } from "./deps.ts";

const route = routesTagged("bookings");

/**
 * Booking a call from the island (docs/product.md, "Book a call"): the free
 * times, the form's signed time, and the booking. The answer says when the
 * call is and nothing else; without JavaScript the page posts to /book
 * (server/bookings/pages.ts), which goes through the same `book`.
 */
export const bookingRoutes: FastifyPluginAsyncZod<{
  bookings: Bookings;
  siteUrl: string;
  /** Readership: a booked call counts for the page and source that brought the reader. */
  attribute: Readers["attribute"];
}> = async (app, { bookings, siteUrl, attribute }) => {
  formTokenRoute(
    app,
    "bookings",
    "A signed time for the booking form, and how long after it the form may be sent",
    bookings.formTokens,
  );

  // Counted per address and network as the booking pages are: each list reads the calendar.
  const limit = countByAddress(app, {
    name: "booking slots",
    max: bookingLoadsPerMinute,
    timeWindow: 60_000,
  });
  app.get(
    "/bookings/slots",
    route(
      `The free times to book a call, in UTC, with the zone to show them in; ${bookingLoadsPerMinute} a minute from one address, ${bookingLoadsPerMinute * networkFactor} from one network, then 429 with Retry-After`,
      { 200: slotsResponseSchema },
      { querystring: slotsQuerySchema },
    ),
    async (request, reply) => {
      const refused = await limit(request);
      if (refused) {
        throw new ApiError(429, "rate_limited", tooManyLoads(refused.from), refused.retryAfter);
      }
      reply.header("cache-control", "no-store");
      return bookings.slots(request.query.zone);
    },
  );

  app.post(
    "/bookings",
    route(
      "Book a call at a free time; both sides are mailed an invitation. 409 slot_taken, with the free times left, when another reader took it first; 409 not_booked, with the free times, when the address may not book now (its mailbox is told why)",
      { 201: bookedResponseSchema, 409: bookingConflictResponseSchema },
      { body: bookingRequestSchema },
    ),
    async (request, reply) => {
      // The booking belongs to this browser, so "Your data" shows and deletes it.
      const visitorId = request.visitorId ?? issueVisitor(request, reply, siteUrl);
      const outcome = await bookings.book(request.body, { ip: request.ip, visitorId });
      if (outcome.outcome === "taken" || outcome.outcome === "not_booked") {
        const [code, message] =
          outcome.outcome === "taken"
            ? (["slot_taken", `${slotTakenMessage}. Choose another of the free times.`] as const)
            : (["not_booked", notBookedMessage] as const);
        request.log.info({ code, status: 409 }, "request refused");
        // The free times come with the refusal: the page shows them without asking again.
        return reply.code(409).send({ error: { code, message, slots: outcome.slots } });
      }
      if (outcome.outcome === "refused") throw refusalError(outcome.refusal);
      if (outcome.booking) await attribute(request, "booking");
      // The same answer whether the call was booked or a filled honeypot answered as if it were.
      return reply.code(201).send({
        booked: true,
        start: new Date(request.body.start).toISOString(),
        end: outcome.end,
        zone: request.body.zone,
        ownerZone: outcome.ownerZone,
      });
    },
  );
};
