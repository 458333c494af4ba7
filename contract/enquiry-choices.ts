/*
 * The enquiry form's choices beyond the services themselves, and the states
 * of an enquiry, without zod: the form's island and the console's Enquiries
 * screen import this, and zod in a page probes for `new Function`, which the
 * site's Content-Security-Policy (no 'unsafe-eval') reports as a violation on
 * every visit.
 */

/** The select's value for a question that fits none of the services. */
export const otherService = "other";
export const otherServiceLabel = "Something else";

/** Where an enquiry stands with the owner. */
export const enquiryStatuses = ["new", "answered", "closed"] as const;
