import { describe, expect, it } from "vitest";
import { readFurther, readFurtherSentence } from "./read-further.ts";

const subject = "https://en.wikipedia.org/wiki/Generative_design";
const post = "https://www.linkedin.com/posts/asha-rao_generative-design-activity-1";
const profile = "https://www.linkedin.com/in/asha-rao";

describe("an AI article's link to read further", () => {
  it("is the owner's post on its topic, else the profile, else a page on the subject", () => {
    expect(readFurther({ linkedin: post, link: subject }, profile)).toEqual({
      kind: "post",
      label: "Read More on LinkedIn",
      url: post,
    });
    expect(readFurther({ link: subject }, profile)).toEqual({
      kind: "profile",
      label: "Find me on LinkedIn",
      url: profile,
    });
    expect(readFurther({ link: subject }, null)).toEqual({
      kind: "subject",
      label: "Read more",
      url: subject,
    });
  });

  it("is described by the intro exactly as the articles behave", () => {
    const asPost = readFurther({ linkedin: post, link: subject }, null);
    const asSubject = readFurther({ link: subject }, null);
    const asProfile = readFurther({ link: subject }, profile);
    expect(readFurtherSentence([asPost, asPost])).toBe(
      "Each article is a self-contained summary and ends with a link to my LinkedIn post on its topic, where the discussion continues.",
    );
    expect(readFurtherSentence([asSubject])).toMatch(
      /a page on its subject for further reading\.$/,
    );
    expect(readFurtherSentence([asPost, asProfile])).toBe(
      "Each article is a self-contained summary. Where I have written a LinkedIn post on its topic, it ends with a link to that post; the others end with a link to my LinkedIn profile, where I write about these subjects.",
    );
    expect(readFurtherSentence([asSubject, asPost])).toMatch(
      /the others end with a link to a page on its subject for further reading\.$/,
    );
  });
});
