/**
 * What the browser may know of the server's settings: the server derives it
 * from the environment (server/config.ts) and the build bakes it into the pages
 * and the client bundle (app/lib/site-config.ts).
 */
export type PublicConfig = {
  siteUrl: string;
  contactEmail: string;
  ownerName: string | null;
  /** The owner's LinkedIn profile: where "Read More on LinkedIn" leads when set. */
  ownerLinkedInUrl: string | null;
  chatbot: { scriptUrl: string; botId: string } | null;
  /** ENQUIRY_RETENTION_DAYS: what the enquiry form and the privacy page promise. */
  enquiryRetentionDays: number;
};
