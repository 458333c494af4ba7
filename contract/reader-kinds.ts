/*
 * What readership attributes to a visit, without zod: the console's Readers
 * screen imports this, and zod in a page probes for `new Function`, which the
 * site's Content-Security-Policy (no 'unsafe-eval') reports as a violation.
 */

/** What a reader may go on to do, attributed to the visit's entry page and source. */
export const conversionKinds = [
  "subscription",
  "enquiry",
  "booking",
  "comment",
  "question",
] as const;
export type ConversionKind = (typeof conversionKinds)[number];
