import { describe, expect, it } from "vitest";
import type { Comment } from "../../contract/api.ts";
import {
  firstLoaded,
  type LoadedComments,
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

/** Comments 1–3 loaded of 5; more to come. */
const partway = () =>
  firstLoaded({ comments: [comment(1), comment(2), comment(3)], next: "cursor-3", total: 5 });
/** All of them loaded. */
const atEnd = () => firstLoaded({ comments: [comment(1), comment(2)], next: null, total: 2 });

describe("a reader's list of comments", () => {
  it("appends a new comment once the reader has reached the end", () => {
    const data = withEvent(atEnd(), added(comment(3)));
    expect(ids(data)).toEqual([1, 2, 3]);
    expect(data.total).toBe(3);
    // The same event again (a replay) changes nothing.
    expect(withEvent(data, added(comment(3)))).toEqual(data);
  });

  it("only counts a new comment before the end; the next page brings it, once", () => {
    const data = withEvent(partway(), added(comment(9)));
    expect(ids(data)).toEqual([1, 2, 3]);
    expect(data).toMatchObject({ total: 6, unseen: [9] });
    expect(withEvent(data, added(comment(9))).total).toBe(6);

    const more = withPage(data, {
      comments: [comment(4), comment(5), comment(9)],
      next: null,
      total: 6,
    });
    expect(ids(more)).toEqual([1, 2, 3, 4, 5, 9]);
    expect(more).toMatchObject({ total: 6, unseen: [], pages: 2, next: null });
  });

  it("puts a comment approved late in its place when it falls among those loaded", () => {
    const early = { ...comment(7), createdAt: comment(2).createdAt };
    expect(ids(withEvent(partway(), added(early)))).toEqual([1, 2, 7, 3]);
  });

  it("shows the reader's own new comment at once, and not twice when its page comes", () => {
    const mine = comment(9, 9, true);
    const data = withNew(withEvent(partway(), added(mine)), mine, { show: true });
    expect(ids(data)).toEqual([1, 2, 3, 9]);
    expect(data).toMatchObject({ total: 6, unseen: [] });
    expect(data.comments.at(-1)?.mine).toBe(true);
    const more = withPage(data, {
      comments: [comment(4), comment(5), mine],
      next: null,
      total: 6,
    });
    expect(ids(more)).toEqual([1, 2, 3, 4, 5, 9]);
  });

  it("counts down for a comment deleted, shown or only counted, and not for one never heard of", () => {
    const data = withEvent(partway(), added(comment(9)));
    expect(without(data, 2)).toMatchObject({ total: 5 });
    expect(ids(without(data, 2))).toEqual([1, 3]);
    expect(without(data, 9)).toMatchObject({ total: 5, unseen: [] });
    // Another writer's held comment the owner rejected: never counted here.
    expect(withEvent(data, { action: "deleted", item, commentId: 42 })).toEqual(data);
  });

  it("keeps the reader's own comment held again as awaiting approval, and drops another's", () => {
    const data = firstLoaded({
      comments: [comment(1, 1, true), comment(2)],
      next: null,
      total: 2,
    });
    const heldMine = withEvent(data, { action: "held", item, commentId: 1 });
    expect(heldMine.comments[0]).toMatchObject({ id: 1, awaitingApproval: true });
    expect(heldMine.total).toBe(2);
    const heldOther = withEvent(data, { action: "held", item, commentId: 2 });
    expect(ids(heldOther)).toEqual([1]);
    expect(heldOther.total).toBe(1);
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
