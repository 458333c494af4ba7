import type { Page } from "@playwright/test";
import { builtPages } from "./support/built-pages.ts";
import { expect, test } from "./support/fixtures.ts";

/*
 * Words run together where a line of a page's source ended beside a link or
 * another inline element: JSX drops a line break between text and an element,
 * and so does Astro's HTML compression, so "write to" + a newline + <a> reads
 * "write toowner@example.com". Every built page is read as a reader without
 * JavaScript sees it (the <noscript> text shown, the server's fragments filled
 * in), and each inline element's text must not touch a letter or digit of the
 * text beside it on the same line of text.
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

const pages = builtPages();
/** Two halves, one for each of the browser tests' workers. */
const halves = [pages.filter((_, index) => index % 2 === 0), pages.filter((_, index) => index % 2)];

test.describe("no words run together beside a link, without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("every built page is read", () => {
    expect(pages).toContain("/newsletter/thanks");
    expect(pages.length).toBeGreaterThan(40);
  });

  halves.forEach((half, index) => {
    test(`built pages, ${index === 0 ? "first" : "second"} half`, async ({ page }) => {
      test.slow(); // forty pages, one after the other
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
