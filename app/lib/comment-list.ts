import type { Comment, CommentsResponse, OwnComments, OwnerOverlay } from "../../contract/api.ts";
import type { CommentEvent } from "../../contract/live-events.ts";
import {
  byPosition,
  type CommentPosition,
  decodeCommentCursor,
  threadOrder,
} from "../../contract/threads.ts";

/**
 * What the browser holds of a post's comments: the discussion as it opened
 * and what the reader unfolded of its middle, as one list in the server's
 * order, and what live events said of the rest (docs/product.md, "Long
 * discussions"; docs/decisions/032-long-discussions-open-at-both-ends.md).
 * Pure functions, so the live stream, the form and "Show more comments" all
 * change it the same way.
 */
export type LoadedComments = {
  /** Shown, in thread order (time written, then id). */
  comments: Comment[];
  /** The folded middle: threads after `after`, before `before` (to the end when null). */
  fold: Fold | null;
  /** Every comment the reader can see on the post, loaded or not. */
  total: number;
  /** Reads made, the opening's included: a reload makes as many again. */
  pages: number;
  /** Comments live events announced inside the fold: counted, and shown when it opens up to them. */
  unseen: number[];
  /** Only for the signed-in owner (docs/decisions/016-owner-voice.md). */
  owner?: OwnerOverlay;
};

/** Where a discussion's middle is folded, as the server said. */
export type Fold = { after: CommentPosition; before: CommentPosition | null };

const foldOf = ({ next, before }: CommentsResponse): Fold | null => {
  const after = next ? decodeCommentCursor(next) : null;
  return after ? { after, before: before ? decodeCommentCursor(before) : null } : null;
};

/** Whether two reads of the fold would read the same. */
export const sameFold = (a: Fold | null, b: Fold | null) =>
  a !== null &&
  b !== null &&
  a.after.id === b.after.id &&
  a.after.createdAt === b.after.createdAt &&
  a.before?.id === b.before?.id &&
  a.before?.createdAt === b.before?.createdAt;

export function firstLoaded(page: CommentsResponse): LoadedComments {
  const loaded: LoadedComments = {
    comments: page.comments,
    fold: foldOf(page),
    total: page.total,
    pages: 1,
    unseen: [],
    ...(page.owner ? { owner: page.owner } : {}),
  };
  return page.own ? withOwn(loaded, page.own) : loaded;
}

/**
 * The opening as everyone sees it, with what the reader owns of it
 * (docs/decisions/035-returning-readers-read-the-shared-bytes.md): their
 * comments marked as theirs, and those only they see placed as a new comment
 * is (a reply under its thread, one inside the fold counted until it opens).
 */
function withOwn(data: LoadedComments, own: OwnComments): LoadedComments {
  const ids = new Set(own.ids);
  const marked = data.comments.map((c) => (ids.has(c.id) ? { ...c, mine: true } : c));
  // Threads before replies, so a reply to one of them finds it shown.
  const held = [...own.held].sort(
    (a, b) => Number(a.parentId !== null) - Number(b.parentId !== null) || byPosition(a, b),
  );
  return held.reduce((loaded, comment) => withNew(loaded, comment), {
    ...data,
    comments: marked,
  });
}

/** A read of the fold added to what is shown: what it brings replaces what was there. */
export function withPage(data: LoadedComments, page: CommentsResponse): LoadedComments {
  const fetched = new Set(page.comments.map((comment) => comment.id));
  return {
    ...data,
    comments: threadOrder([...data.comments.filter((c) => !fetched.has(c.id)), ...page.comments]),
    fold: foldOf(page),
    total: page.total,
    pages: data.pages + 1,
    unseen: data.unseen.filter((id) => !fetched.has(id)),
  };
}

const isKnown = (data: LoadedComments, id: number) =>
  data.comments.some((comment) => comment.id === id) || data.unseen.includes(id);

/**
 * Whether a thread starting at `place` is in the fold: after its start and
 * before the threads that follow it, the first of the latest (or, when the
 * fold runs to the end, the latest thread shown).
 */
function folded(data: LoadedComments, place: CommentPosition): boolean {
  if (!data.fold) return false;
  const end =
    data.fold.before ?? data.comments.filter((comment) => comment.parentId === null).at(-1);
  return byPosition(place, data.fold.after) > 0 && end !== undefined && byPosition(place, end) < 0;
}

/**
 * A comment the reader has not seen yet. A new thread is the latest, and is
 * shown at the end; a reply is shown under its thread. One that falls inside
 * the fold (a reply to a folded thread, or a comment approved long after it
 * was written) is only counted: opening the fold brings it.
 */
export function withNew(data: LoadedComments, comment: Comment): LoadedComments {
  const shown = data.comments.some((c) => c.id === comment.id);
  if (shown) return withChanged(data, comment);
  const total = isKnown(data, comment.id) ? data.total : data.total + 1;
  const unseen = data.unseen.filter((id) => id !== comment.id);
  const within =
    comment.parentId !== null
      ? data.comments.some((c) => c.id === comment.parentId)
      : !folded(data, comment);
  if (within) {
    return { ...data, comments: threadOrder([...data.comments, comment]), total, unseen };
  }
  return { ...data, total, unseen: [...unseen, comment.id] };
}

/**
 * Whether an event brings a reply to a thread the reader has not loaded: the
 * discussion then opens with that thread among the latest, and is read again.
 */
export const missesThread = (data: LoadedComments, event: CommentEvent) =>
  event.action === "added" &&
  event.comment.parentId !== null &&
  !data.comments.some((c) => c.id === event.comment.parentId);

/**
 * A shown comment replaced by its new version. A place (of a deleted comment,
 * or of one awaiting approval) is not counted: one taking or leaving that
 * form changes the count.
 */
export function withChanged(data: LoadedComments, comment: Comment): LoadedComments {
  const known = data.comments.find((c) => c.id === comment.id);
  const counted = (c: Comment | undefined) => (c && !c.deleted ? 1 : 0);
  return {
    ...data,
    comments: data.comments.map((c) => (c.id === comment.id ? comment : c)),
    total: known ? data.total + counted(comment) - counted(known) : data.total,
  };
}

/** What is left of a comment gone while replies hang under it: its place, nobody's. */
const placeOf = (comment: Comment): Comment => ({
  ...comment,
  content: "",
  html: "",
  userName: "",
  deleted: true,
  mine: false,
});

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
    // Its published replies stay, under its place (docs/product.md, "Replies").
    if (event.action === "held" && known && data.comments.some((c) => c.parentId === known.id)) {
      return withChanged(data, { ...placeOf(known), held: true, awaitingApproval: false });
    }
    return without(data, event.commentId);
  }
  // A deleted comment whose replies keep its place: no longer anyone's, nor counted.
  if (event.comment.deleted) {
    if (!known) {
      // In the fold, where it was counted.
      if (!data.fold && !data.unseen.includes(event.commentId)) return data;
      return {
        ...data,
        total: data.total - 1,
        unseen: data.unseen.filter((id) => id !== event.commentId),
      };
    }
    return withChanged(data, { ...event.comment, mine: false, awaitingApproval: false });
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
  return withChanged(data, placeOf(known));
}
