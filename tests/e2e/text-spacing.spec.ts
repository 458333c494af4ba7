import type { Page } from "@playwright/test";
import { sections, siteItems } from "../../content/items.ts";
import { builtPages, firstOfEachSource } from "./support/built-pages.ts";
import { siteContent } from "./support/content.ts";
import { expect, test } from "./support/fixtures.ts";

/*
 * Words run together where a line of a page's source ended beside a link or
 * another inline element: JSX drops a line break between text and an element,
 * and so does Astro's HTML compression, so "write to" + a newline + <a> reads
 * "write toowner@example.com". One page of each page source, and the first
 * item of each section, is read as a reader without JavaScript sees it (the
 * <noscript> text shown, the server's fragments filled in), and each inline
 * element's text must not touch a letter or digit of the text beside it on
 * the same line of text. The other pages of a source differ from its first in
 * the owner's writing, whose Markdown the built pages' check reads on every
 * page for the same fault (`ewe/words-apart`, scripts/validate-html.ts,
 * docs/decisions/068-what-a-page-loads-checked-without-a-browser.md). The
 * console's screens are not read: without a session each is its sign-in
 * page, which is.
 */

/** Inline elements whose text a reader reads as words of their own. */
const wordElements = "a, strong, em, b, i, code, time, abbr, kbd";

/**
 * The places in `page` where an inline element's text runs into a letter or
 * digit before or after it, each as the words around the join ("write to|owner@…").
 */
function gluedWords(page: Page) {
  return page.evaluate((selector) => {
    const word = /[\p{L}\p{N}]/u;
    // A word, or the punctuation that a space follows ("terms:owner@…").
    const wordOrStop = /[\p{L}\p{N},:;!?]/u;
    const texts: Text[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || ["SCRIPT", "STYLE", "TEMPLATE"].includes(parent.tagName)) continue;
      if ((node.textContent ?? "") !== "") texts.push(node as Text);
    }
    const order = new Map(texts.map((text, index) => [text, index]));
    // Only text laid out on one line with the element counts: every element
    // between the two (up to the one that holds both) must be inline. A flex
    // or grid item is laid out as a block, and so is a hidden one.
    const inline = (element: Element) => getComputedStyle(element).display === "inline";
    const sameLine = (text: Text, element: Element) => {
      let shared: Element | null = element.parentElement;
      while (shared && !shared.contains(text)) shared = shared.parentElement;
      if (!shared) return false;
      for (let at: Element | null = element; at && at !== shared; at = at.parentElement) {
        if (!inline(at)) return false;
      }
      for (let at = text.parentElement; at && at !== shared; at = at.parentElement) {
        if (!inline(at)) return false;
      }
      return true;
    };
    const found: string[] = [];
    for (const element of document.body.querySelectorAll(selector)) {
      const own = element.textContent ?? "";
      if (own.trim() === "" || !inline(element)) continue;
      const inside = texts.filter((text) => element.contains(text));
      const first = inside[0];
      const last = inside.at(-1);
      if (!first || !last) continue;
      const before = texts[(order.get(first) ?? 0) - 1];
      const after = texts[(order.get(last) ?? 0) + 1];
      const beforeText = before?.textContent ?? "";
      const afterText = after?.textContent ?? "";
      if (
        before &&
        sameLine(before, element) &&
        wordOrStop.test(beforeText.at(-1) ?? "") &&
        word.test(own[0] ?? "")
      ) {
        found.push(`${beforeText.slice(-20)}|${own.slice(0, 20)}`);
      }
      if (
        after &&
        sameLine(after, element) &&
        word.test(own.at(-1) ?? "") &&
        word.test(afterText[0] ?? "")
      ) {
        found.push(`${own.slice(-20)}|${afterText.slice(0, 20)}`);
      }
    }
    return found;
  }, wordElements);
}

const built = builtPages();
const items = siteItems(siteContent());
/** The first item of each section: the item template's parts differ by section. */
const firstItems = sections.flatMap(
  (section) => items.find((item) => item.section.id === section.id)?.path ?? [],
);
const first = firstOfEachSource(built);
const pages = built.filter(
  (page) =>
    (first.has(page) || firstItems.includes(page)) &&
    (page === "/admin/sign-in" || !page.startsWith("/admin")),
);
/** Two halves, one for each of the browser tests' workers. */
const halves = [pages.filter((_, index) => index % 2 === 0), pages.filter((_, index) => index % 2)];

test.describe("no words run together beside a link, without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("a page of each source is read, and each section's first item", () => {
    expect(pages).toContain("/newsletter/expired");
    expect(pages).toContain("/admin/sign-in");
    expect(pages).toEqual(expect.arrayContaining(firstItems));
    expect(firstItems).toHaveLength(sections.length);
  });

  halves.forEach((half, index) => {
    test(`built pages, ${index === 0 ? "first" : "second"} half`, async ({ page }) => {
      test.slow(); // a dozen pages, one after the other
      const glued: Record<string, string[]> = {};
      for (const path of half) {
        const response = await page.goto(path);
        expect(response?.status(), path).toBe(200);
        const found = await gluedWords(page);
        if (found.length > 0) glued[path] = found;
      }
      expect(glued).toEqual({});
    });
  });
});
