import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { contentCopy } from "../tests/support/content-copy.ts";
import { loadContent } from "./load.ts";
import { findSamplePassages, listSamplePassages, samplePassages } from "./sample-voice.ts";

const marked = [
  "The bracket failed at the bend.",
  "<!-- sample-voice -->",
  "I designed one like it in my first year,",
  "and the press shop sent it back.",
  "<!-- /sample-voice -->",
  "Ask the shop floor first.",
].join("\n");

describe("the sample engineer's passages", () => {
  it("are found with the line of each opening marker", () => {
    expect(samplePassages("about.md", `Intro.\n\n${marked}\n\n${marked}`)).toEqual([
      { file: "about.md", line: 4 },
      { file: "about.md", line: 11 },
    ]);
  });

  it.each([
    ["<!-- sample-voice -->\nNever closed.", "line 1: the sample-voice passage is never closed"],
    ["Text.\n<!-- /sample-voice -->", "line 2: <!-- /sample-voice --> closes no passage"],
    [
      "<!-- sample-voice -->\n<!-- sample-voice -->\n<!-- /sample-voice -->",
      "line 2: a sample-voice passage opens inside the one opened on line 1",
    ],
    ["I did it. <!-- sample-voice -->", "line 1: a sample-voice marker goes on a line of its own"],
  ])("refuses a marker out of place: %j", (source, message) => {
    expect(() => samplePassages("about.md", source)).toThrow(`about.md: ${message}`);
  });

  it("are counted for content:check in words that fit one or several", () => {
    const about = { file: "content/about.md", line: 6 };
    expect(listSamplePassages([about])).toMatch(
      /^1 first-person passage written for the sample engineer remains \(.*\):\n {2}content\/about\.md:6$/,
    );
    expect(listSamplePassages([about, { file: "newsletter/01-a.md", line: 20 }])).toMatch(
      /^2 first-person passages written for the sample engineer remain \(.*\):\n {2}content\/about\.md:6\n {2}newsletter\/01-a\.md:20$/,
    );
  });

  describe("in content/", () => {
    const copy = contentCopy();

    it("fail the content check when a passage is left open, naming the file", () => {
      const file = path.join(copy.root, "services/dfmea.md");
      const source = readFileSync(file, "utf8").replace(/\n*$/, "\n");
      writeFileSync(file, `${source}\n<!-- sample-voice -->\nI once…\n`);
      const line = source.split("\n").length + 1;
      expect(() => loadContent(copy.root)).toThrow(
        `services/dfmea.md: line ${line}: the sample-voice passage is never closed`,
      );
    });

    it("fail with every misplaced marker of the editions at once, each naming its file", () => {
      writeFileSync(path.join(copy.root, "01-a.md"), "Text\n<!-- sample-voice -->\n");
      writeFileSync(path.join(copy.root, "02-b.md"), "Text <!-- sample-voice -->\n");
      const editions = [{ dir: copy.root, label: "newsletter" }];
      expect(() => findSamplePassages(editions)).toThrow(
        "newsletter/01-a.md: line 2: the sample-voice passage is never closed (<!-- /sample-voice -->)\n" +
          "newsletter/02-b.md: line 1: a sample-voice marker goes on a line of its own",
      );
    });

    it("are listed file by file, FORMAT.md aside", () => {
      const inSoap = (passages: { file: string }[]) =>
        passages.filter((passage) => passage.file === "content/science/soap.md").length;
      const before = findSamplePassages([{ dir: copy.root, label: "content" }]);
      const file = path.join(copy.root, "science/soap.md");
      writeFileSync(file, `${readFileSync(file, "utf8")}\n${marked}\n`);
      writeFileSync(path.join(copy.root, "FORMAT.md"), `# Format\n\n${marked}\n`);
      const after = findSamplePassages([{ dir: copy.root, label: "content" }]);
      expect(after).toHaveLength(before.length + 1);
      expect(inSoap(after)).toBe(inSoap(before) + 1);
    });
  });
});
