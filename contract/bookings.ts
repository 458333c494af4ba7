import { z } from "zod";
import {
  emailSchema,
  errorResponseSchema,
  type FormTokenResponse,
  multiLineSchema,
  timestampSchema,
} from "./api.ts";
import {
  clockMessage,
  clockPattern,
  dateMessage,
  minutesOf,
  roomMessage,
  stretchOrderMessage,
  type WeekdayName,
  weekdayNames,
} from "./booking-hours.ts";
import { enquiryNameSchema } from "./enquiries.ts";
import { limits } from "./limits.ts";
import { hasFewMarksPerCharacter, hasNoControlOrDirectionCharacters } from "./text.ts";
import { isOfferedTimeZone, isTimeZone, offeredZoneName } from "./time-zones.ts";

/*
 * Booking a call (docs/product.md, "Book a call"): the free times a reader
 * sees, the booking they send, and the owner's side in the console. A
 * booking is personal data: the reader's answer says when the call is, and
 * nothing public ever lists who booked.
 */

const zoneSchema = (valid: (zone: string) => boolean) =>
  z.string().trim().max(64).refine(valid, "Choose a time zone from the list.");
const timeZoneSchema = zoneSchema(isTimeZone);
/** A reader's zone: one of the form's list (isOfferedTimeZone), in any case, kept by its name there (offeredZoneName). */
const readerZoneSchema = zoneSchema(isOfferedTimeZone).transform(
  (zone) => offeredZoneName(zone) ?? zone,
);

export { type WeekdayName, weekdayNames };

const clockTime = z.string().regex(clockPattern, clockMessage);

export { minutesOf };

/** One stretch of a day's hours, in the owner's zone: "10:00" to "17:00". */
const hoursSchema = z
  .tuple([clockTime, clockTime])
  .refine(([from, to]) => minutesOf(from) < minutesOf(to), stretchOrderMessage);

const wholeBetween = (min: number, max: number, message: string) =>
  z.number(message).int(message).min(min, message).max(max, message);

const availabilityFields = {
  /** The owner's zone; null follows BOOKING_TIMEZONE (else the owner profile's, else UTC). */
  timeZone: timeZoneSchema.nullable(),
  /** Per weekday, the stretches of time calls may take, in the owner's zone. */
  weekly: z.strictObject(
    Object.fromEntries(
      weekdayNames.map((day) => [
        day,
        z.array(hoursSchema).max(6, "A day has at most 6 stretches."),
      ]),
    ) as Record<WeekdayName, z.ZodArray<typeof hoursSchema>>,
  ),
  callMinutes: wholeBetween(10, 240, "A call is 10 to 240 minutes long."),
  /** Whether a first call costs nothing: /book and every service page say so (callTerms). */
  firstCallFree: z.boolean("Say whether the first call is free: true or false."),
  bufferMinutes: wholeBetween(0, 240, "The time free after a call is 0 to 240 minutes."),
  noticeHours: wholeBetween(0, 24 * 30, "The notice is 0 to 720 hours."),
  horizonDays: wholeBetween(1, 365, "Calls can be booked 1 to 365 days ahead."),
  /** The most calls on one day (the owner's); null for no limit beyond the hours. */
  dailyMax: wholeBetween(1, 48, "The most calls a day is 1 to 48, or no limit.").nullable(),
  /** Dates off, in the owner's zone: YYYY-MM-DD. */
  datesOff: z.array(z.iso.date(dateMessage)).max(366),
  /**
   * Where calls happen: the fixed room (`meetingUrl`, else BOOKING_MEETING_URL),
   * or a new Jitsi Meet room per call (meet.jit.si needs no account).
   */
  meeting: z.enum(
    ["fixed", "jitsi"],
    'The room is "fixed" (your own) or "jitsi" (a new one per call).',
  ),
  meetingUrl: z
    .url({ protocol: /^https$/, error: roomMessage })
    .max(500)
    .nullable(),
};

/** The owner's settings as the console sends them: dates off come back sorted, once each. */
export const availabilitySchema = z.strictObject({
  ...availabilityFields,
  // Settings saved before it was one are read as the pages said then: free.
  firstCallFree: availabilityFields.firstCallFree.default(true),
  datesOff: availabilityFields.datesOff.transform((dates) => [...new Set(dates)].sort()),
});
/** The same settings in an answer (answers' schemas carry no transforms). */
export const availabilityAnswerSchema = z.object(availabilityFields);
export type Availability = z.output<typeof availabilitySchema>;
export type AvailabilityInput = z.input<typeof availabilitySchema>;

