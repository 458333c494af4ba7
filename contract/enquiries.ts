import { z } from "zod";
import { emailSchema, type FormTokenResponse, multiLineSchema, timestampSchema } from "./api.ts";
import { enquiryStatuses } from "./enquiry-choices.ts";
import { limits } from "./limits.ts";
import {
  hasFewMarksPerCharacter,
  hasNoControlOrDirectionCharacters,
  hasNoHiddenCharacters,
  hasVisibleCharacter,
  searchText,
} from "./text.ts";
import { offeredZoneName } from "./time-zones.ts";

/*
 * Enquiries (docs/product.md, "Enquiries"): the form on /services, and the
 * owner's screen in the console. What a reader sends is personal data: no
 * public answer ever carries it back, so the form's answer says only that it
 * arrived.
 */

export { enquiryStatuses, otherService, otherServiceLabel } from "./enquiry-choices.ts";

/** One line of plain text: no line breaks or hidden characters, so it can never split a mail header. */
const oneLineSchema = (what: string, max: number) =>
  z
    .string()
    .trim()
    .max(max, `${what} is at most ${max} characters.`)
    .refine(
      (value) => value === "" || hasNoHiddenCharacters(value),
      `${what} must be one line, without control or invisible characters.`,
    )
    .refine(hasFewMarksPerCharacter, `${what} has too many accents on one character.`);

export const enquiryNameSchema = oneLineSchema("Your name", limits.enquiryNameMax)
  .pipe(z.string().min(1, "Enter your name."))
  .refine(hasVisibleCharacter, "Enter your name.");

const tooShort = `Write at least ${limits.enquiryMessageMin} characters: what you need, and for what.`;
const enquiryMessageSchema = multiLineSchema()
  .min(limits.enquiryMessageMin, tooShort)
  .max(
    limits.enquiryMessageMax,
    `The message is at most ${limits.enquiryMessageMax} characters; shorten it, and send details later in the conversation.`,
  )
  .refine(
    hasNoControlOrDirectionCharacters,
    "The message cannot contain control or text-direction characters.",
  )
  // Twenty zero-width spaces or Hangul fillers are as long, and say nothing.
  .refine(hasVisibleCharacter, tooShort)
  .refine(hasFewMarksPerCharacter, "The message has too many accents on one character.");

const optionalDetail = (what: string) =>
  oneLineSchema(what, limits.enquiryDetailMax)
    .optional()
    .transform((value) => (value === undefined || value === "" ? null : value));

/**
 * `service` is a service's id from /services or `other`; `formToken` comes
 * from `GET /api/enquiries/form-token` and `website` is the hidden honeypot.
 * `zone`, the browser's time zone, is a hint: the sender cannot choose it, so
 * a zone the form's list lacks is ignored (the acknowledgement says UTC) rather than refused.
 */
export const enquiryRequestSchema = z.strictObject({
  name: enquiryNameSchema,
  email: emailSchema,
  service: z.string().min(1, "Choose a service.").max(80, "Choose a service from the list."),
  message: enquiryMessageSchema,
  organisation: optionalDetail("Organisation"),
  timeline: optionalDetail("Timeline"),
  formToken: z.string().max(200).optional(),
  website: z.string().max(200).optional(),
  /** The sender's time zone as their browser gives it, by the list's name, for the acknowledgement; one off the list is dropped. */
  zone: z
    .string()
    .max(64)
    .optional()
    .transform((zone) => (zone && offeredZoneName(zone)) || undefined),
});
export type ValidEnquiry = z.output<typeof enquiryRequestSchema>;

/** All a sender learns: it arrived. */
export const enquiryResponseSchema = z.object({ received: z.literal(true) });

// The owner's side

const enquiryStatusSchema = z.enum(enquiryStatuses);
export type EnquiryStatusName = (typeof enquiryStatuses)[number];

const enquiryAnswerSchema = z.object({
  id: z.number().int(),
  body: z.string(),
  createdAt: timestampSchema,
});

const enquirySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  service: z.string(),
  serviceTitle: z.string(),
  organisation: z.string().nullable(),
  timeline: z.string().nullable(),
  message: z.string(),
  status: enquiryStatusSchema,
  kept: z.boolean(),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
  answers: z.array(enquiryAnswerSchema),
});
export type Enquiry = z.infer<typeof enquirySchema>;

export const enquiriesQuerySchema = z.strictObject({
  q: searchText(200).trim().optional(),
  status: enquiryStatusSchema.optional(),
  service: searchText(80).optional(),
});

export const enquiriesResponseSchema = z.object({
  enquiries: z.array(enquirySchema),
  /** Every service the form offers, by id, with "other" last: the filter's choices. */
  services: z.array(z.object({ id: z.string(), title: z.string() })),
  retentionDays: z.number().int(),
});

export const answerEnquiryRequestSchema = z.strictObject({
  body: multiLineSchema()
    .min(1, "Write the answer.")
    .max(limits.enquiryAnswerMax, `An answer is at most ${limits.enquiryAnswerMax} characters.`)
    .refine(
      hasNoControlOrDirectionCharacters,
      "The answer cannot contain control or text-direction characters.",
    ),
});

export const updateEnquiryRequestSchema = z
  .strictObject({ status: enquiryStatusSchema.optional(), kept: z.boolean().optional() })
  .refine((value) => value.status !== undefined || value.kept !== undefined, "Nothing to change.");

export const enquiryResponseOwnerSchema = z.object({ enquiry: enquirySchema });

/** Enquiries per ISO week (Monday, UTC) and service, for the Overview. */
const enquiryWeeksSchema = z.array(
  z.object({ week: z.string(), counts: z.record(z.string(), z.number().int()) }),
);

/** The Overview's chart: enquiries per week and service, with the services' names. */
export const enquiryWeeksResponseSchema = z.object({
  weeks: enquiryWeeksSchema,
  services: enquiriesResponseSchema.shape.services,
});

type Out<S extends z.ZodType> = z.infer<S>;

export type EnquiryEndpoints = {
  "GET /enquiries/form-token": { response: FormTokenResponse };
  "POST /enquiries": {
    body: z.input<typeof enquiryRequestSchema>;
    response: z.infer<typeof enquiryResponseSchema>;
  };
  "GET /admin/enquiries": {
    query?: z.input<typeof enquiriesQuerySchema>;
    response: z.infer<typeof enquiriesResponseSchema>;
  };
  "GET /admin/enquiries/weeks": {
    response: Out<typeof enquiryWeeksResponseSchema>;
  };
  "PATCH /admin/enquiries/:id": {
    params: { id: number };
    body: z.input<typeof updateEnquiryRequestSchema>;
    response: Out<typeof enquiryResponseOwnerSchema>;
  };
  "POST /admin/enquiries/:id/answers": {
    params: { id: number };
    body: z.input<typeof answerEnquiryRequestSchema>;
    response: Out<typeof enquiryResponseOwnerSchema>;
  };
  "DELETE /admin/enquiries/:id": { params: { id: number }; response: undefined };
};
