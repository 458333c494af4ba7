import { describe, expect, it } from "vitest";
import { readEntry } from "./webmention-pages.ts";

describe("a mentioning page's h-entry", () => {
  it("keeps its author's name and its words as one line of text, without control or hidden characters", async () => {
    const html = `<article class="h-entry">
<a class="p-author h-card" href="https://eve.example/">\u001B]0;owned\u0007Eve\u202E Rao</a>
<p class="p-content">Read\u200B this\u001B[2J:
on\u0085<a href="https://ewe.test/science/soap">so\uFEFFap</a></p>
</article>`;
    const entry = await readEntry(
      html,
      new URL("https://eve.example/notes/1"),
      new URL("https://ewe.test/science/soap"),
    );
    expect(entry).toEqual({
      kind: "mention",
      authorName: "]0;ownedEve Rao",
      authorUrl: "https://eve.example/",
      content: "Read this[2J: on soap",
    });
  });
});
