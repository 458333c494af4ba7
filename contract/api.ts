import { z } from "zod";
import { itemKinds, limits, type ReactionType, reactionTypes } from "./limits.ts";
import {
  blankLinesInARowMax,
  hasFewBlankLinesInARow,
  hasFewMarksPerCharacter,
  hasNoControlOrDirectionCharacters,
  hasNoHiddenCharacters,
  hasVisibleCharacter,
  marksPerCharacterMax,
  withLineFeeds,
} from "./text.ts";
import { decodeCommentCursor } from "./threads.ts";

/*
 * Request and response shapes of the engagement API (`/api`). Request objects
 * are strict: an unknown field is a 400, so a typo in a client never passes
 * silently. Response schemas stay plain (no transforms) because the server
 * serializes through them.
 */

/**
 * A whole number in a URL, written one way only: digits, no sign, no leading
 * zero. `Number()` would also read `0x10`, `1e1`, `010` or ` 16`, so one row
 * would answer to many spellings and a cache or a log would see them apart.
 * (The client's typed calls may pass a number, which the URL writes canonically.)
 */
export function canonicalWholeNumber(min: number, max: number, message: string) {
  return z
    .union(
      [
        z.number(),
        z
          .string()
          .regex(/^(0|[1-9][0-9]{0,15})$/, message)
          .transform(Number),
      ],
      {
        error: message,
      },
    )
    .pipe(z.number().int().min(min, message).max(max, message));
}

/** The id of a stored row: the column is a 32-bit integer on PostgreSQL. */
export const rowIdMax = 2_147_483_647;
export const rowIdParamSchema = canonicalWholeNumber(
  1,
  rowIdMax,
  `Ids are whole numbers from 1 to ${rowIdMax}, written with digits only.`,
);

/** A route's `:id`: the row it names. */
export const rowIdParamsSchema = z.strictObject({ id: rowIdParamSchema });

export const reactionTypeSchema = z.enum(reactionTypes);
export const itemKindSchema = z.enum(itemKinds);

const fewMarksMessage = (what: string) =>
  `${what} can have at most ${marksPerCharacterMax} accents or other marks on one character.`;

export const userNameSchema = z
  .string()
  .min(1, "Enter a name.")
  .max(limits.userNameMax, `Names are at most ${limits.userNameMax} characters.`)
  .refine(
    (value) => hasNoHiddenCharacters(value) && hasVisibleCharacter(value),
    "Names cannot be blank or contain control or invisible characters.",
  )
  .refine(hasFewMarksPerCharacter, fewMarksMessage("Names"));

/** Text that may span lines, trimmed, each line break stored as "\n" (`withLineFeeds`). */
export const multiLineSchema = () => z.string().overwrite(withLineFeeds).trim();

export const commentContentSchema = multiLineSchema()
  .min(1, "Write a comment.")
  .max(limits.commentMax, `Comments are at most ${limits.commentMax} characters.`)
  .refine(
    hasNoControlOrDirectionCharacters,
    "Comments cannot contain control or text-direction characters.",
  )
  .refine(hasVisibleCharacter, "Write a comment with at least one visible character.")
  .refine(hasFewMarksPerCharacter, fewMarksMessage("Comments"))
  .refine(
    hasFewBlankLinesInARow,
    `Comments can have at most ${blankLinesInARowMax} blank lines in a row.`,
  );

export const emailSchema = z
  .string()
  .trim()
  .max(limits.emailMax, `Email addresses are at most ${limits.emailMax} characters.`)
  .pipe(z.email("Enter a valid email address."))
  .refine(
    (email) => email.lastIndexOf("@") <= limits.emailLocalPartMax,
    `The part before the "@" is at most ${limits.emailLocalPartMax} characters.`,
  );

/**
 * Where a reader wants replies mailed (docs/product.md, "Reply mails"). An
 * internationalised domain (`xn--`) can be written to look like another one,
 * so such addresses are refused here.
 */
const replyEmailSchema = emailSchema.refine(
  (email) => !/(^|[@.])xn--/i.test(email),
  "This address uses look-alike characters; enter it in plain Latin letters.",
);

export const timestampSchema = z.iso.datetime().describe("ISO-8601 UTC timestamp");

/**
 * A form's signed time, for every form readers send (the newsletter's, the
 * comment form, the enquiry form): the form cannot come back sooner than
 * `minimumMs` after the token was issued.
 */
export const formTokenResponseSchema = z.object({
  formToken: z.string(),
  minimumMs: z.number().int().nonnegative(),
});
export type FormTokenResponse = z.infer<typeof formTokenResponseSchema>;

// Reactions

