import {
  byPosition,
  type CommentPosition,
  encodeCommentCursor,
  threadOrder,
} from "../../contract/threads.ts";

/*
 * What a long discussion opens with (docs/decisions/032-long-discussions-open-at-both-ends.md):
 * its beginning and its latest threads, the middle folded between them.
 */

type Placed = { id: number; createdAt: string; parentId: number | null };

/** What the opening of a post's discussion may be made of (reads.ts). */
export type OpeningCandidates<C> = {
  /** The first threads, one more than any opening holds, oldest first. */
  first: C[];
  /** The most active threads (by their latest comment, a reply's included), most active first. */
  active: C[];
  /** Where the latest threads start, latest first. */
  latest: CommentPosition[];
  /** The replies under all of those threads. */
  replies: C[];
  /** How many comments the discussion has in all. */
  total: number;
};

/**
 * How an opening of `limit` threads is shared: two in five for the beginning
 * (at least the first thread), the rest for the latest. Of 50: the first 20
 * and the latest 30.
 */
function openingSizes(limit: number): { head: number; tail: number } {
  const head = Math.min(limit, Math.max(1, Math.floor((limit * 2) / 5)));
  return { head, tail: limit - head };
}

/**
 * The opening of `limit` threads, in thread order: all of them when they fit;
 * else the first ones, then the most active of the others. `next` is where
 * the fold starts (the last of the beginning); `before` where the threads
 * shown below it run on unbroken to the end of the list, null when the very
 * latest is not among them. A thread older than `before` that a recent reply
 * brought below the fold is shown there, and again in its place once the
 * fold opens up to it.
 */
export function openingOf<C extends Placed>(
  candidates: OpeningCandidates<C>,
  limit: number,
): { comments: C[]; next: string | null; before: string | null } {
  const { first, active, latest, replies } = candidates;
  const withReplies = (threads: C[]) => {
    const shown = new Set(threads.map((thread) => thread.id));
    return threadOrder([
      ...threads,
      ...replies.filter((reply) => reply.parentId !== null && shown.has(reply.parentId)),
    ]);
  };
  if (first.length <= limit) return { comments: withReplies(first), next: null, before: null };
  const sizes = openingSizes(limit);
  const head = first.slice(0, sizes.head);
  const end = head.at(-1) as C;
  const tail = active.filter((thread) => byPosition(thread, end) > 0).slice(0, sizes.tail);
  const inTail = new Set(tail.map((thread) => thread.id));
  let from: CommentPosition | undefined;
  for (const place of latest) {
    if (!inTail.has(place.id)) break;
    from = place;
  }
  return {
    comments: withReplies([...head, ...tail]),
    next: encodeCommentCursor(end),
    before: from ? encodeCommentCursor(from) : null,
  };
}
