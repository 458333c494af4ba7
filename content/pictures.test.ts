import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { defaultContentRoot } from "./frontmatter.ts";

/*
 * Pictures carry text of their own (labels, titles), which the articles'
 * proofreading does not see; these say what the stories and posts say.
 */
const picture = (src: string) => readFileSync(path.join(defaultContentRoot, "images", src), "utf8");
const text = (svg: string) =>
  [...svg.matchAll(/<(?:text|title)[^>]*>([^<]*)</g)].map((match) => match[1]).join(" | ");

describe("the pictures agree with their text", () => {
  it("the starter motor: the key switches a relay, the solenoid tens of amps, the ratio 11:1 to 17:1", () => {
    const labels = text(picture("science/starter-motor.svg"));
    expect(labels).not.toMatch(/few amps/);
    expect(labels).toMatch(/key only switches a relay/);
    expect(labels).toMatch(/solenoid tens of amps/);
    expect(labels).toMatch(/ratio 11–17:1/);
    expect(labels).not.toMatch(/12:1/);
  });

  it("Sita sits under a shimshapa tree, in the Ashoka grove", () => {
    const labels = text(picture("mythology/sita-faith.svg"));
    expect(labels).toMatch(/beneath a shimshapa tree/);
    expect(labels).not.toMatch(/Ashoka tree/);
  });

  it("Nala is a king, and Bharata keeps the sandals at Nandigram", () => {
    expect(text(picture("mythology/nala-damayanti.svg"))).toMatch(/King Nala/);
    const bharata = text(picture("mythology/bharata-righteousness.svg"));
    expect(bharata).toMatch(/Nandigram/);
    expect(bharata).not.toMatch(/throne of Ayodhya/);
  });

  it("Bharata's throne is the gilded one the picture draws, and the sandals are decorated with gold as the story says", () => {
    const story = readFileSync(
      path.join(defaultContentRoot, "mythology/bharata-righteousness.md"),
      "utf8",
    );
    const alt = /^ {2}alt: "([^"]*)"$/m.exec(story)?.[1] ?? "";
    expect(story).toMatch(/sandals decorated with gold/);
    expect(alt).toMatch(/gilded throne/);
    expect(alt).toMatch(/gold-decorated sandals/);
    expect(alt).not.toMatch(/simple throne|wooden sandals/);
    // The picture's throne and sandals are drawn in the gold gradient and amber.
    const svg = picture("mythology/bharata-righteousness.svg");
    expect(svg).toMatch(/<!-- throne -->\s*<path [^>]*fill="url\(#gold\)"/);
    expect(text(svg)).toMatch(/gold-decorated sandals on a gilded throne/);
  });
});