/** Out of the box: weekdays 10:00–17:00, 30-minute calls, free, 24 hours' notice, 30 days ahead. */
export const defaultAvailability: Availability = {
  timeZone: null,
  weekly: {
    mon: [["10:00", "17:00"]],
    tue: [["10:00", "17:00"]],
    wed: [["10:00", "17:00"]],
    thu: [["10:00", "17:00"]],
    fri: [["10:00", "17:00"]],
    sat: [],
    sun: [],
  },
  callMinutes: 30,
  firstCallFree: true,
  bufferMinutes: 0,
  noticeHours: 24,
  horizonDays: 30,
  dailyMax: null,
  datesOff: [],
  meeting: "fixed",
  meetingUrl: null,
};

// The reader's side

export const slotsQuerySchema = z.strictObject({
  zone: z.string().max(64).optional(),
});

export const slotsResponseSchema = z.object({
  /** The zone the labels below are in: the one asked for, else the owner's. */
  zone: z.string(),
  ownerZone: z.string(),
  callMinutes: z.number().int(),
  firstCallFree: z.boolean(),
  /** Free starts in UTC, in order. */
  starts: z.array(timestampSchema),
});
export type SlotsResponse = z.infer<typeof slotsResponseSchema>;

const bookingNoteSchema = multiLineSchema()
  .max(limits.bookingNoteMax, `The note is at most ${limits.bookingNoteMax} characters.`)
  .refine(
    hasNoControlOrDirectionCharacters,
    "The note cannot contain control or text-direction characters.",
  )
  .refine(hasFewMarksPerCharacter, "The note has too many accents on one character.");

export const bookingRequestSchema = z.strictObject({
  start: timestampSchema,
  name: enquiryNameSchema,
  email: emailSchema,
  service: z.string().min(1, "Choose a service.").max(80, "Choose a service from the list."),
  note: bookingNoteSchema.default(""),
  /** The reader's zone, for their mail. */
  zone: readerZoneSchema,
  formToken: z.string().max(200).optional(),
  website: z.string().max(200).optional(),
});
export type ValidBookingRequest = z.output<typeof bookingRequestSchema>;

/** What the reader is told: the time, in their zone and the owner's. */
export const bookedResponseSchema = z.object({
  booked: z.literal(true),
  start: timestampSchema,
  end: timestampSchema,
  zone: z.string(),
  ownerZone: z.string(),
});
export type BookedResponse = z.infer<typeof bookedResponseSchema>;

/** The message a reader sees when another took the time first. */
export const slotTakenMessage = "That time was just taken";

/**
 * The one answer, on the page and from the API, when the address may not book now (a call
 * booked for it within the hour, or its most calls ahead): why goes to its mailbox alone.
 */
export const notBookedMessage =
  "This time was not booked for this address. We have sent the reason to it.";

/**
 * A refusal of `POST /bookings` with status 409. On `slot_taken` and `not_booked` it carries
 * the free times as they are now, in the reader's zone, so the page shows them at once
 * instead of asking again (`too_many_pending`, the other 409, has none).
 */
export const bookingConflictResponseSchema = z.object({
  error: errorResponseSchema.shape.error.extend({
    /** Present on `slot_taken` and `not_booked`: the free times, as `GET /bookings/slots` lists them. */
    slots: slotsResponseSchema.optional(),
  }),
});
export type BookingConflictResponse = z.infer<typeof bookingConflictResponseSchema>;

// The owner's side

const bookingStatuses = ["booked", "cancelled"] as const;

export const bookingSchema = z.object({
  id: z.number().int(),
  start: timestampSchema,
  end: timestampSchema,
  name: z.string(),
  email: z.string(),
  service: z.string(),
  serviceTitle: z.string(),
  note: z.string(),
  readerZone: z.string(),
  status: z.enum(bookingStatuses),
  meetingUrl: z.string().nullable(),
  cancelledBy: z.enum(["reader", "owner"]).nullable(),
  cancelMessage: z.string().nullable(),
  /** Cancelled by nobody: its invitation hard-bounced, so its address does not receive mail. */
  undeliverable: z.boolean(),
  /** How many times the reader moved the call from their mail's link. */
  moves: z.number().int(),
  /** How many times the owner moved it. */
  ownerMoves: z.number().int(),
  createdAt: timestampSchema,
});
export type Booking = z.infer<typeof bookingSchema>;

