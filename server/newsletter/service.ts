import type { Config } from "../config.ts";
import { createSpentFormTokens } from "../db/spent-form-tokens.ts";
import type { Store } from "../db/store.ts";
import { createFormTickets, createFormTokens } from "../lib/form-token.ts";
import { clickKeyOf } from "./clicks.ts";
import { newsletterComposers } from "./composers.ts";
import { createEditionsRepository } from "./editions-repository.ts";

/**
 * The newsletter of one server instance: the mails it hands the outbox, and
 * what the subscription routes need (the form's secrets, the confirmation
 * limit, and a wake-up for the outbox worker).
 */
export function createNewsletter(
  store: Store,
  config: Pick<
    Config,
    "siteUrl" | "SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR" | "OWNER_EMAIL" | "contactEmail"
  >,
  cookieSecret: string,
) {
  const editions = createEditionsRepository(store);
  return {
    editions,
    composers: newsletterComposers({
      editions,
      siteUrl: config.siteUrl,
      replyTo: config.OWNER_EMAIL ?? config.contactEmail,
      clickKey: clickKeyOf(cookieSecret),
    }),
    routeDeps(mailQueued: () => void) {
      return {
        formTokens: createFormTokens(cookieSecret, { spent: createSpentFormTokens(store) }),
        formTickets: createFormTickets(cookieSecret),
        confirmationsPerIpPerHour: config.SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR,
        mailQueued,
      };
    },
  };
}
