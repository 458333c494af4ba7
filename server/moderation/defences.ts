import type { ErrorCode } from "../../contract/api.ts";
import { markdownRefusal, shownText } from "../comments/markdown.ts";
import type { CommentsRepository } from "../comments/repository.ts";
import type { Config } from "../config.ts";
import type { WriterKeys } from "../engagement/writer-keys.ts";
import { createFormTokens, type FormTokens, type SpentFormTokens } from "../lib/form-token.ts";
import type { Blocklist } from "./blocklist.ts";
import { checkContent, checkName } from "./content-rules.ts";
import { claimsBadge, claimsName } from "./fold.ts";
import type { Moderation } from "./service.ts";
import type { SpamFilter } from "./spam/filter.ts";
import type { Screening } from "./spam/store.ts";

/**
 * The spam defences every new comment passes, always on
 * (docs/decisions/010-moderation-and-spam.md; docs/moderation.md, "Spam defences"). Each
 * refusal is an answer the comment form shows; the honeypot alone is silent:
 * what it catches is stored for its sender's eyes only and looks posted.
 */

/** The comment form's signed times: the newsletter's kind, under a key of their own. */
export function createCommentFormTokens(
  cookieSecret: string,
  minimumMs: number,
  spent?: SpentFormTokens,
): FormTokens {
  return createFormTokens(cookieSecret, {
    purpose: "comment form timing",
    minimumMs,
    ...(spent ? { spent } : {}),
  });
}

export type Refusal = { status: number; code: ErrorCode; message: string };

/** What becomes of a new comment. */
type Verdict =
  | { outcome: "refused"; refusal: Refusal }
  | {
      outcome: "accepted";
      status: "published" | "pending" | "spam";
      ipHash: string;
      /** What the spam filter made of it, and why: kept for the owner's lists and stats. */
      screening: Screening;
    };

/** Below this length the same text from one address may be two people. */
const duplicateFromAddressMin = 40;

const banned: Refusal = {
  status: 403,
  code: "banned",
  message:
    "Sorry, comments and reactions from this browser or connection are not accepted at the moment.",
};

