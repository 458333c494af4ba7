import { describe, expect, it } from "vitest";
import { withCardAnchors } from "./search-index.ts";

describe("the copy of a page the search index reads", () => {
  it("gives each card's title the card's id, so results lead to the card", () => {
    const page =
      '<details data-card="pressure-cooker" name="science" class="card"><summary class="card-summary"><h3 class="card-title">Why?</h3></summary><div><span id="pressure-cooker"></span><h3>Inside</h3></div></details>';
    expect(withCardAnchors(page)).toBe(
      '<details data-card="pressure-cooker" name="science" class="card"><summary class="card-summary"><h3 id="pressure-cooker" class="card-title">Why?</h3></summary><div><span id="pressure-cooker"></span><h3>Inside</h3></div></details>',
    );
  });

  it("leaves other headings alone", () => {
    const page =
      '<h2 id="question-heading">Questions</h2><details><summary><h3>x</h3></summary></details>';
    expect(withCardAnchors(page)).toBe(page);
  });
});
