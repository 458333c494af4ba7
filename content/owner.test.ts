import { describe, expect, it } from "vitest";
import { contentCopy } from "../tests/support/content-copy.ts";
import { loadContent } from "./load.ts";
import { readOwnerProfile } from "./owner.ts";

const copy = contentCopy();
const { edit } = copy;

describe("the owner's profile", () => {
  it("is the repository's sample until the owner replaces it", () => {
    const profile = readOwnerProfile(copy.root);
    expect(profile.sample).toBe(true);
    expect(profile.name).toBe("Arjun Rao");
    edit("owner.md", (source) => source.replace(/^sample: true\n/m, ""));
    expect(readOwnerProfile(copy.root).sample).toBe(false);
  });

  it("names the field that is missing or wrong", () => {
    edit("owner.md", (source) => source.replace(/^role:.*\n/m, ""));
    expect(() => readOwnerProfile(copy.root)).toThrow(/owner\.md: invalid content\n {2}role:/);
    edit("owner.md", (source) => source.replace(/^name:.*$/m, 'name: "Arjun <arjun@example.com>"'));
    expect(() => readOwnerProfile(copy.root)).toThrow(/name: must be one line without/);
  });

  it("refuses a practice that starts in the future, and an unknown field", () => {
    edit("owner.md", (source) => source.replace(/^practisingSince:.*$/m, "practisingSince: 2999"));
    expect(() => readOwnerProfile(copy.root)).toThrow(/practisingSince: cannot be in the future/);
    edit("owner.md", (source) =>
      source.replace(/^practisingSince:.*$/m, "practisingSince: 2005\nyearsOfPractice: 20"),
    );
    expect(() => readOwnerProfile(copy.root)).toThrow(/Unrecognized key: "yearsOfPractice"/);
  });

  it("wants a LinkedIn link to be the owner's profile, and a photo that exists", () => {
    edit("owner.md", (source) =>
      source.replace(
        /^links: \[\]$/m,
        'links:\n  - { label: "LinkedIn", url: "https://www.linkedin.com/posts/arjun_injection-1" }',
      ),
    );
    expect(() => readOwnerProfile(copy.root)).toThrow(
      /links: a LinkedIn link here is the owner's profile/,
    );
    edit("owner.md", (source) =>
      source.replace(
        "https://www.linkedin.com/posts/arjun_injection-1",
        "linkedin.com/in/arjun-rao",
      ),
    );
    expect(() => readOwnerProfile(copy.root)).toThrow(
      /links\.0\.url: must be a whole address, such as https:\/\/example\.com\/page/,
    );
    edit("owner.md", (source) =>
      source.replace('"linkedin.com/in/arjun-rao"', '"https://www.linkedin.com/in/arjun-rao"'),
    );
    expect(readOwnerProfile(copy.root).links).toEqual([
      { label: "LinkedIn", url: "https://www.linkedin.com/in/arjun-rao" },
    ]);
    edit("owner.md", (source) =>
      source.replace(
        /^links:/m,
        'photo: { src: "owner/portrait.jpg", alt: "Arjun Rao", width: 480, height: 480 }\nlinks:',
      ),
    );
    expect(() => readOwnerProfile(copy.root)).toThrow(/owner\.md: image "owner\/portrait\.jpg"/);
    // A phone's photo, named as the phone names it, is told what a name may be.
    edit("owner.md", (source) =>
      source.replace(
        /^photo: \{ src: "owner\/portrait\.jpg"/m,
        'photo: { src: "owner/IMG_2041.jpeg"',
      ),
    );
    expect(() => readOwnerProfile(copy.root)).toThrow(
      /photo\.src: must be folder\/name under content\/images\/ in lower-case letters, digits and dashes, ending \.svg, \.png, \.webp or \.jpg/,
    );
  });
});

describe("an AI article's LinkedIn post", () => {
  const article = "mechfusion-ai/articles/pde-and-ai.md";
  const withPost = (url: string) => (source: string) =>
    source.replace(/^link:.*$/m, `$&\nlinkedin: "${url}"`);

  it("is shown when it is a post or an article on LinkedIn", () => {
    const post = "https://www.linkedin.com/posts/arjun-rao_pinns-activity-7100000000000000000-abcd";
    edit(article, withPost(post));
    const pde = loadContent(copy.root).ai.articles.find((entry) => entry.id === "pde-and-ai");
    expect(pde?.linkedin).toBe(post);
  });

  it("refuses a profile, a search or another site in its place", () => {
    for (const url of [
      "https://www.linkedin.com/in/arjun-rao",
      "https://www.linkedin.com/search/results/content/?keywords=pinn",
      "http://www.linkedin.com/pulse/pinns-arjun-rao",
      "https://example.com/posts/pinns",
    ]) {
      edit(article, (source) => withPost(url)(source.replace(/^linkedin:.*\n/m, "")));
      expect(() => loadContent(copy.root), url).toThrow(
        /pde-and-ai\.md: invalid content\n {2}linkedin: must be the https address of a LinkedIn post/,
      );
    }
    edit(article, (source) =>
      withPost("linkedin.com/posts/arjun-rao_pinns")(source.replace(/^linkedin:.*\n/m, "")),
    );
    expect(() => loadContent(copy.root)).toThrow(/linkedin: must be a whole address/);
  });

  it("belongs to one article only, and never stands in the subject link", () => {
    const post = "https://www.linkedin.com/pulse/pinns-arjun-rao";
    edit(article, withPost(post));
    edit("mechfusion-ai/articles/ai-and-creativity.md", withPost(post));
    expect(() => loadContent(copy.root)).toThrow(/linkedin is the same post as in/);
    edit("mechfusion-ai/articles/ai-and-creativity.md", (source) =>
      source.replace(/^linkedin:.*\n/m, "").replace(/^link:.*$/m, `link: "${post}"`),
    );
    expect(() => loadContent(copy.root)).toThrow(
      /ai-and-creativity\.md: invalid content\n {2}link: a page on the article's subject; the owner's LinkedIn post goes in linkedin/,
    );
  });
});
