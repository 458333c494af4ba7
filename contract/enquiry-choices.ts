/*
 * The enquiry form's choices beyond the services themselves, without zod: the
 * form's island imports this, and zod in a page probes for `new Function`,
 * which the site's Content-Security-Policy (no 'unsafe-eval') reports as a
 * violation on every visit to /services.
 */

/** The select's value for a question that fits none of the services. */
export const otherService = "other";
export const otherServiceLabel = "Something else";
