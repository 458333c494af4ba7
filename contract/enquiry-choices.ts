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

/** Whether a form may send `id` as its service: one on offer, or the other. */
export const isServiceChoice = (services: readonly { id: string }[], id: string) =>
  id === otherService || services.some((service) => service.id === id);

/** A service's title by its id; an id no longer on offer stands for itself. */
export function serviceTitles(services: readonly { id: string; title: string }[]) {
  const titles = new Map(services.map((service) => [service.id, service.title]));
  return (id: string) => (id === otherService ? otherServiceLabel : (titles.get(id) ?? id));
}

/** How soon an enquiry is answered, as the form's thanks and the acknowledgement promise it. */
export const answerWithin = "two working days";

/** How often one address is sent an acknowledgement (server/enquiries/outbox-rows.ts). */
export const acknowledgementsAtMost = "one in eight hours";