/** One count per reaction type: the shape follows `reactionTypes`. */
export const reactionCountsSchema = z.object(
  Object.fromEntries(reactionTypes.map((type) => [type, z.number().int().nonnegative()])) as {
    [type in ReactionType]: z.ZodNumber;
  },
);
export type ReactionCounts = z.infer<typeof reactionCountsSchema>;

export const reactionsResponseSchema = z.object({
  counts: reactionCountsSchema,
  /** The types the calling visitor holds on this item. */
  mine: z.array(reactionTypeSchema),
});
export type ReactionsResponse = z.infer<typeof reactionsResponseSchema>;

export const addReactionRequestSchema = z.strictObject({
  type: reactionTypeSchema,
  userName: userNameSchema,
});
export type AddReactionRequest = z.input<typeof addReactionRequestSchema>;

// Comments (science posts only)

/**
 * A Fediverse comment's writer: their handle (`@asha@mastodon.social`), the
 * post on their server the comment was (an http(s) address, when it has
 * one), and their picture as this site serves it (`/fediverse/avatars/12`):
 * a copy kept here, so a reader's browser never asks their server for it.
 */
/**
 * The longest handle the site makes of a Fediverse account (`@name@host`):
 * 64 characters of name (an emoji is two UTF-16 units), two `@`s and a
 * host's 253. Answers are checked against their schema as they go out, so a
 * lower bound here would turn one writer's long host into a 500 for every
 * reader of the post.
 */
export const handleMax = 2 + 128 + 253;

const remoteWriterSchema = z.object({
  handle: z.string().max(handleMax),
  url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional(),
  avatar: z
    .string()
    .regex(/^\/fediverse\/avatars\/[1-9]\d{0,9}$/)
    .optional(),
});
export type RemoteWriter = z.infer<typeof remoteWriterSchema>;

export const commentSchema = z.object({
  id: z.number().int().positive(),
  postId: z.string(),
  /** The text as written: Markdown source, which its writer edits. */
  content: z.string(),
  /**
   * The text as HTML, rendered by the server from its Markdown when it was
   * written (docs/product.md, "Comments"): the only markup a comment has, so
   * the page shows it as it is and needs no parser.
   */
  html: z.string(),
  userName: z.string(),
  /**
   * The seed of the writer's avatar (16 hex digits): an HMAC of their visitor
   * credential, so two writers with one name look different. Drawn by
   * `Avatar` in app/features/comments/comment-view.ts.
   */
  avatar: z.string().regex(/^[0-9a-f]{16}$/),
  createdAt: timestampSchema,
  /** Equal to `createdAt` until the comment is edited. */
  updatedAt: timestampSchema,
  /**
   * Written by the site's owner from a signed-in console session: shown with
   * the "Author" badge. Only the server sets it; no request field, name or
   * visitor cookie can (docs/decisions/016-owner-voice.md).
   */
  byOwner: z.boolean(),
  /**
   * The comment this one answers, which always starts a thread (replies are
   * one level deep); null when it starts one itself.
   */
  parentId: z.number().int().positive().nullable(),
  /**
   * A deleted comment that still has replies: it keeps its place so the
   * thread reads, and nothing else (empty name and text).
   */
  deleted: z.boolean(),
  /**
   * Only on a comment that came from the Fediverse (docs/fediverse.md): its
   * writer as their server shows them, beside `userName` (their display
   * name). Absent on every other comment.
   */
  remote: remoteWriterSchema.optional(),
  /**
   * Only on a place (`deleted`): the comment that starts the thread was edited
   * into something held for the owner (or then kept as spam), and waits; its
   * published replies still show under its place, which reads "Comment
   * awaiting approval".
   */
  held: z.literal(true).optional(),
  /** True on the calling visitor's own comments. */
  mine: z.boolean(),
  /**
   * True on the caller's own comments that wait for the owner's approval
   * (MODERATION=first or all): nobody else sees them until then.
   */
  awaitingApproval: z.boolean(),
});
export type Comment = z.infer<typeof commentSchema>;

/**
 * Present only in the answer to the signed-in owner (docs/decisions/016-owner-voice.md):
 * the page then offers Edit and Delete on every comment, and comments under
 * `name` (SITE_OWNER_NAME; null when unset: the name the owner typed).
 */
const ownerOverlaySchema = z.object({ name: z.string().nullable() });
export type OwnerOverlay = z.infer<typeof ownerOverlaySchema>;

/**
 * The calling visitor's own, in the answer without a cursor to a reader with a
 * visitor cookie: the comments above are everyone's (`mine` false), shared
 * bytes the server never serializes again, and this says which are theirs
 * (`ids`) and adds their comments that wait for approval, which only they
 * see (`held`, placed as a new comment is). Absent when they own nothing here
 * (docs/decisions/035-returning-readers-read-the-shared-bytes.md).
 */
