import { z } from "zod";
import { itemKindSchema, reactionTypeSchema, timestampSchema } from "./api.ts";

/*
 * A visitor's own data (docs/product.md, "Your data"): everything the
 * browser's visitor cookie made, to download as JSON or to delete at once.
 */

const ownCommentSchema = z.object({
  id: z.number().int().positive(),
  postId: z.string(),
  /** Where the comment is shown. */
  url: z.string(),
  content: z.string(),
  userName: z.string(),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
  /** For a reply, the comment whose thread it answers (docs/product.md, "Replies"); null for a comment. */
  parentId: z.number().int().positive().nullable(),
});
export type OwnComment = z.infer<typeof ownCommentSchema>;

/** An address left to be mailed replies (docs/product.md, "Reply mails"), and the comments it was left on. */
const ownReplyAddressSchema = z.object({
  email: z.string(),
  /** Whether its owner confirmed it from the mail; nothing else is sent until then. */
  confirmed: z.boolean(),
  createdAt: timestampSchema,
  commentIds: z.array(z.number().int().positive()),
});

const ownReactionSchema = z.object({
  kind: itemKindSchema,
  itemId: z.string(),
  url: z.string(),
  type: reactionTypeSchema,
  userName: z.string(),
  createdAt: timestampSchema,
});
export type OwnReaction = z.infer<typeof ownReactionSchema>;

/** A call booked from this browser (docs/product.md, "Book a call"), as the reader gave it. */
const ownBookingSchema = z.object({
  start: timestampSchema,
  end: timestampSchema,
  service: z.string(),
  name: z.string(),
  email: z.string(),
  note: z.string(),
  /** The zone the reader booked in. */
  zone: z.string(),
  status: z.enum(["booked", "cancelled"]),
  createdAt: timestampSchema,
});
export type OwnBooking = z.infer<typeof ownBookingSchema>;

/** `GET /api/your-data`, sent as a file to save (`Content-Disposition: attachment`). */
export const yourDataResponseSchema = z.object({
  /** The site's address (SITE_URL). */
  site: z.string(),
  exportedAt: timestampSchema,
  /** False when the request carried no valid visitor cookie: the browser owns nothing. */
  visitorCookie: z.boolean(),
  comments: z.array(ownCommentSchema),
  reactions: z.array(ownReactionSchema),
  replyAddresses: z.array(ownReplyAddressSchema),
  bookings: z.array(ownBookingSchema),
});
export type YourDataResponse = z.infer<typeof yourDataResponseSchema>;

/** The deletion must say so: a stray or replayed empty POST deletes nothing. */
export const deleteYourDataRequestSchema = z.strictObject({ confirm: z.literal(true) });
export type DeleteYourDataRequest = z.input<typeof deleteYourDataRequestSchema>;

export const deleteYourDataResponseSchema = z.object({
  deleted: z.object({
    comments: z.number().int().nonnegative(),
    reactions: z.number().int().nonnegative(),
    replyAddresses: z.number().int().nonnegative(),
    /** Calls booked from this browser; one still ahead is cancelled first, and both sides are told. */
    bookings: z.number().int().nonnegative(),
  }),
});
export type DeleteYourDataResponse = z.infer<typeof deleteYourDataResponseSchema>;

/** The value the page's form without JavaScript posts as `confirm`. */
export const deleteConfirmationValue = "delete-everything";
