import { describe, expect, it } from "vitest";
import { contentCopy } from "../tests/support/content-copy.ts";
import { loadContent } from "./load.ts";
import { checkSiteLinks } from "./site-links.ts";

const problemsOf = (root: string) => {
  try {
    checkSiteLinks(loadContent(root));
    return [];
  } catch (error) {
    return (error as Error).message.split("\n");
  }
};

describe("links in the writing to pages of the site", () => {
  const copy = contentCopy();

  it("lead to pages and headings the site has", () => {
    expect(problemsOf(copy.root)).toEqual([]);
  });

  it("a mistyped page or a heading its page lacks is refused, naming the file and the link", () => {
    copy.edit("technical/articles/ice-blog.md", (source) =>
      source
        .replace("(/technical/fuel-injection-blog)", "(/technical/fuel-injection)")
        .replace(
          "(/technical/emissions-blog)",
          "(/technical/emissions-blog#what-the-norms-say), [the cooker](/science/pressure-cooker#the-weight-valve), [services](/services/dfmea) and [the sitemap](/sitemap.xml)",
        ),
    );
    const problems = problemsOf(copy.root);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toBe(
      "technical/articles/ice-blog.md: the link /technical/fuel-injection leads to no page of the site; correct its path",
    );
    expect(problems[1]).toMatch(
      /^technical\/articles\/ice-blog\.md: the link \/technical\/emissions-blog#what-the-norms-say names no heading of \/technical\/emissions-blog \(its headings' ids: .*what-the-norms-demand/,
    );
  });
});
