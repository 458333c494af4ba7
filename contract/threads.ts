/*
 * The order of a post's comments (docs/product.md, "Replies"): threads by the
 * time their first comment was written (then id), each followed by its
 * replies, oldest first. Shared by the server's pages and the island, which
 * keep a flat list in this order. No zod here: the browser imports it.
 */

type Placed = { id: number; createdAt: string; parentId: number | null };

/** The id of a comment's element on its post's page: links in mails and the pages' JSON-LD lead there. */
export const commentAnchor = (id: number) => `comment-${id}`;

/**
 * A place in a post's list of threads: a comment's time and id, the list's
 * order. Clients pass it back as they got it (`after`, `before`); only its
 * encoding here knows what it holds (docs/decisions/015-comment-pages.md).
 */
export type CommentPosition = { createdAt: string; id: number };

const cursorIso = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)~([1-9]\d{0,9})$/;
const base64url = /^[A-Za-z0-9_-]{1,100}$/;

export function encodeCommentCursor({ createdAt, id }: CommentPosition): string {
  return btoa(`${createdAt}~${id}`).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The position a cursor names, or null for anything this side did not write. */
export function decodeCommentCursor(cursor: string): CommentPosition | null {
  if (!base64url.test(cursor)) return null;
  let text: string;
  try {
    text = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return null;
  }
  const [, createdAt = "", idText = ""] = cursorIso.exec(text) ?? [];
  const id = Number(idText);
  // The id column is a 32-bit integer on PostgreSQL; the time must be a real one.
  if (!(id >= 1 && id <= 2_147_483_647)) return null;
  const time = Date.parse(createdAt);
  if (Number.isNaN(time) || new Date(time).toISOString() !== createdAt) return null;
  const position = { createdAt, id };
  // One spelling per position: padding or stray bits make another string.
  return encodeCommentCursor(position) === cursor ? position : null;
}

export const byPosition = (a: CommentPosition, b: CommentPosition) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id - b.id;

/**
 * The comments in thread order. A reply whose comment is not among them is
 * left out: it shows with its thread or not at all.
 */
export function threadOrder<T extends Placed>(comments: readonly T[]): T[] {
  const replies = new Map<number, T[]>();
  const starts: T[] = [];
  for (const comment of comments) {
    if (comment.parentId === null) {
      starts.push(comment);
    } else {
      replies.set(comment.parentId, [...(replies.get(comment.parentId) ?? []), comment]);
    }
  }
  return starts
    .sort(byPosition)
    .flatMap((start) => [start, ...(replies.get(start.id) ?? []).sort(byPosition)]);
}

/** Comments in thread order, grouped: each thread's first comment and its replies. */
export function threadsOf<T extends Placed>(comments: readonly T[]): { start: T; replies: T[] }[] {
  const threads: { start: T; replies: T[] }[] = [];
  for (const comment of threadOrder(comments)) {
    if (comment.parentId === null) threads.push({ start: comment, replies: [] });
    else threads.at(-1)?.replies.push(comment);
  }
  return threads;
}

/** How many of these comments a heading counts: the place of a deleted one is not one. */
export const countOf = (comments: readonly { deleted: boolean }[]) =>
  comments.filter((comment) => !comment.deleted).length;

/**
 * A long discussion's threads on either side of its fold
 * (docs/decisions/032-long-discussions-open-at-both-ends.md): those that start
 * at or before `after` above it, the others (the latest, and any older thread
 * with a recent reply) below; with no fold, all above.
 */
export function aroundFold<T extends Placed>(
  comments: readonly T[],
  after: CommentPosition | null,
): { above: { start: T; replies: T[] }[]; below: { start: T; replies: T[] }[] } {
  const threads = threadsOf(comments);
  if (after === null) return { above: threads, below: [] };
  return {
    above: threads.filter(({ start }) => byPosition(start, after) <= 0),
    below: threads.filter(({ start }) => byPosition(start, after) > 0),
  };
}
