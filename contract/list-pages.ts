import { z } from "zod";
import { canonicalWholeNumber, timestampSchema } from "./api.ts";
import { limits } from "./limits.ts";

/*
 * The owner's long lists, a page at a time (docs/product.md, "The owner's
 * console"): newest first, each page after a place in the list, the time a
 * row was written and its key (an address, an account), never an offset, so
 * a page deep in the list is read as quickly as the first. Clients pass the
 * place back as they got it, `next` of the page before; only this encoding
 * knows what it holds. Here too the suppressed addresses' shapes; the
 * followers' are in fediverse.ts.
 */

export type ListPlace = { at: string; key: string };

const placeText = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)~(.{1,2000})$/su;
const base64url = /^[A-Za-z0-9_-]{1,4000}$/;

export function encodeListPlace({ at, key }: ListPlace): string {
  const bytes = new TextEncoder().encode(`${at}~${key}`);
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** The place a cursor names, or null for anything this side did not write. */
export function decodeListPlace(cursor: string): ListPlace | null {
  if (!base64url.test(cursor)) return null;
  let text: string;
  try {
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  const [, at = "", key = ""] = placeText.exec(text) ?? [];
  const time = Date.parse(at);
  if (Number.isNaN(time) || new Date(time).toISOString() !== at) return null;
  const place = { at, key };
  // One spelling per place: padding or stray bits make another string.
  return encodeListPlace(place) === cursor ? place : null;
}

const pageLimitMessage = `limit is a whole number from 1 to ${limits.ownerPageMax}.`;

/** Which page of a long list: the one after `after`, of `limit` rows. */
export const listPageFields = {
  after: z
    .string()
    .transform((value, context) => {
      const place = decodeListPlace(value);
      if (place) return place;
      context.issues.push({
        code: "custom",
        message: "This is not a cursor from this list.",
        input: value,
      });
      return z.NEVER;
    })
    .optional()
    .describe("`next` of the page before, as it came"),
  limit: canonicalWholeNumber(1, limits.ownerPageMax, pageLimitMessage)
    .default(limits.ownerPageDefault)
    .describe(`Rows in the page: ${limits.ownerPageDefault} unless given`),
};

export const nextPageSchema = z
  .string()
  .nullable()
  .describe("`after` for the next page; null on the last");

// Suppressed addresses

const suppressionSchema = z.object({
  /** The row's key: a keyed digest of the address, which is not kept. */
  id: z.string(),
  /** The address, where the site still holds it (a subscriber's) or it was searched for; else null. */
  email: z.string().nullable(),
  /** Its domain, always known. */
  domain: z.string(),
  reason: z.enum(["hard_bounce", "complaint", "soft_bounces"]),
  /** What reported it: smtp, mailbox, ses or postmark. */
  source: z.string(),
  /** The receiving server's words, when there are some. */
  detail: z.string().nullable(),
  createdAt: timestampSchema,
});
export type Suppression = z.infer<typeof suppressionSchema>;

/**
 * A page of the suppressed addresses, newest first; or, given `email`, that
 * address alone when it is suppressed. A POST, as the subscribers' search:
 * the address, and the cursor that holds one, stay out of URLs and logs.
 */
export const suppressionSearchSchema = z.strictObject({
  email: z.string().max(limits.emailMax).optional().describe("One address, in any letter case"),
  ...listPageFields,
});
/** One suppression to lift: by its address, or by the `id` of its row in the list. */
export const suppressionLiftSchema = z.union([
  z.strictObject({
    email: z.string().min(1).max(limits.emailMax).describe("The address, in any letter case"),
  }),
  z.strictObject({ id: z.string().min(1).max(100).describe("`id` of a row of the list") }),
]);

export const suppressionsResponseSchema = z.object({
  suppressions: z.array(suppressionSchema),
  next: nextPageSchema,
});
