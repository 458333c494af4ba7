import { describe, expect, it } from "vitest";
import { type Comment, encodeCommentCursor } from "../../contract/api.ts";
import {
  firstLoaded,
  type LoadedComments,
  missesThread,
  withEvent,
  withNew,
  without,
  withPage,
} from "./comment-list.ts";

/*
 * What a reader's list does with live events, their own posts and "Show more
 * comments" (docs/product.md, "Reacting and commenting").
 */

const comment = (id: number, second = id, mine = false): Comment => ({
  id,
  postId: "wifi",
  content: `Comment ${id}`,
  html: `<p>Comment ${id}</p>`,
  userName: "Asha",
  avatar: "0123456789abcdef",
  createdAt: new Date(Date.UTC(2026, 10, 1, 0, 0, second)).toISOString(),
  updatedAt: new Date(Date.UTC(2026, 10, 1, 0, 0, second)).toISOString(),
  byOwner: false,
  parentId: null,
  deleted: false,
  mine,
  awaitingApproval: false,
});
const live = ({ mine: _, awaitingApproval: __, ...rest }: Comment) => rest;
const item = { kind: "science" as const, id: "wifi" };
const added = (c: Comment) =>
  ({ action: "added", item, commentId: c.id, comment: live(c) }) as const;
const ids = (data: LoadedComments) => data.comments.map((c) => c.id);

const cursor = (c: Comment) => encodeCommentCursor(c);
/** Of 8 threads, 1–2 and the latest, 7–8, loaded; 3–6 folded between them. */
const folded = () =>
  firstLoaded({
    comments: [comment(1), comment(2), comment(7), comment(8)],
    next: cursor(comment(2)),
    before: cursor(comment(7)),
    total: 8,
  });
/** Comments 1–3 loaded of 5, the fold running to the end. */
const partway = () =>
  firstLoaded({
    comments: [comment(1), comment(2), comment(3)],
    next: cursor(comment(3)),
    before: null,
    total: 5,
  });
/** All of them loaded. */
const atEnd = () =>
  firstLoaded({ comments: [comment(1), comment(2)], next: null, before: null, total: 2 });
const reply = (id: number, parentId: number, second = id): Comment => ({
  ...comment(id, second),
  parentId,
});

