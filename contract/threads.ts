/*
 * The order of a post's comments (docs/product.md, "Replies"): threads by the
 * time their first comment was written (then id), each followed by its
 * replies, oldest first. Shared by the server's pages and the island, which
 * keep a flat list in this order. No zod here: the browser imports it.
 */

type Placed = { id: number; createdAt: string; parentId: number | null };

export const byPosition = (a: Placed, b: Placed) =>
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
