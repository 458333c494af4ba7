import { z } from "zod";
import { emailSchema } from "./api.ts";

/*
 * The newsletter's subscription through `/api/newsletter`: subscribing, the
 * double opt-in's confirmation link and the unsubscribe link
 * (docs/product.md, "Newsletter").
 */

/**
 * `formToken` comes from `GET /api/newsletter/form-token` when the form is
 * first used; `website` is the form's hidden honeypot field, which a person
 * never fills (docs/product.md, "Newsletter").
 */
export const subscribeRequestSchema = z.strictObject({
  email: emailSchema,
  formToken: z.string().max(200),
  website: z.string().max(200).optional(),
});
export type SubscribeRequest = z.input<typeof subscribeRequestSchema>;

/** The address is pending until its owner follows the link in the confirmation mail. */
export const subscribeResponseSchema = z.object({ pending: z.literal(true) });
export type SubscribeResponse = z.infer<typeof subscribeResponseSchema>;

/** The token of a confirmation link: 32 random bytes in base64url. */
export const confirmRequestSchema = z.strictObject({
  token: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "This is not a confirmation token."),
});
export type ConfirmRequest = z.input<typeof confirmRequestSchema>;

export const confirmResponseSchema = z.object({ confirmed: z.literal(true) });
export type ConfirmResponse = z.infer<typeof confirmResponseSchema>;

/**
 * What a confirmation link can still do, read without using it: the page
 * offers Confirm only for a `pending` one, and says at once that a `used` one
 * has done its work.
 */
export const confirmStateResponseSchema = z.object({
  state: z.enum(["pending", "used", "expired", "unknown"]),
});
export type ConfirmStateResponse = z.infer<typeof confirmStateResponseSchema>;

/** The token of an unsubscribe link: 32 random bytes in base64url, as the server issues them. */
export const unsubscribeTokenSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/, "This is not an unsubscribe token.");

export const unsubscribeRequestSchema = z.strictObject({ token: unsubscribeTokenSchema });
export type UnsubscribeRequest = z.input<typeof unsubscribeRequestSchema>;

/** The same answer the first time and on every later visit of the link. */
/**
 * `already`: the link's subscription had ended before (the link followed again). A
 * subscription made since under the same address has a link of its own, which this
 * one cannot end: the site keeps no address for an ended one.
 */
export const unsubscribeResponseSchema = z.object({
  unsubscribed: z.literal(true),
  already: z.boolean(),
});
export type UnsubscribeResponse = z.infer<typeof unsubscribeResponseSchema>;
