import { reconfirmation } from "../engagement/subscribers-repository.ts";
import type { ComposeMail } from "../outbox/outbox-worker.ts";
import { withTrackedLinks } from "./clicks.ts";
import type { EditionsRepository } from "./editions-repository.ts";
import { confirmationMail, editionMail, reconfirmationMail } from "./messages.ts";

/** The newsletter's mails, written from their outbox rows: confirmations and editions. */
export function newsletterComposers({
  editions,
  siteUrl,
  replyTo,
  clickKey,
}: {
  editions: EditionsRepository;
  siteUrl: string;
  /** Where readers' answers to an edition go: the owner. */
  replyTo: string;
  /** Signs the links' redirects (server/newsletter/clicks.ts). */
  clickKey: string;
}): { confirmation: ComposeMail; edition: ComposeMail } {
  // An edition is read once per worker, not once per recipient.
  const kept = new Map<number, { subject: string; html: string; text: string }>();

  return {
    async confirmation(row) {
      if (!row.email) return { outcome: "failed", reason: "no recipient" };
      if (!row.token) return { outcome: "failed", reason: "no confirmation token" };
      // `newsletter reconfirm`'s request to an imported address is worded as such; one the
      // reader asked for through the form is the ordinary one, imported or not.
      const mail = row.payload === reconfirmation ? reconfirmationMail : confirmationMail;
      return mail({ to: row.email, token: row.token }, siteUrl);
    },

    async edition(row, db) {
      if (!row.email) return { outcome: "failed", reason: "no recipient" };
      // Only to an address still subscribed, under the token the row was queued with.
      const recipient = row.token
        ? await db
            .selectFrom("subscribers")
            .select("id")
            .where("unsubscribe_token", "=", row.token)
            .where("status", "=", "confirmed")
            .executeTakeFirst()
        : undefined;
      if (!recipient) return { outcome: "cancelled", reason: "unsubscribed before sending" };
      const editionId = row.edition_id as number;
      let edition = kept.get(editionId);
      if (!edition) {
        const stored = await editions.edition(editionId);
        if (!stored) return { outcome: "failed", reason: "the edition is gone" };
        edition = {
          subject: stored.subject,
          ...withTrackedLinks(stored, await editions.links(editionId), {
            siteUrl,
            key: clickKey,
            editionId,
          }),
        };
        kept.set(editionId, edition);
      }
      return editionMail(edition, { to: row.email, token: row.token as string, replyTo }, siteUrl);
    },
  };
}
