import { describe, expect, it } from "vitest";
import { robotsTxt } from "./robots.ts";

type Rule = { allow: boolean; path: string };

function rulesOf(text: string): Rule[] {
  return text
    .split("\n")
    .map((line) => /^(Allow|Disallow):\s*(\S*)/i.exec(line.trim()))
    .filter((match) => match !== null)
    .map((match) => ({ allow: match[1]?.toLowerCase() === "allow", path: match[2] ?? "" }))
    .filter((rule) => rule.path !== "");
}

/** The original robots.txt convention, which many crawlers follow: the first rule that matches wins. */
function firstMatch(rules: Rule[], path: string): boolean {
  return rules.find((rule) => path.startsWith(rule.path))?.allow ?? true;
}

/** RFC 9309 (Google, Bing): the longest matching rule wins, Allow on a tie. */
function longestMatch(rules: Rule[], path: string): boolean {
  const matching = rules
    .filter((rule) => path.startsWith(rule.path))
    .sort((a, b) => b.path.length - a.path.length || Number(b.allow) - Number(a.allow));
  return matching[0]?.allow ?? true;
}

describe("robots.txt", () => {
  const text = robotsTxt("https://engage-with-engineer.example");
  const rules = rulesOf(text);

  it.each([
    ["/", true],
    ["/science", true],
    ["/science/wifi", true],
    ["/feed.json", true],
    ["/api/items/science/wifi/comments", false],
    ["/api/events", false],
    ["/admin", false],
    ["/admin/", false],
    ["/admin/comments", false],
  ])("%s is %s to crawl, whichever rule a crawler lets win", (path, allowed) => {
    expect(firstMatch(rules, path)).toBe(allowed);
    expect(longestMatch(rules, path)).toBe(allowed);
  });

  it("names the sitemap and applies to every crawler", () => {
    expect(text.startsWith("User-agent: *\n")).toBe(true);
    expect(text).toContain("Sitemap: https://engage-with-engineer.example/sitemap.xml\n");
  });
});
