import { plural } from "./plural.ts";

/** Limits shared by the browser (input attributes, disabled buttons) and the server (validation). */
export const limits = {
  /** Audit trail entries the console shows, and the command line prints unless given `--limit`. */
  auditShown: 200,
  /** Fediverse messages given up that the Health screen lists, the latest; it counts the rest. */
  givenUpShown: 50,
  /** Rows in a page of the console's long lists (suppressed addresses, followers) unless asked for another size. */
  ownerPageDefault: 50,
  /** The most rows such a page may hold: the largest `limit` those reads take. */
  ownerPageMax: 200,
  /** The longest ban with an end, in days (ten years): from the console and the command line alike. */
  banDaysMax: 3650,
  /** Display names, in UTF-16 code units like the HTML `maxlength` attribute. Not trimmed (docs/product.md, "Limits"). */
  userNameMax: 40,
  /** Comment text after trimming, in UTF-16 code units. */
  commentMax: 2000,
  /** How deep block quotes and lists may sit inside each other in a comment's Markdown. */
  commentNestingMax: 3,
  /** RFC 5321's limit on a forward path. */
  emailMax: 254,
  /** RFC 5321's limit on the part before the "@"; mail servers refuse longer ones for good. */
  emailLocalPartMax: 64,
  /** The newsletter form cannot come back sooner than this after it was first touched. */
  newsletterFormMinimumMs: 2000,
  /** Comments in one page of a post's list when the client asks for no other size (docs/decisions/015-comment-pages.md). */
  commentsPageDefault: 50,
  /** The most comments one page may hold: the largest `limit` the API takes. */
  commentsPageMax: 100,
  /** An enquiry's sender's name, in UTF-16 code units. */
  enquiryNameMax: 100,
  /** An enquiry's message after trimming: long enough to say what is needed, short enough to read. */
  enquiryMessageMin: 20,
  enquiryMessageMax: 4000,
  /** An enquiry's optional organisation and timeline. */
  enquiryDetailMax: 120,
  /** The owner's answer to an enquiry. */
  enquiryAnswerMax: 10_000,
  /** A booking's note ("What would you like to discuss?") and the owner's message when cancelling one. */
  bookingNoteMax: 1000,
  /** The reason the owner gives for moving a call: one line of the reader's mail. */
  moveReasonMax: 200,
  /** The words of a search, in UTF-16 code units like `maxlength` (docs/product.md, "Search"). */
  searchTermsMax: 200,
  /** A question to the assistant after trimming (docs/product.md, "Chat with Me"). */
  questionMin: 2,
  questionMax: 500,
  /** Largest request body the API reads. */
  bodyBytesMax: 16 * 1024,
  /** A one-time sign-in link to the console works this long, once (docs/console.md, "Signing in"). */
  signInLinkMinutes: 10,
  /** What gives or keeps access needs a sign-in this recent (docs/decisions/062-fresh-sign-in.md). */
  freshSignInMinutes: 10,
} as const;

/** How long a sign-in link works, as every page, mail and command says it: "10 minutes". */
export const signInLinkLife = plural(limits.signInLinkMinutes, "minute");
/** How recent a sign-in must be to give or keep access, in the same words. */
export const freshSignInLife = plural(limits.freshSignInMinutes, "minute");

export const reactionTypes = ["like", "love", "dislike", "idea"] as const;
export type ReactionType = (typeof reactionTypes)[number];

/**
 * An item nobody has reacted to: one zero per reaction type. A new object each
 * time, as callers fill it in. (Here rather than beside the schemas so the
 * browser can use it without loading zod.)
 */
export function noReactions(): Record<ReactionType, number> {
  return Object.fromEntries(reactionTypes.map((type) => [type, 0])) as Record<ReactionType, number>;
}

export const itemKinds = ["mythology", "science"] as const;
/** `mythology` items are stories (story_id in the database), `science` items are posts (post_id). */
export type ItemKind = (typeof itemKinds)[number];