export function createCommentDefences({
  config,
  blocklist,
  keys,
  formTokens,
  comments,
  moderation,
  spam,
}: {
  config: Pick<Config, "COMMENT_MAX_LINKS" | "COMMENT_DUPLICATE_MINUTES" | "owner">;
  blocklist: Blocklist;
  keys: WriterKeys;
  formTokens: FormTokens;
  comments: CommentsRepository;
  moderation: Moderation;
  spam: SpamFilter;
}) {
  const ownerName = config.owner.name;

  /** Why a name is the owner's alone, or null. */
  const ownersRefusal = (name: string) =>
    ownerName && claimsName(name, ownerName)
      ? "is the site owner's name"
      : claimsBadge(name)
        ? "reads as the label of the site owner's own comments"
        : null;

  /**
   * The owner's name, in any letter case or look-alike spelling, with words
   * around it or cut to initials, is the owner's alone; so is a word that
   * reads as the "Author" label beside it (`claimsBadge`). A name also meets the
   * text rules (`checkName`), unless it is a Fediverse `handle`, which its
   * server gave and which holds its host.
   */
  function nameRefusal(userName: string, { handle = false } = {}): Refusal | null {
    const why = ownersRefusal(userName);
    if (why) {
      return {
        status: 422,
        code: "reserved_name",
        message: `"${userName}" ${why}, so visitors cannot comment under it. Please choose another name.`,
      };
    }
    const broken = handle ? null : checkName(userName, blocklist.entries());
    return broken ? { status: 422, code: "blocked_content", message: broken } : null;
  }

  function contentRefusal(content: string): Refusal | null {
    const markdown = markdownRefusal(content);
    if (markdown) return markdown;
    const refusal = checkContent(shownText(content), {
      maxLinks: config.COMMENT_MAX_LINKS,
      blocklist: blocklist.entries(),
    });
    return refusal ? { status: 422, ...refusal } : null;
  }

  return {
    /** The comment form's signed times, fetched when the form appears. */
    formTokens,

    /** What the limits on confirmation mails count a writer asking for reply mails by. */
    senderOf: keys.senderOf,

    /** Why a name is not a commenter's to take (the owner's, or the badge's), or null. */
    nameRefusal,

    /** A writer the owner banned; checked before anything else, and for reactions too. */
    async bannedRefusal(visitorId: string | null, ip: string): Promise<Refusal | null> {
      return (await moderation.isBanned({ visitorId, ipHash: keys.addressHash(ip) }))
        ? banned
        : null;
    },

    /** Every defence, in order, for a new comment. */
    async judgeNew(input: {
      content: string;
      userName: string;
      visitorId: string | null;
      ip: string;
      formToken: string | undefined;
      website: string | undefined;
      /**
       * A reply from another server (server/fediverse/), whose signed
       * activity stands in for the form: it has no form to time.
       */
      signed?: boolean;
      /**
       * `userName` is the writer's Fediverse handle, which their server gave
       * them: one that reads as the owner's name or badge ("@admin@host") is
       * held for the owner, not refused, as they can go by nothing else.
       */
      handle?: boolean;
    }): Promise<Verdict> {
      const ipHash = keys.addressHash(input.ip);
      const refuse = (refusal: Refusal): Verdict => ({ outcome: "refused", refusal });
      if (await moderation.isBanned({ visitorId: input.visitorId, ipHash })) return refuse(banned);
      // Only a program fills a field nobody can see: let it believe it posted.
      if (input.website) {
        return {
          outcome: "accepted",
          status: "spam",
          ipHash,
          screening: { outcome: "spam", reason: "honeypot", score: null },
        };
      }
      const timing = input.signed === true ? null : await formTokens.admit(input.formToken);
      if (timing) return refuse(timing);
      const named = nameRefusal(input.userName, { handle: input.handle === true });
      const refusal = (input.handle ? null : named) ?? contentRefusal(input.content);
      if (refusal) return refuse(refusal);
      if (config.COMMENT_DUPLICATE_MINUTES > 0) {
        // The same comment to a reader is the same text as shown: "hello" and "h&#101;llo" alike.
        const shown = shownText(input.content);
        const sent = await comments.textsSentSince({
          visitorId: input.visitorId ?? "",
          // From one address, only texts long enough not to be said twice by
          // chance ("Thanks!" from two readers behind one office router).
          ipHash: shown.length >= duplicateFromAddressMin ? ipHash : null,
          since: new Date(Date.now() - config.COMMENT_DUPLICATE_MINUTES * 60_000),
        });
        const repeated = sent.some((text) => shownText(text) === shown);
        if (repeated) {
          return refuse({
            status: 409,
            code: "duplicate_comment",
            message:
              "You have just posted this same comment, on this post or another; it is not posted twice.",
          });
        }
      }
      // What passed the rules meets the spam filter, then the moderation setting.
      const screening = await spam.screen({ content: input.content, visitorId: input.visitorId });
      if (screening.outcome === "published") {
        const status = named ? "pending" : await moderation.statusForNewComment(input.visitorId);
        if (status === "pending") {
          return {
            outcome: "accepted",
            status,
            ipHash,
            screening: { ...screening, outcome: status, reason: "moderation" },
          };
        }
      }
      return { outcome: "accepted", status: screening.outcome, ipHash, screening };
    },

    /** Keeps what the filter made of a new comment, for the owner's lists and `admin spam stats`. */
    recordScreening(commentId: number, screening: Screening): Promise<void> {
      return spam.record(commentId, screening);
    },

    /**
     * Whether words from another site (a webmention's author and text, or its addresses)
     * break a rule a comment's must keep: blocked words or sites, look-alike addresses, a
     * compliment around a link, contacts, keyword stuffing. However many links. And
     * whether its author's `name` is one no commenter may take: the owner's, the badge's.
     */
    breaksRules(text: string, name: string | null = null): boolean {
      if (name !== null && ownersRefusal(name) !== null) return true;
      const list = blocklist.entries();
      return checkContent(text, { maxLinks: Number.POSITIVE_INFINITY, blocklist: list }) !== null;
    },

    /** The rules an edit must also keep: the same text rules as a new comment. */
    judgeEdit(content: string): Refusal | null {
      return contentRefusal(content);
    },

    /**
     * What the spam filter, then the moderation setting, make of an edit's
     * new text, as of a new comment's: clean words edited into a link or
     * junk are held or stored as spam (docs/decisions/025-spam-that-learns.md).
     * MODERATION=first holds no edit: a writer with a published comment is approved.
     */
    async screenEdit(input: { content: string; visitorId: string }): Promise<Screening> {
      const screening = await spam.screen(input);
      if (screening.outcome === "published" && moderation.mode === "all") {
        return { ...screening, outcome: "pending", reason: "moderation" };
      }
      return screening;
    },
  };
}

export type CommentDefences = ReturnType<typeof createCommentDefences>;
