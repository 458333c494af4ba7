/**
 * The cookie that tells the pages' first script the signed-in owner's name,
 * set beside the console's session cookie and for as long, so the
 * discussion's placeholder has the owner's shape from the first paint
 * (server/console/owner-session.ts, app/layouts/page.astro). It proves
 * nothing: only the session cookie does.
 */
export const ownerNameCookie = "ewe_owner_name";

/**
 * The visitor cookie's name (server/api/guards.ts). Over https `__Host-` binds it to
 * this exact origin: no other host (a sibling subdomain) and no page over plain http
 * can set it, so nobody can plant their own identity in a reader's browser
 * (docs/decisions/084-the-visitor-cookie-bound-to-the-site.md).
 */
export const visitorCookieNameOf = (siteUrl: string) =>
  siteUrl.startsWith("https:") ? "__Host-ewe_visitor" : "ewe_visitor";

/**
 * What the browser may know of the server's settings: the server derives it
 * from the environment (server/config.ts) and the build bakes it into the pages
 * and the client bundle (app/lib/site-config.ts).
 */
export type PublicConfig = {
  siteUrl: string;
  contactEmail: string;
  /** The owner's name (content/owner.md, or SITE_OWNER_NAME): bylines, the reserved comment name. */
  ownerName: string;
  /** The owner's LinkedIn profile: where an AI article without a post of its own leads. */
  ownerLinkedInUrl: string | null;
  chatbot: { scriptUrl: string; botId: string } | null;
  /** ENQUIRY_RETENTION_DAYS: what the enquiry form and the privacy page promise. */
  enquiryRetentionDays: number;
  /** ANALYTICS: the pages carry the readers' beacon; raw views are kept `rawDays` (the privacy page says so). */
  analytics: { rawDays: number } | null;
  /** The site's Fediverse account, `@handle@host` (docs/fediverse.md). */
  fediverseAccount: string;
  /** ASSISTANT_RETENTION_DAYS: how long the assistant's questions are kept (the privacy page). */
  assistantRetentionDays: number;
  /** ASSISTANT_LLM_URL's host: where questions go to be written up, when a model writes answers. */
  assistantModelHost: string | null;
  /** BOOKING_RETENTION_DAYS: how long after a call its booking is kept (the booking page, the privacy page). */
  bookingRetentionDays: number;
};
