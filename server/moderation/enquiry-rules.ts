import type { BlocklistEntries } from "./blocklist.ts";
import {
  blockedLink,
  type ContentRefusal,
  hasBlockedWords,
  hostOf,
  imitates,
  isKeywordStuffing,
  linksIn,
} from "./content-rules.ts";

/**
 * What an enquiry's text must not be (docs/product.md, "Enquiries"): the
 * comment rules' blocklist, look-alike and keyword-stuffing checks, in its own
 * words. Unlike a comment it is read by the owner alone, so it may carry
 * links, addresses and phone numbers: a client gives their contact details
 * and points at a drawing.
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
