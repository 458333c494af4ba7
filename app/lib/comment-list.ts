import type { Comment, CommentsResponse, OwnerOverlay } from "../../contract/api.ts";
import type { CommentEvent } from "../../contract/live-events.ts";
import { byPosition, threadOrder } from "../../contract/threads.ts";

/**
 * What the browser holds of a post's comments: the pages it has loaded, as one
 * list in the server's order, and what live events said of the rest
 * (docs/product.md, "Reacting and commenting"; docs/decisions/015-comment-pages.md).
 * Pure functions, so the live stream, the form and "Show more comments" all
 * change it the same way.
 */
export type LoadedComments = {
  /** Shown, oldest first (time written, then id). */
  comments: Comment[];
  /** The server's cursor for the next page; null once the reader has reached the end. */
  next: string | null;
  /** Every comment the reader can see on the post, loaded or not. */
  total: number;
  /** Pages loaded: a reload reads as many again. */
  pages: number;
  /** Comments live events announced past what is loaded: counted, and shown by "Show more comments". */
  unseen: number[];
  /** Only for the signed-in owner (docs/decisions/016-owner-voice.md). */
  owner?: OwnerOverlay;
};

/** The last thread loaded: pages end on a thread, with all its replies. */
const lastThread = (data: LoadedComments) =>
  data.comments.filter((comment) => comment.parentId === null).at(-1);

export function firstLoaded(page: CommentsResponse): LoadedComments {
  return {
    comments: page.comments,
    next: page.next,
    total: page.total,
    pages: 1,
    unseen: [],
    ...(page.owner ? { owner: page.owner } : {}),
  };
}

/** The next page added to what is shown; what it brings replaces what was there. */
export function withPage(data: LoadedComments, page: CommentsResponse): LoadedComments {
  const fetched = new Set(page.comments.map((comment) => comment.id));
  return {
    ...data,
    comments: threadOrder([...data.comments.filter((c) => !fetched.has(c.id)), ...page.comments]),
    next: page.next,
    total: page.total,
    pages: data.pages + 1,
    unseen: data.unseen.filter((id) => !fetched.has(id)),
  };
}

const isKnown = (data: LoadedComments, id: number) =>
  data.comments.some((comment) => comment.id === id) || data.unseen.includes(id);

/**
 * A comment the reader has not seen yet. It joins the list when it falls
 * within what is loaded (always, once the reader has reached the end), or when
 * `show` (the reader's own, just posted); otherwise it is only counted, and
 * "Show more comments" brings it in its place.
 */
export function withNew(
  data: LoadedComments,
  comment: Comment,
  { show = false }: { show?: boolean } = {},
): LoadedComments {
  const shown = data.comments.some((c) => c.id === comment.id);
  if (shown) return withChanged(data, comment);
  const total = isKnown(data, comment.id) ? data.total : data.total + 1;
  const unseen = data.unseen.filter((id) => id !== comment.id);
  // A reply goes where its thread is; a thread where it falls among those loaded.
  const last = lastThread(data);
  const within =
    comment.parentId !== null
      ? data.comments.some((c) => c.id === comment.parentId)
      : data.next === null || (last !== undefined && byPosition(comment, last) < 0);
  if (within || show) {
    return { ...data, comments: threadOrder([...data.comments, comment]), total, unseen };
  }
  return { ...data, total, unseen: [...unseen, comment.id] };
}

/** A shown comment replaced by its new version. */
export function withChanged(data: LoadedComments, comment: Comment): LoadedComments {
  return { ...data, comments: data.comments.map((c) => (c.id === comment.id ? comment : c)) };
}

/**
 * A comment gone, shown or only counted; one never heard of changes nothing.
 * The place of a deleted comment was no longer counted.
 */
export function without(data: LoadedComments, id: number): LoadedComments {
  if (!isKnown(data, id)) return data;
  const place = data.comments.find((c) => c.id === id)?.deleted === true;
  return {
    ...data,
    comments: data.comments.filter((c) => c.id !== id && c.parentId !== id),
    unseen: data.unseen.filter((unseenId) => unseenId !== id),
    total: place ? data.total : data.total - 1,
  };
}

/**
 * A live event applied: a comment added (or approved), edited, deleted or held
 * again. A comment this browser wrote stays marked as its own, and one held
 * again stays on its writer's page as awaiting approval.
 */
export function withEvent(data: LoadedComments, event: CommentEvent): LoadedComments {
  const known = data.comments.find((comment) => comment.id === event.commentId);
  if (!("comment" in event)) {
    if (event.action === "held" && known?.mine) {
      return withChanged(data, { ...known, awaitingApproval: true });
    }
    return without(data, event.commentId);
  }
  // A deleted comment whose replies keep its place: no longer anyone's, nor counted.
  if (event.comment.deleted) {
    if (!known) return data;
    const total = known.deleted ? data.total : data.total - 1;
    return {
      ...withChanged(data, { ...event.comment, mine: false, awaitingApproval: false }),
      total,
    };
  }
  const comment = { ...event.comment, mine: known?.mine ?? false, awaitingApproval: false };
  if (known) return withChanged(data, comment);
  // An edit of a comment not loaded yet: the page that brings it brings the edit.
  return event.action === "added" ? withNew(data, comment) : data;
}

/**
 * The reader deleted a comment: gone, or, when replies hang under it, left as
 * "Comment deleted" in its place, as the server does.
 */
export function withDeleted(data: LoadedComments, id: number): LoadedComments {
  const known = data.comments.find((c) => c.id === id);
  if (!known || !data.comments.some((c) => c.parentId === id)) return without(data, id);
  const place = { ...known, content: "", html: "", userName: "", deleted: true, mine: false };
  return { ...withChanged(data, place), total: known.deleted ? data.total : data.total - 1 };
}
