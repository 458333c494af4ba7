import { isServiceChoice, otherServiceLabel } from "../../contract/enquiry-choices.ts";
import type { Store } from "../db/store.ts";
import type { WriterKeys } from "../engagement/writer-keys.ts";
import type { FormTokens } from "../lib/form-token.ts";
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
 * The defences a form to the owner meets first, in order: a ban, the
 * honeypot, the form's signed time (spent here), and a service from the list.
 * "honeypot" when only a program filled the field nobody can see: it is told
 * all went well, and nothing is kept. `what` names the form's sendings
 * ("enquiries", "bookings") in a banned sender's answer.
 */
export function formDefences(
  what: string,
  {
    moderation,
    formTokens,
    services,
  }: {
    moderation: Pick<Moderation, "isBanned">;
    formTokens: FormTokens;
    services: readonly { id: string }[];
  },
) {
  return async (
    form: { service: string; website?: string | undefined; formToken?: string | undefined },
    sender: { visitorId: string | null; ipHash: string },
  ): Promise<FormRefusal | "honeypot" | null> => {
    if (await moderation.isBanned(sender)) {
      return {
        status: 403,
        code: "banned",
        message: `Sorry, ${what} from this browser or connection are not accepted at the moment. Please write to the contact address instead.`,
      };
    }
    if (form.website) return "honeypot";
    const timing = await formTokens.admit(form.formToken);
    if (timing) return timing;
    if (isServiceChoice(services, form.service)) return null;
    return {
      status: 400,
      code: "validation_failed",
      message: `Choose a service from the list, or "${otherServiceLabel}".`,
      field: "service",
    };
  };
}
