import { describe, expect, it } from "vitest";
import { withCardAnchors, withoutItemCopies } from "./search-index.ts";

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

describe("a piece of writing is found once, on its own page", () => {
  const own = new Set(["/science/pressure-cooker", "/non-technical/career-planning"]);

  it("leaves out a list page's card of an item that has a page of its own, all it holds included", () => {
    const page =
      '<main><p>Everyday science.</p><details data-card="pressure-cooker" name="science" class="card"><summary><h3 id="pressure-cooker">Why?</h3></summary><p>Steam</p></details></main>';
    expect(withoutItemCopies(page, "science/index.html", own)).toBe(
      '<main><p>Everyday science.</p><details data-card="pressure-cooker" name="science" class="card" data-pagefind-ignore="all"><summary><h3 id="pressure-cooker" data-pagefind-ignore="all">Why?</h3></summary><p>Steam</p></details></main>',
    );
  });

  it("leaves out summaries that link to the item's page, whatever their element", () => {
    const page = '<article id="career-planning" class="flex"><h2>Career Planning</h2></article>';
    expect(withoutItemCopies(page, "non-technical/index.html", own)).toContain(
      '<article id="career-planning" class="flex" data-pagefind-ignore="all">',
    );
  });

  it("keeps what has no page of its own, and the item's own page", () => {
    const card = '<details data-card="kettle" class="card"><summary>Kettle</summary></details>';
    expect(withoutItemCopies(card, "science/index.html", own)).toBe(card);
    const elsewhere = '<section id="pressure-cooker">x</section>';
    expect(withoutItemCopies(elsewhere, "index.html", own)).toBe(elsewhere);
    expect(withoutItemCopies(elsewhere, "science/pressure-cooker/index.html", own)).toBe(elsewhere);
  });
});
