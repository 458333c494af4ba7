import { describe, expect, it } from "vitest";
import { neighbours, newestFirst, siteItems } from "./items.ts";
import { loadContent } from "./load.ts";
import { clip } from "./markdown.ts";

const content = loadContent();
const items = siteItems(content);

describe("the items that have pages of their own", () => {
  it("are every article, story, science post, AI article, growth piece and soft skill", () => {
    expect(items).toHaveLength(
      content.technical.articles.length +
        content.growth.length +
        content.softSkills.length +
        content.stories.length +
        content.ai.articles.length +
        content.science.length,
    );
    expect(items.map((item) => item.path)).toContain("/science/pressure-cooker");
    expect(items.map((item) => item.path)).toContain("/non-technical/time-management");
    expect(new Set(items.map((item) => item.path)).size).toBe(items.length);
  });

  it("each have a description of at most 160 characters, a date and a reading time", () => {
    for (const item of items) {
      expect(item.description.length, item.path).toBeLessThanOrEqual(160);
      expect(item.description.length, item.path).toBeGreaterThan(40);
      expect(item.published, item.path).toMatch(/^20\d\d-\d\d-\d\d$/);
      expect(item.readingMinutes, item.path).toBeGreaterThanOrEqual(1);
      // The page's title is the h1: the text's headings start at h2.
      expect(item.html, item.path).not.toMatch(/<h1/);
    }
  });

  it("keep the order of their list page, and link to their neighbours in it", () => {
    const science = items.filter((item) => item.section.id === "science");
    expect(science.map((item) => item.slug).slice(-2)).toEqual([
      "differential-gear",
      "starter-motor",
    ]);
    const first = science[0];
    if (!first) throw new Error("no science posts");
    expect(neighbours(items, first).previous).toBeNull();
    expect(neighbours(items, first).next?.slug).toBe(science[1]?.slug);
    const last = science.at(-1);
    if (!last) throw new Error("no science posts");
    expect(neighbours(items, last).next).toBeNull();
  });

  it("sort newest first", () => {
    const dates = newestFirst(items).map((item) => item.published);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it("cut long descriptions at a word", () => {
    expect(clip("short")).toBe("short");
    const long = `${"word ".repeat(40)}end`;
    const cut = clip(long, 50);
    expect(cut.length).toBeLessThanOrEqual(50);
    expect(cut).toMatch(/word…$/);
  });
});
