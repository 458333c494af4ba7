import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { z } from "zod";
import { rowIdParamsSchema } from "../../../contract/api.ts";
import {
  availabilityAnswerSchema,
  availabilitySchema,
  bookingSchema,
  bookingsQuerySchema,
  bookingsResponseSchema,
  bookingWeeksResponseSchema,
  cancelBookingRequestSchema,
  feedResponseSchema,
  moveBookingRequestSchema,
  moveTimesResponseSchema,
} from "../../../contract/bookings.ts";
import { ApiError, notFound } from "../../api/errors.ts";
import { bookingActions, moveRefusals, toBooking } from "../../bookings/owner-actions.ts";
import { type ConsoleContext, noContent, requireFreshSignIn, route } from "./context.ts";

/**
 * Booked calls (docs/product.md, "Book a call"): upcoming and past calls,
 * cancelling one with a message, the availability, the calendar feed's
 * address and the Overview's calls per week. Each action is audited by the
 * booking's number, never by what it holds.
 */
const cancelFirst = "That call is still ahead: cancel it first, so both calendars hear of it.";

export const bookingConsoleRoutes: FastifyPluginAsyncZod<ConsoleContext> = async (app, context) => {
  const { bookings, actor } = context;
  const { repository } = bookings;
  const actions = bookingActions(bookings, context.config.siteUrl);

  app.get(
    "/bookings",
    route(
      "Upcoming calls (soonest first) or past ones (latest first), with the availability",
      bookingsResponseSchema,
      { querystring: bookingsQuerySchema },
    ),
    async (request) => ({
      bookings: (await repository.list(request.query.when)).map((b) => toBooking(bookings, b)),
      availability: await repository.availability(),
      ownerZone: await bookings.ownerZone(),
      feed: (await repository.feedTokenHash()) !== null,
      retentionDays: bookings.retentionDays,
    }),
  );

  app.get(
    "/bookings/weeks",
    route(
      "Calls per week (from Monday, in the owner's zone), the last 12 weeks and those ahead to the booking horizon (at least 4)",
      bookingWeeksResponseSchema,
    ),
    async () => ({ weeks: await repository.perWeek(12, await bookings.ownerZone()) }),
  );

  app.put(
    "/bookings/availability",
    route(
      "Set the weekly hours, call length, buffer, notice, horizon, daily maximum, dates off and room",
      z.object({ availability: availabilityAnswerSchema }),
      { body: availabilitySchema },
    ),
    async (request) => ({
      availability: await actions.setAvailability(actor(request), request.body),
    }),
  );

  app.post(
    "/bookings/:id/cancel",
    route(
      "Cancel a booked call with a message; both sides are sent the cancellation",
      z.object({ booking: bookingSchema }),
      { params: rowIdParamsSchema, body: cancelBookingRequestSchema },
    ),
    async (request) => {
      const booking = await actions.cancel(actor(request), request.params.id, request.body.message);
      if (booking === "not_found")
        throw notFound("There is no such booked call; it may be cancelled already.");
      if (booking === "begun")
        throw new ApiError(409, "conflict", "That call has begun; it can no longer be cancelled.");
      return { booking };
    },
  );

  const noCall = "There is no such booking.";
  app.get(
    "/bookings/:id/times",
    route("The times a booked call may be moved to, in order", moveTimesResponseSchema, {
      params: rowIdParamsSchema,
    }),
    async (request) => {
      const times = await actions.moveTimes(request.params.id);
      if (times === "not_found") throw notFound(noCall);
      if (typeof times === "string") throw new ApiError(409, "conflict", moveRefusals[times]);
      return times;
    },
  );

  app.post(
    "/bookings/:id/move",
    route(
      "Move a booked call to one of its free times; the reader is sent the moved invitation",
      z.object({ booking: bookingSchema }),
      { params: rowIdParamsSchema, body: moveBookingRequestSchema },
    ),
    async (request) => {
      const { start, reason } = request.body;
      const booking = await actions.move(actor(request), request.params.id, start, reason);
      if (booking === "not_found") throw notFound(noCall);
      if (typeof booking === "string") throw new ApiError(409, "conflict", moveRefusals[booking]);
      return { booking };
    },
  );

  app.post(
    "/bookings/feed",
    route(
      "A new secret address of the calendar feed; the one before stops working",
      feedResponseSchema,
    ),
    async (request) => {
      // The address reads every call, names and addresses, for as long as it stands.
      requireFreshSignIn(context.sessionOf(request), "A new calendar feed address");
      return { url: (await actions.newFeed(actor(request))).url };
    },
  );

  app.delete(
    "/bookings/feed",
    route("Revoke the calendar feed's address", noContent),
    async (request) => {
      if ((await actions.revokeFeed(actor(request))) === "not_found")
        throw notFound("There is no calendar feed.");
    },
  );

  app.delete(
    "/bookings/:id",
    route(
      "Delete a booking and every mail about it (a reader's request by mail); nobody is told",
      noContent,
      { params: rowIdParamsSchema },
    ),
    async (request) => {
      const removed = await actions.remove(actor(request), request.params.id);
      if (removed === "not_found") throw notFound("There is no such booking.");
      if (removed === "ahead") throw new ApiError(409, "conflict", cancelFirst);
    },
  );
};
