import type { Config } from "../config.ts";
import { createSpentFormTokens } from "../db/spent-form-tokens.ts";
import type { Store } from "../db/store.ts";
import { alreadySubscribed, reconfirmation } from "../engagement/subscribers-repository.ts";
import { createWriterKeys } from "../engagement/writer-keys.ts";
import { createFormTickets, createFormTokens } from "../lib/form-token.ts";
import { standingLinks } from "../lib/tokens.ts";
import type { ComposeMail } from "../outbox/outbox-worker.ts";
import { clickKeyOf, withTrackedLinks } from "./clicks.ts";
import { createEditionsRepository } from "./editions-repository.ts";
import {
  alreadySubscribedMail,
  confirmationMail,
  editionMail,
  reconfirmationMail,
} from "./messages.ts";

/**
 * The newsletter of one server instance: the mails it hands the outbox,
 * written from their rows (confirmations and editions), and what the
 * subscription routes need (the form's secrets, the confirmation limit, and a
 * wake-up for the outbox worker).
 */
export function createNewsletter(
  store: Store,
  config: Pick<
    Config,
    "siteUrl" | "SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR" | "OWNER_EMAIL" | "contactEmail"
  >,
  cookieSecret: string,
  /** Gives addresses an older instance wrote without their digest theirs (server/outbox/suppressions.ts). */
  fillDigests: () => Promise<unknown>,
) {
  const editions = createEditionsRepository(store, fillDigests);
  const { siteUrl } = config;
  /** Where readers' answers to an edition go: the owner. */
  const replyTo = config.OWNER_EMAIL ?? config.contactEmail;
  const clickKey = clickKeyOf(cookieSecret);
  // A copy's unsubscribe link, made from the seed its row carries.
  const links = standingLinks(cookieSecret);
  // An edition is read once per worker, not once per recipient.
  const kept = new Map<number, { subject: string; html: string; text: string }>();
  const composers: { confirmation: ComposeMail; edition: ComposeMail } = {
    async confirmation(row) {
      if (!row.email) return { outcome: "failed", reason: "no recipient" };
      if (row.payload === alreadySubscribed) return alreadySubscribedMail(row.email, siteUrl);
      if (!row.token) return { outcome: "failed", reason: "no confirmation token" };
      // `newsletter reconfirm`'s request to an imported address is worded as such; one the
      // reader asked for through the form is the ordinary one, imported or not.
      const mail = row.payload === reconfirmation ? reconfirmationMail : confirmationMail;
      return mail({ to: row.email, token: row.token }, siteUrl);
    },

    async edition(row, db) {
      if (!row.email) return { outcome: "failed", reason: "no recipient" };
      // Only to an address still subscribed, under the seed the row was queued with.
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
      const token = links.tokenOf(row.token as string);
      return editionMail(edition, { to: row.email, token, replyTo }, siteUrl);
    },
  };
  return {
    editions,
    composers,
    routeDeps(mailQueued: () => void) {
      return {
        formTokens: createFormTokens(cookieSecret, { spent: createSpentFormTokens(store) }),
        formTickets: createFormTickets(cookieSecret),
        confirmationsPerIpPerHour: config.SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR,
        senderOf: createWriterKeys(cookieSecret).senderOf,
        mailQueued,
      };
    },
  };
}
