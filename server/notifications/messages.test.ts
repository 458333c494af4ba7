import { describe, expect, it } from "vitest";
import { plural } from "../../contract/plural.ts";
import { digestMail, type NoticeEntry } from "./messages.ts";

/*
 * Counts in words (contract/plural.ts): "1 comment", never "1 comments",
 * in the browser and in what the server writes, as the owner's digest does.
 */

describe("plural", () => {
  it.each([
    [0, "comment", undefined, "0 comments"],
    [1, "comment", undefined, "1 comment"],
    [2, "comment", undefined, "2 comments"],
    [1, "enquiry", "enquiries", "1 enquiry"],
    [3, "enquiry", "enquiries", "3 enquiries"],
    [1, "more is", "more are", "1 more is"],
    [5, "more is", "more are", "5 more are"],
  ])("counts %d as %s → %s", (count, one, many, words) => {
    expect(plural(count, one, many)).toBe(words);
  });
});

describe("the owner's digest", () => {
  const entry = (id: number): NoticeEntry => ({
    comment: {
      id,
      postId: "soap",
      content: `Comment ${id}`,
      userName: "Asha",
      createdAt: "2030-03-04T13:05:00.000Z",
    },
    written: "Monday 4 March 2030, 13:05 (UTC)",
    state: "created",
    postTitle: "Why does soap lather less in hard water?",
    postUrl: "https://engage.example/science/soap",
    links: {},
  });

  it("counts one comment, and one left out, in the singular", () => {
    const mail = digestMail("owner@example.com", [entry(1)], { deleted: 1, more: 0 });
    expect(mail.subject).toBe("1 new comment on Engage with Engineer");
    expect(mail.text).toContain("1 more was deleted before this digest went out.");
    const longer = digestMail("owner@example.com", [entry(1)], { deleted: 0, more: 1 });
    expect(longer.subject).toBe("2 new comments on Engage with Engineer");
    expect(longer.text).toContain("1 more is not shown here: npm run admin -- comments list");
  });
});
