import { isServiceChoice, otherServiceLabel } from "../../contract/enquiry-choices.ts";
import type { Config } from "../config.ts";
import type { Store } from "../db/store.ts";
import type { WriterKeys } from "../engagement/writer-keys.ts";
import type { FormTokens } from "../lib/form-token.ts";
import { mailboxDigest } from "../lib/mailbox.ts";
import type { Blocklist, BlocklistEntries } from "./blocklist.ts";
import {
  blockedLink,
  type ContentRefusal,
  hasBlockedWords,
  hostOf,
  imitates,
  isKeywordStuffing,
  linksIn,
} from "./content-rules.ts";
import type { Refusal } from "./defences.ts";
import type { Moderation } from "./service.ts";

/**
 * What an enquiry's text, or a booked call's note, must not be (docs/product.md,
 * "Enquiries"): the comment rules' blocklist, look-alike and keyword-stuffing
 * checks, in its own words. Unlike a comment it is read by the owner alone, so
 * it may carry links, addresses and phone numbers: a client gives their
 * contact details and points at a drawing.
 */
const messages = {
  lookAlike:
    "The message links to an address written with look-alike letters or imitating a well-known site, so it was not sent.",
  blockedLink:
    "The message links to a site this blog does not accept (link shorteners and addresses common in spam), so it was not sent.",
  blockedWords:
    "The message contains words this blog blocks because spam uses them; please rephrase it.",
  stuffing: "This reads like a list of keywords; please say in sentences what you need.",
} as const;

export function checkEnquiryContent(
  text: string,
  blocklist: BlocklistEntries,
): ContentRefusal | null {
  for (const link of linksIn(text)) {
    const host = hostOf(link);
    if (imitates(host)) return { code: "blocked_content", message: messages.lookAlike };
    if (blockedLink(link, host, blocklist)) {
      return { code: "blocked_content", message: messages.blockedLink };
    }
  }
  if (hasBlockedWords(text, blocklist)) {
    return { code: "blocked_content", message: messages.blockedWords };
  }
  if (isKeywordStuffing(text)) return { code: "blocked_content", message: messages.stuffing };
  return null;
}

/** What a form to the owner is served with: the enquiries' and the bookings'. */
export type FormServiceDeps = {
  store: Store;
  config: Pick<Config, "siteUrl" | "OWNER_EMAIL" | "contactEmail">;
  cookieSecret: string;
  services: { id: string; title: string }[];
  blocklist: Blocklist;
  keys: WriterKeys;
  formTokens: FormTokens;
  moderation: Pick<Moderation, "isBanned">;
  clock?: () => Date;
};

/** A refusal the form shows, beside `field` when it is about one. */
export type FormRefusal = Refusal & { field?: string; retryAfterSeconds?: number };

/**
 * What the enquiries' and the bookings' services share: the owner's address, the site's
 * host (in mails' ids and calls' UIDs), the digest a sender's mailbox is counted by under
 * a key for `purpose`, the checks a sending meets, and the outbox worker's wake-up.
 * `what` names the form's sendings ("enquiries", "bookings") in a banned sender's answer.
 */
export function ownerForm(what: string, purpose: string, deps: FormServiceDeps) {
  const { config, keys, moderation, formTokens, services, blocklist } = deps;
  const queued = new Set<() => void>();
  return {
    ownerMail: config.OWNER_EMAIL ?? config.contactEmail,
    host: new URL(config.siteUrl).hostname,
    addressHash: mailboxDigest(deps.cookieSecret, purpose),

    /**
     * The sender's connection's key and its network's, and the first defence its sending
     * fails, in order: a ban, the honeypot, the form's signed time (spent here), and a
     * service from the list. "honeypot" when only a program filled the field nobody can
     * see: it is told all went well, and nothing is kept.
     */
    async admit(
      form: { service: string; website?: string | undefined; formToken?: string | undefined },
      { ip, visitorId }: { ip: string; visitorId: string | null },
    ): Promise<{ ipHash: string; networkHash: string; first: FormRefusal | "honeypot" | null }> {
      const ipHash = keys.addressHash(ip);
      const networkHash = keys.networkHash(ip);
      const outcome = (first: FormRefusal | "honeypot" | null) => ({ ipHash, networkHash, first });
      if (await moderation.isBanned({ visitorId, ipHash })) {
        return outcome({
          status: 403,
          code: "banned",
          message: `Sorry, ${what} from this browser or connection are not accepted at the moment. Please write to the contact address instead.`,
        });
      }
      if (form.website) return outcome("honeypot");
      const timing = await formTokens.admit(form.formToken);
      if (timing || isServiceChoice(services, form.service)) return outcome(timing);
      return outcome({
        status: 400,
        code: "validation_failed",
        message: `Choose a service from the list, or "${otherServiceLabel}".`,
        field: "service",
      });
    },

    /** The content rules' refusal of `text`, shown beside `field`; null when it passes. */
    content(text: string, field: string): FormRefusal | null {
      const refusal = checkEnquiryContent(text, blocklist.entries());
      return refusal && { status: 422, ...refusal, field };
    },

    /** Wakes the outbox worker after a change that queued mail. */
    woken() {
      for (const listener of queued) listener();
    },
    /** Runs `listener` after every change that queued mail (the outbox worker's wake-up). */
    onQueued(listener: () => void) {
      queued.add(listener);
    },
  };
}
