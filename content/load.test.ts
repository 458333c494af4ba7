import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { contentCopy } from "../tests/support/content-copy.ts";
import { loadEngagementCatalog } from "./catalog.ts";
import { readFrontmatter } from "./frontmatter.ts";
import { anchorId, loadContent } from "./load.ts";
import { collections } from "./schema.ts";

const copy = contentCopy();
const { edit } = copy;

describe("content", () => {
  it("loads every collection of the site", () => {
    const content = loadContent(copy.root);
    expect(content.stories.map((story) => story.id)).toEqual([
      "sita-faith",
      "rama-duty",
      "sagaras-haste",
      "bharata-righteousness",
      "nala-damayanti",
      "garuda",
    ]);
    expect(content.science.map((item) => item.id)).toEqual([
      "wifi",
      "ironing",
      "tea-cooling",
      "cricket-ball",
      "pressure-cooker",
      "gps-navigation",
      "soap",
      "differential-gear",
      "starter-motor",
    ]);
    expect(content.softSkills.map((skill) => skill.id)).toContain("time-management");
    expect(content.quotes).toHaveLength(5);
    expect(content.services).toHaveLength(9);
  });

  it("keeps the Technical articles' fixed reaction counts", () => {
    const byId = Object.fromEntries(
      loadContent(copy.root).technical.articles.map((article) => [
        article.id,
        article.staticReactions,
      ]),
    );
    expect(byId["ice-blog"]).toEqual({ like: 42, love: 18, dislike: 2, idea: 7 });
    expect(byId["fuel-injection-blog"]).toEqual({ like: 35, love: 12, dislike: 1, idea: 9 });
    expect(byId["emissions-blog"]).toEqual({ like: 28, love: 15, dislike: 1, idea: 11 });
  });

  it("lists the ironing temperatures exactly", () => {
    const ironing = loadContent(copy.root).science.find((item) => item.id === "ironing");
    for (const range of ["180–200°C", "200–230°C", "120–150°C", "110–135°C", "100–120°C"]) {
      expect(ironing?.html).toContain(range);
    }
  });

  it("renders nothing of the sample-voice markers, and keeps the paragraphs around them apart", () => {
    const before = loadContent(copy.root).science.find((item) => item.id === "soap");
    edit("science/soap.md", (source) =>
      source
        .replace("\n\nSoap also pries", "\n<!-- sample-voice -->\nSoap also pries")
        .replace("\n\nIn hard water,", "\n<!-- /sample-voice -->\nIn hard water,"),
    );
    const soap = loadContent(copy.root).science.find((item) => item.id === "soap");
    expect(soap?.html).not.toContain("sample-voice");
    expect(soap?.html).not.toContain("&lt;!--");
    expect(soap?.html).toMatch(/<\/p>\n<p>Soap also pries[^<]*<\/p>\n<p>In hard water,/);
    expect(soap?.words).toBe(before?.words);
  });

  it("takes a new file in a collection without being told how many there are", () => {
    writeFileSync(
      path.join(copy.root, "science/kettle.md"),
      readFileSync(path.join(copy.root, "science/soap.md"), "utf8")
        .replace(/^id: .*$/m, "id: kettle")
        .replace(/^title: .*$/m, 'title: "Why does a kettle click off?"')
        .replace(/^order: .*$/m, "order: 99"),
    );
    const content = loadContent(copy.root);
    expect(content.science).toHaveLength(10);
    expect(content.science.at(-1)?.id).toBe("kettle");
  });

  it("names the file with a missing field", () => {
    edit("science/soap.md", (source) => source.replace(/^summary:.*\n/m, ""));
    expect(() => loadContent(copy.root)).toThrow(
      /science\/soap\.md: invalid content\n {2}summary:/,
    );
  });

  it("names the file with an unknown field, and where the fields are listed", () => {
    edit("services/dfmea.md", (source) => source.replace(/^---\n/, "---\ncolour: green\n"));
    expect(() => loadContent(copy.root)).toThrow(
      /services\/dfmea\.md: invalid content[\s\S]*colour/,
    );
    // A draft flag, as other sites' formats have, is one: the message says what to do.
    edit("science/soap.md", (source) => source.replace(/^---\n/, "---\ndraft: true\n"));
    expect(() => loadContent(copy.root)).toThrow(
      /science\/soap\.md: invalid content\n {2}frontmatter: Unrecognized key: "draft"; this kind of file has no such field \(content\/FORMAT\.md lists its fields\)/,
    );
  });

  it("names both files of a duplicate id", () => {
    edit("mythology/garuda.md", (source) => source.replace(/^id: .*$/m, "id: rama-duty"));
    expect(() => loadContent(copy.root)).toThrow(
      /mythology\/rama-duty\.md: duplicate id "rama-duty" \(also in mythology\/garuda\.md\)/,
    );
  });

  it("names the About or home page left without a body, once its sample passages are deleted", () => {
    const samples = /<!-- sample-voice -->[\s\S]*?<!-- \/sample-voice -->\n?/g;
    edit("about.md", (source) => source.replace(samples, ""));
    expect(() => loadContent(copy.root)).toThrow(/^about\.md: the page's body is empty/);
    edit("about.md", (source) => `${source}\nMy own story.\n`);
    edit("home.md", (source) => source.replace(/\n---\n[\s\S]*$/, "\n---\n\n"));
    expect(() => loadContent(copy.root)).toThrow(/^home\.md: the page's body is empty/);
  });

  it("names every service page left with an empty section, not the first alone", () => {
    const samples = /<!-- sample-voice -->[\s\S]*?<!-- \/sample-voice -->\n?/g;
    for (const file of ["services/dfmea.md", "services/vba-tools.md"]) {
      edit(file, (source) => source.replace(samples, ""));
    }
    expect(() => loadContent(copy.root)).toThrow(
      'services/dfmea.md: the section "## Example" is empty\nservices/vba-tools.md: the section "## Example" is empty',
    );
  });

  it("names every problem across the collections and the owner's profile in one run, each by its file", () => {
    edit("mythology/garuda.md", (source) => source.replace(/^id: .*$/m, "id: rama-duty"));
    edit("science/soap.md", (source) => source.replace(/^summary:.*\n/m, ""));
    edit("science/ironing.md", (source) => source.replace(/^---\n/, "---\ntitle: [unclosed\n"));
    edit("non-technical/soft-skills/teamwork.md", (source) =>
      source.replace(/^published:.*$/m, "published: 2999-01-01"),
    );
    edit("about.md", (source) => source.replace(/\n---\n[\s\S]*$/, "\n---\n\n"));
    edit("owner.md", (source) => source.replace(/^role:.*\n/m, ""));
    rmSync(path.join(copy.root, "images/science/wifi.svg"));
    let error: unknown;
    try {
      loadContent(copy.root);
    } catch (thrown) {
      error = thrown;
    }
    const { message, count } = error as { message: string; count: number };
    for (const file of [
      "about.md",
      "mythology/rama-duty.md",
      "non-technical/soft-skills/teamwork.md",
      "owner.md",
      "science/ironing.md",
      "science/soap.md",
      "science/wifi.md",
    ]) {
      expect(message.split("\n").filter((line) => line.startsWith(`${file}: `))).toHaveLength(1);
    }
    expect(count).toBe(7);
    expect(message).toMatch(/teamwork\.md: published \(2999-01-01\) is in the future/);
    expect(message).toMatch(/duplicate id "rama-duty" \(also in mythology\/garuda\.md\); give one/);
    expect(message).toMatch(
      /wifi\.md: image "science\/wifi\.svg" is not in content\/images\/; add it/,
    );
  });

  it("names the file whose image is missing", () => {
    rmSync(path.join(copy.root, "images/science/wifi.svg"));
    expect(() => loadContent(copy.root)).toThrow(/science\/wifi\.md: image "science\/wifi\.svg"/);
  });

  it("names the file whose image's width and height are not the picture's own", () => {
    // A story's 800×300 copied onto a science picture, which is 800×400.
    edit("science/wifi.md", (source) => source.replace(/^ {2}height: 400$/m, "  height: 300"));
    expect(() => loadContent(copy.root)).toThrow(
      /science\/wifi\.md: image "science\/wifi\.svg" is 800×400, but width and height say 800×300/,
    );
  });

  it("requires every item's publication date, written as a real day, where git cannot give it", () => {
    edit("non-technical/soft-skills/teamwork.md", (source) =>
      source.replace(/^published:.*\n/m, ""),
    );
    expect(() => loadContent(copy.root)).toThrow(
      /soft-skills\/teamwork\.md: no published date, and no git history to read it from/,
    );
    edit("non-technical/soft-skills/teamwork.md", (source) =>
      source.replace(/^order:.*$/m, "$&\npublished: 2026-02-30"),
    );
    expect(() => loadContent(copy.root)).toThrow(
      /teamwork\.md: invalid content\n {2}published: must be a date/,
    );
    edit("non-technical/soft-skills/teamwork.md", (source) =>
      source.replace(/^published:.*$/m, "published: 14 March 2026"),
    );
    expect(() => loadContent(copy.root)).toThrow(
      /teamwork\.md: invalid content\n {2}published: must be a date/,
    );
  });

  it("reads a day as Astro's frontmatter parser gives it (a Date at midnight UTC), and nothing else", () => {
    const { schema } = collections.science;
    const written = readFrontmatter(copy.root, "science/soap.md").data as object;
    const data = (published: unknown) => ({ ...written, published });
    expect(schema.parse(data(new Date("2026-11-22T00:00:00Z"))).published).toBe("2026-11-22");
    const noon = schema.safeParse(data(new Date("2026-11-22T12:00:00Z")));
    expect(noon.error?.issues[0]?.message).toBe("must be a date written as YYYY-MM-DD");
  });

  it("refuses an update dated before the publication", () => {
    edit("science/soap.md", (source) =>
      source
        .replace(/^updated:.*\n/m, "")
        .replace(/^published:.*$/m, "published: 2026-09-05\nupdated: 2026-09-04"),
    );
    expect(() => loadContent(copy.root)).toThrow(
      /science\/soap\.md: updated \(2026-09-04\) is before published \(2026-09-05\)/,
    );
  });

  it("derives soft-skill anchors from titles", () => {
    expect(anchorId("Attention to Details")).toBe("attention-to-details");
    expect(anchorId("Time Management")).toBe("time-management");
  });
});

describe("the engagement catalog the server reads", () => {
  it("holds exactly the ids of the stories and science posts", () => {
    const content = loadContent(copy.root);
    const catalog = loadEngagementCatalog(copy.root);
    expect([...catalog.mythology].sort()).toEqual(content.stories.map((s) => s.id).sort());
    expect([...catalog.science].sort()).toEqual(content.science.map((s) => s.id).sort());
  });

  it("follows a new file, and names a file whose id is unusable", () => {
    writeFileSync(
      path.join(copy.root, "science/kettle.md"),
      "---\nid: kettle\ntitle: Why kettles click off\n---\nSteam reaches the bimetal strip.\n",
    );
    expect(loadEngagementCatalog(copy.root).science.has("kettle")).toBe(true);
    edit("science/soap.md", (source) => source.replace(/^id: .*$/m, "id: Soap Bubbles"));
    expect(() => loadEngagementCatalog(copy.root)).toThrow(
      /science\/soap\.md: id: must be lower-case/,
    );
  });

  it("names both files of a duplicate id", () => {
    edit("mythology/garuda.md", (source) => source.replace(/^id: .*$/m, "id: rama-duty"));
    expect(() => loadEngagementCatalog(copy.root)).toThrow(
      /mythology\/rama-duty\.md: duplicate id/,
    );
  });
});