describe("a reader's list of comments", () => {
  it("shows a comment from the Fediverse with its writer, as the list does", () => {
    const remote = {
      handle: "@ines@fosstodon.org",
      url: "https://fosstodon.org/@ines/1",
      avatar: "/fediverse/avatars/3",
    };
    const data = withEvent(atEnd(), added({ ...comment(3), remote }));
    expect(data.comments.find((c) => c.id === 3)?.remote).toEqual(remote);
    const edited = withEvent(data, {
      action: "updated",
      item,
      commentId: 3,
      comment: live({ ...comment(3), content: "Edited", remote }),
    });
    expect(edited.comments.find((c) => c.id === 3)?.remote).toEqual(remote);
  });

  it("appends a new comment once the reader has reached the end", () => {
    const data = withEvent(atEnd(), added(comment(3)));
    expect(ids(data)).toEqual([1, 2, 3]);
    expect(data.total).toBe(3);
    // The same event again (a replay) changes nothing.
    expect(withEvent(data, added(comment(3)))).toEqual(data);
  });

  it("appends a new comment below the latest while the middle is folded, and the fold opens around it", () => {
    const data = withEvent(folded(), added(comment(9)));
    expect(ids(data)).toEqual([1, 2, 7, 8, 9]);
    expect(data).toMatchObject({ total: 9, unseen: [] });
    const opened = withPage(data, {
      comments: [comment(3), comment(4), comment(5), comment(6)],
      next: null,
      before: cursor(comment(7)),
      total: 9,
    });
    expect(ids(opened)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(opened).toMatchObject({ fold: null, pages: 2 });
    // Where the fold runs to the end, a new comment still comes after all that is shown.
    expect(ids(withEvent(partway(), added(comment(9))))).toEqual([1, 2, 3, 9]);
  });

  it("only counts a comment approved long after it was written inside the fold; opening it brings it, once", () => {
    const late = { ...comment(20), createdAt: comment(5).createdAt };
    const data = withEvent(folded(), added(late));
    expect(ids(data)).toEqual([1, 2, 7, 8]);
    expect(data).toMatchObject({ total: 9, unseen: [20] });
    expect(withEvent(data, added(late)).total).toBe(9);
    const more = withPage(data, {
      comments: [comment(3), comment(4), comment(5), late, comment(6)],
      next: null,
      before: cursor(comment(7)),
      total: 9,
    });
    expect(ids(more)).toEqual([1, 2, 3, 4, 5, 20, 6, 7, 8]);
    expect(more).toMatchObject({ total: 9, unseen: [], fold: null });
    // One approved late among those shown goes in its place.
    const early = { ...comment(21), createdAt: comment(1).createdAt };
    expect(ids(withEvent(folded(), added(early)))).toEqual([1, 21, 2, 7, 8]);
  });

  it("places a reply under its thread, above or below the fold, and asks for a thread it has not loaded", () => {
    const above = reply(10, 1, 10);
    const below = reply(11, 7, 11);
    let data = withEvent(folded(), added(above));
    data = withEvent(data, added(below));
    expect(ids(data)).toEqual([1, 10, 2, 7, 11, 8]);
    expect(data.total).toBe(10);
    expect(missesThread(folded(), added(above))).toBe(false);
    // A reply in a folded thread is counted; the list is read again for it.
    const inFold = reply(12, 4, 12);
    expect(missesThread(data, added(inFold))).toBe(true);
    expect(withEvent(data, added(inFold))).toMatchObject({ total: 11, unseen: [12] });
    expect(ids(withEvent(data, added(inFold)))).toEqual(ids(data));
  });

  it("shows the reader's own new comment at once, and not twice when the live event brings it", () => {
    const mine = comment(9, 9, true);
    const data = withNew(withEvent(folded(), added(mine)), mine);
    expect(ids(data)).toEqual([1, 2, 7, 8, 9]);
    expect(data).toMatchObject({ total: 9, unseen: [] });
    expect(data.comments.at(-1)?.mine).toBe(true);
  });

  it("turns a deleted comment with replies into its place, shown or folded, and stops counting it once", () => {
    const withReply = withEvent(folded(), added(reply(10, 7, 10)));
    const place = { ...live(comment(7)), content: "", html: "", userName: "", deleted: true };
    const shown = withEvent(withReply, { action: "updated", item, commentId: 7, comment: place });
    expect(shown.comments.find((c) => c.id === 7)).toMatchObject({ deleted: true, mine: false });
    expect(ids(shown)).toEqual([1, 2, 7, 10, 8]);
    expect(shown.total).toBe(8);
    // A place in the fold: not shown, no longer counted.
    const inFold = { ...live(comment(4)), content: "", userName: "", deleted: true };
    const hidden = withEvent(shown, { action: "updated", item, commentId: 4, comment: inFold });
    expect(ids(hidden)).toEqual(ids(shown));
    expect(hidden.total).toBe(7);
  });

  it("counts down for a comment deleted, shown or only counted, and not for one never heard of", () => {
    const late = { ...comment(9), createdAt: comment(5).createdAt };
    const data = withEvent(folded(), added(late));
    expect(data).toMatchObject({ total: 9, unseen: [9] });
    expect(without(data, 2)).toMatchObject({ total: 8 });
    expect(ids(without(data, 2))).toEqual([1, 7, 8]);
    expect(without(data, 9)).toMatchObject({ total: 8, unseen: [] });
    // Another writer's held comment the owner rejected: never counted here.
    expect(withEvent(data, { action: "deleted", item, commentId: 42 })).toEqual(data);
  });

  it("keeps the reader's own comment held again as awaiting approval, and drops another's", () => {
    const data = firstLoaded({
      comments: [comment(1, 1, true), comment(2)],
      next: null,
      before: null,
      total: 2,
    });
    const heldMine = withEvent(data, { action: "held", item, commentId: 1 });
    expect(heldMine.comments[0]).toMatchObject({ id: 1, awaitingApproval: true });
    expect(heldMine.total).toBe(2);
    const heldOther = withEvent(data, { action: "held", item, commentId: 2 });
    expect(ids(heldOther)).toEqual([1]);
    expect(heldOther.total).toBe(1);
  });

  it("keeps the published replies of another's comment held again, under its place, until the owner decides", () => {
    const data = firstLoaded({
      comments: [comment(1), reply(2, 1), comment(3)],
      next: null,
      before: null,
      total: 3,
    });
    const held = withEvent(data, { action: "held", item, commentId: 1 });
    expect(ids(held)).toEqual([1, 2, 3]);
    expect(held.comments[0]).toMatchObject({
      deleted: true,
      held: true,
      content: "",
      userName: "",
    });
    expect(held.total).toBe(2);
    const approved = withEvent(held, added(comment(1)));
    expect(approved.comments[0]).toMatchObject({ deleted: false, content: "Comment 1" });
    expect(approved.total).toBe(3);
    const place = { ...comment(1), content: "", html: "", userName: "", deleted: true };
    const rejected = withEvent(held, {
      action: "updated",
      item,
      commentId: 1,
      comment: live(place),
    });
    expect(rejected.comments[0]).not.toHaveProperty("held");
    expect(ids(rejected)).toEqual([1, 2, 3]);
    expect(rejected.total).toBe(2);
  });

  it("applies an edit to a loaded comment and leaves one not loaded to its page", () => {
    const edit = { ...comment(2), content: "Edited" };
    const data = withEvent(partway(), {
      action: "updated",
      item,
      commentId: 2,
      comment: live(edit),
    });
    expect(data.comments[1]?.content).toBe("Edited");
    const far = { ...comment(8), content: "Edited" };
    expect(
      withEvent(partway(), { action: "updated", item, commentId: 8, comment: live(far) }),
    ).toEqual(partway());
  });
});

describe("the opening read with what the reader owns", () => {
  const held = (c: Comment): Comment => ({ ...c, mine: true, awaitingApproval: true });

  it("marks the reader's comments and shows their held ones, a thread at its place and a reply under its thread", () => {
    const data = firstLoaded({
      comments: [comment(1), comment(2), comment(7), comment(8)],
      next: cursor(comment(2)),
      before: cursor(comment(7)),
      total: 8,
      own: { ids: [2, 5], held: [held(reply(10, 7)), held(comment(9))] },
    });
    expect(ids(data)).toEqual([1, 2, 7, 10, 8, 9]);
    expect(data.comments.filter((c) => c.mine).map((c) => c.id)).toEqual([2, 10, 9]);
    expect(data.comments.filter((c) => c.awaitingApproval).map((c) => c.id)).toEqual([10, 9]);
    // Only the reader sees their held comments, and counts them.
    expect(data.total).toBe(10);
  });

  it("counts a held reply to a folded thread until the fold opens up to it", () => {
    const data = firstLoaded({
      comments: [comment(1), comment(2), comment(7), comment(8)],
      next: cursor(comment(2)),
      before: cursor(comment(7)),
      total: 8,
      own: { ids: [], held: [held(reply(10, 4))] },
    });
    expect(ids(data)).toEqual([1, 2, 7, 8]);
    expect(data.unseen).toEqual([10]);
    expect(data.total).toBe(9);
  });

  it("reads as everyone's opening when the reader owns nothing", () => {
    expect(firstLoaded({ ...atEndPage(), own: { ids: [], held: [] } })).toEqual(
      firstLoaded(atEndPage()),
    );
  });
});

function atEndPage() {
  return { comments: [comment(1), comment(2)], next: null, before: null, total: 2 };
}