const ownCommentsSchema = z.object({
  ids: z.array(z.number().int().positive()),
  held: z.array(commentSchema),
});
export type OwnComments = z.infer<typeof ownCommentsSchema>;

export {
  type CommentPosition,
  decodeCommentCursor,
  encodeCommentCursor,
} from "./threads.ts";

const commentCursorSchema = z
  .string()
  .refine(
    (value) => decodeCommentCursor(value) !== null,
    "This is not a cursor from a page of comments.",
  )
  .describe("`next` of the previous page, as it came");

const pageLimitMessage = `limit is a whole number from 1 to ${limits.commentsPageMax}.`;

/**
 * `GET /api/items/science/:id/comments?limit=&after=&before=`. Without a
 * cursor: the discussion as it opens, its beginning and its latest threads
 * with the middle folded (docs/decisions/032-long-discussions-open-at-both-ends.md).
 * With `after` and/or `before`: the first `limit` threads after the one and
 * before the other, oldest first.
 */
export const commentsQuerySchema = z.strictObject({
  limit: canonicalWholeNumber(1, limits.commentsPageMax, pageLimitMessage)
    .default(limits.commentsPageDefault)
    .describe(`Threads in the answer: ${limits.commentsPageDefault} unless given`),
  after: commentCursorSchema.optional(),
  before: commentCursorSchema.optional().describe("`before` of the previous answer, as it came"),
});
export type CommentsQuery = z.input<typeof commentsQuerySchema>;

/**
 * Threads of a post's comments, each with its replies, in the list's order.
 * `total` counts every comment the caller may see on the post (theirs
 * awaiting approval included), not only these; what is not here is left out
 * between `next` and `before`.
 */
export const commentsResponseSchema = z.object({
  comments: z.array(commentSchema),
  /**
   * Threads are left out after this one's place: pass it as `after` (and
   * `before` as `before`) to read them; null when none are. In the answer
   * without a cursor: where the fold starts, below the beginning.
   */
  next: z.string().nullable(),
  /**
   * Where what is left out ends: the first of the latest threads, which this
   * answer holds; null when it runs to the end of the list.
   */
  before: z.string().nullable(),
  total: z.number().int().nonnegative(),
  owner: ownerOverlaySchema.optional(),
  own: ownCommentsSchema.optional(),
});
export type CommentsResponse = z.infer<typeof commentsResponseSchema>;

export const commentResponseSchema = z.object({ comment: commentSchema });
export type CommentResponse = z.infer<typeof commentResponseSchema>;

export const writeCommentRequestSchema = z.strictObject({
  content: commentContentSchema,
  userName: userNameSchema,
});
export type WriteCommentRequest = z.input<typeof writeCommentRequestSchema>;

/**
 * A new comment also carries the form's signed time (`GET
 * /api/comments/form-token`) and its hidden honeypot field `website`, which a
 * person never fills (docs/product.md, "Spam and moderation").
 */
export const addCommentRequestSchema = writeCommentRequestSchema.extend({
  /**
   * Makes it a reply to this comment, or to the thread this comment is in
   * when it is itself a reply. It must be published on the same post.
   */
  parentId: z.number().int().min(1).max(rowIdMax).optional(),
  /** Mail replies in this thread to this address, once it is confirmed (docs/product.md, "Reply mails"). */
  notifyEmail: replyEmailSchema.optional(),
  formToken: z.string().max(200).optional(),
  website: z.string().max(200).optional(),
});
export type AddCommentRequest = z.input<typeof addCommentRequestSchema>;

// Errors

export const errorCodes = [
  "validation_failed",
  "invalid_json",
  "not_found",
  "forbidden",
  "sign_in_again",
  "unauthorized",
  "conflict",
  "cross_origin",
  "unknown_token",
  "token_expired",
  "token_used",
  "form_token_invalid",
  "too_fast",
  "honeypot_filled",
  "too_many_links",
  "blocked_content",
  "duplicate_comment",
  "reserved_name",
  "banned",
  "payload_too_large",
  "request_timeout",
  "unsupported_media_type",
  "rate_limited",
  "slot_taken",
  "not_offered",
  "too_many_pending",
  "not_booked",
  "service_unavailable",
  "internal_error",
] as const;
export type ErrorCode = (typeof errorCodes)[number];

export const errorResponseSchema = z.object({
  error: z.object({
    code: z.enum(errorCodes),
    message: z.string(),
    /** Present on `validation_failed`: which fields were refused and why. */
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});
export type ErrorResponse = z.infer<typeof errorResponseSchema>;
