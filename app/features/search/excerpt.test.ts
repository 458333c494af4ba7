import { describe, expect, it } from "vitest";
import { decodeHtmlText, excerptParts } from "./excerpt.ts";

describe("search excerpts", () => {
  it("splits Pagefind's marks into matched and plain parts", () => {
    expect(
      excerptParts("Why does a <mark>pressure</mark> <mark>cooker</mark> cook faster?"),
    ).toEqual([
      { text: "Why does a ", match: false },
      { text: "pressure", match: true },
      { text: " ", match: false },
      { text: "cooker", match: true },
      { text: " cook faster?", match: false },
    ]);
  });

  it("decodes escaped text and never lets markup through", () => {
    expect(excerptParts("A &lt;b&gt; &amp; <mark>DFMEA</mark> &#8211; &#x2713;")).toEqual([
      { text: "A <b> & ", match: false },
      { text: "DFMEA", match: true },
      { text: " – ✓", match: false },
    ]);
    expect(decodeHtmlText('<img src=x onerror="alert(1)">text')).toBe("text");
    expect(decodeHtmlText("&unknown; &#99999999;")).toBe("&unknown; &#99999999;");
  });
});
