/** Limits shared by the browser (input attributes, disabled buttons) and the server (validation). */
export const limits = {
  /** Display names, in UTF-16 code units like the HTML `maxlength` attribute. Not trimmed (docs/product.md, "Limits"). */
  userNameMax: 40,
  /** Comment text after trimming, in UTF-16 code units. */
  commentMax: 2000,
  /** RFC 5321's limit on a forward path. */
  emailMax: 254,
  /** The newsletter form cannot come back sooner than this after it was first touched. */
  newsletterFormMinimumMs: 2000,
  /** Largest request body the API reads. */
  bodyBytesMax: 16 * 1024,
} as const;

export const reactionTypes = ["like", "love", "dislike", "idea"] as const;
export type ReactionType = (typeof reactionTypes)[number];

export const itemKinds = ["mythology", "science"] as const;
/** `mythology` items are stories (story_id in the database), `science` items are posts (post_id). */
export type ItemKind = (typeof itemKinds)[number];