export const bookingsQuerySchema = z.strictObject({
  when: z.enum(["upcoming", "past"]).default("upcoming"),
});

export const bookingsResponseSchema = z.object({
  bookings: z.array(bookingSchema),
  availability: availabilityAnswerSchema,
  ownerZone: z.string(),
  /** Whether a calendar feed address is live (its address is shown once, when made). */
  feed: z.boolean(),
  retentionDays: z.number().int(),
});

export const cancelBookingRequestSchema = z.strictObject({
  message: multiLineSchema()
    .max(limits.bookingNoteMax, `A message is at most ${limits.bookingNoteMax} characters.`)
    .refine(
      hasNoControlOrDirectionCharacters,
      "The message cannot contain control or text-direction characters.",
    )
    .default(""),
});

export const moveBookingRequestSchema = z.strictObject({
  /** One of the times `GET /admin/bookings/:id/times` lists. */
  start: z.iso.datetime({ offset: true, message: "Choose one of the free times." }),
  reason: z
    .string()
    .trim()
    .max(limits.moveReasonMax, `A reason is at most ${limits.moveReasonMax} characters.`)
    .refine(
      (text) => !/[\r\n]/.test(text) && hasNoControlOrDirectionCharacters(text),
      "A reason is one line, without control or text-direction characters.",
    )
    .default(""),
});

/**
 * The times the owner may move a call to: the readers' grid, without the notice or the daily
 * maximum; `busy`, those of them that meet a busy time of the owner's own calendar.
 */
export const moveTimesResponseSchema = z.object({
  ownerZone: z.string(),
  starts: z.array(timestampSchema),
  busy: z.array(timestampSchema),
});

export const feedResponseSchema = z.object({ url: z.string() });

/** Calls still booked per week (from Monday, UTC), by when they take place, for the Overview. */
export const bookingWeeksResponseSchema = z.object({
  weeks: z.array(z.object({ week: z.string(), count: z.number().int() })),
});

type Out<S extends z.ZodType> = z.infer<S>;

export type BookingEndpoints = {
  "GET /bookings/form-token": { response: FormTokenResponse };
  "GET /bookings/slots": { query?: z.input<typeof slotsQuerySchema>; response: SlotsResponse };
  "POST /bookings": { body: z.input<typeof bookingRequestSchema>; response: BookedResponse };
  "GET /admin/bookings": {
    query?: z.input<typeof bookingsQuerySchema>;
    response: z.infer<typeof bookingsResponseSchema>;
  };
  "GET /admin/bookings/weeks": { response: Out<typeof bookingWeeksResponseSchema> };
  "PUT /admin/bookings/availability": {
    body: AvailabilityInput;
    response: { availability: Availability };
  };
  "POST /admin/bookings/:id/cancel": {
    params: { id: number };
    body: z.input<typeof cancelBookingRequestSchema>;
    response: { booking: Booking };
  };
  "GET /admin/bookings/:id/times": {
    params: { id: number };
    response: Out<typeof moveTimesResponseSchema>;
  };
  "POST /admin/bookings/:id/move": {
    params: { id: number };
    body: z.input<typeof moveBookingRequestSchema>;
    response: { booking: Booking };
  };
  "POST /admin/bookings/feed": { response: Out<typeof feedResponseSchema> };
  "DELETE /admin/bookings/feed": { response: undefined };
  "DELETE /admin/bookings/:id": { params: { id: number }; response: undefined };
};

/**
 * The owner's busy calendar (BOOKING_BUSY_CALENDAR_URL) on the console's Health, as this
 * instance read it; null when none is set. `inForce`: read within a day, so its busy times
 * stand against the free times; else they come from the hours alone. `skipped`: the events of
 * the last good read whose repeats could not be expanded (each holds its first time busy).
 */
export const busyCalendarHealthSchema = z
  .object({
    readAt: timestampSchema.nullable(),
    failedAt: timestampSchema.nullable(),
    why: z.string().nullable(),
    inForce: z.boolean(),
    skipped: z.number().int().nonnegative(),
  })
  .nullable();
