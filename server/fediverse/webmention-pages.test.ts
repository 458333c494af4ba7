import { describe, expect, it } from "vitest";
import { advertisedEndpoint, linksOf, readSource } from "./webmention-pages.ts";

/** A page's h-entry, read as a mention's check reads it: the page built once, its links, then the entry. */
const readEntry = async (html: string, source: URL, target: URL) =>
  (await readSource(html, source)).entry(target);

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
  it("cuts a long name and text between characters, not through an emoji", async () => {
    const name = `${"a".repeat(98)}\u{1F469}${"b".repeat(1000)}`;
    const html = `<article class="h-entry"><a class="p-author h-card" href="https://eve.example/">${name}</a>
<p class="p-content">${"c".repeat(998)}\u{1F52C} <a href="https://ewe.test/science/soap">soap</a></p></article>`;
    const entry = await readEntry(
      html,
      new URL("https://eve.example/notes/1"),
      new URL("https://ewe.test/science/soap"),
    );
    expect(entry.authorName).toBe(`${"a".repeat(98)}…`);
    expect(entry.content).toBe(`${"c".repeat(998)}…`);
  });
  it("keeps at most five marks on a letter, and no name or text of blank characters alone", async () => {
    const stacked = (text: string, marks: number) =>
      [...text].map((letter) => `${letter}${"\u0301".repeat(marks)}`).join("");
    const read = (name: string, words: string) =>
      readEntry(
        `<article class="h-entry"><a class="p-author h-card" href="https://eve.example/">${name}</a><p class="p-content">${words}<a href="https://ewe.test/science/soap"></a></p></article>`,
        new URL("https://eve.example/notes/1"),
        new URL("https://ewe.test/science/soap"),
      );
    expect(await read(stacked("Eve", 40), stacked("Read this", 40))).toMatchObject({
      authorName: stacked("Eve", 5),
      content: stacked("Read this", 5),
    });
    // The page's host stands for a name that shows nothing; a text that shows nothing is none.
    expect(await read("\u3164\u3164", "\u2800 \u3164")).toMatchObject({
      authorName: null,
      content: null,
    });
  });
});

describe("a mentioning page's author", () => {
  const entryBy = (card: string) =>
    readEntry(
      `<article class="h-entry">${card}<p class="p-content">See <a href="https://ewe.test/science/soap">soap</a></p></article>`,
      new URL("https://eve.example/notes/1"),
      new URL("https://ewe.test/science/soap"),
    );

  it("loses a name that reads as another site's address than the page it links to", async () => {
    for (const name of ["paypal.com", "www.ewe.test", "Mail from https://bank.example/login"]) {
      const entry = await entryBy(
        `<a class="p-author h-card" href="https://evil.example/">${name}</a>`,
      );
      expect(entry.authorName, name).toBeNull();
      expect(entry.authorUrl).toBe("https://evil.example/");
    }
  });

  it("keeps a name that is an address of its own site, or is no address", async () => {
    for (const name of ["eve.example", "blog.eve.example", "Eve Rao", "Dr. Eve"]) {
      const entry = await entryBy(
        `<a class="p-author h-card" href="https://eve.example/">${name}</a>`,
      );
      expect(entry.authorName).toBe(name);
    }
  });
});

describe("a mentioning page nested without end", () => {
  it("is refused at once, not parsed for minutes", async () => {
    // 1 MB, the most a source is read: each `<div>` opened the parser's work on all the others.
    const html = `<a href="https://ewe.test/science/soap">soap</a>${"<div>".repeat(200_000)}`;
    const started = performance.now();
    await expect(
      readEntry(html, new URL("https://eve.example/"), new URL("https://ewe.test/science/soap")),
    ).rejects.toThrow("its elements nest deeper than 1000");
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("is refused however its tags are written, as the parser reads them", async () => {
    // A `<` inside an attribute hid each `<div>` from a count of tags by pattern.
    const html = `<a href="https://ewe.test/science/soap">soap</a>${'<div title="<">'.repeat(5000)}`;
    await expect(
      readEntry(html, new URL("https://eve.example/"), new URL("https://ewe.test/science/soap")),
    ).rejects.toThrow("its elements nest deeper than 1000");
  });

  it("is refused when a few kilobytes would make the parser build tens of thousands of elements", async () => {
    // Bold elements left open in a block are made anew in each block after it:
    // 34 kB of this made millions of elements, 8 seconds and 750 MB.
    const bold = Array.from({ length: 300 }, (_, i) => `<b id=${i}>`).join("");
    const html = `<a href="https://ewe.test/science/soap">soap</a><div>${bold}</div>${"<div>x</div>".repeat(400)}`;
    await expect(
      readEntry(html, new URL("https://eve.example/"), new URL("https://ewe.test/science/soap")),
    ).rejects.toThrow("it makes over 10000 elements");
  });

  it("is refused past 10,000 elements: 100,000 held the event loop a second and more", async () => {
    // The bound before: a page of 100,000 plain elements took 1.2 s of the event loop a check, in one stall.
    const many = (count: number) =>
      `<div class="h-entry"><p class="p-content"><a href="https://ewe.test/science/soap">soap</a></p>${"<i></i>".repeat(count)}</div>`;
    const read = (html: string) =>
      readEntry(html, new URL("https://eve.example/"), new URL("https://ewe.test/science/soap"));
    await expect(read(many(10_000))).rejects.toThrow("it makes over 10000 elements");
    expect((await read(many(9_500))).content).toBe("soap");
  });

  it("is refused with thousands of microformats, which the h-entry reader reads in quadratic time", async () => {
    // 340 kB of properties held the event loop 33 seconds.
    const html = `<div class="h-entry"><a href="https://ewe.test/science/soap">soap</a>${'<i class="p-x"></i>'.repeat(2001)}</div>`;
    await expect(
      readEntry(html, new URL("https://eve.example/"), new URL("https://ewe.test/science/soap")),
    ).rejects.toThrow("it has over 2000 elements with microformats classes");
  });

  it("reads a page nested as deep as real ones are, unclosed paragraphs and all", async () => {
    const html = `${"<div><section>".repeat(100)}<p>one<p>two${"<li>x".repeat(3000)}<article class="h-entry"><p class="p-content">See <a href="https://ewe.test/science/soap">soap</a></article>`;
    const entry = await readEntry(
      html,
      new URL("https://eve.example/"),
      new URL("https://ewe.test/science/soap"),
    );
    expect(entry.content).toBe("See soap");
  });
});

describe("a linked page's Webmention endpoint", () => {
  it("is looked for in a page of 400 kB of unclosed tags as quickly as in any other", () => {
    // The page is another site's, whatever the owner thought it was when linking to it.
    const html = `<a href="/about">About</a><p>${"<a ".repeat(130_000)}`;
    const started = performance.now();
    const endpoint = advertisedEndpoint({
      status: 200,
      url: "https://other.example/post",
      headers: { "content-type": "text/html" },
      body: Buffer.from(html),
    });
    expect(endpoint).toBeNull();
    // Each `<a ` was once read to the end of the page: minutes of the event loop.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("passes over an address longer than any real one, unread, for the next", () => {
    const long = `https://other.example/${"a&amp;".repeat(200_000)}`;
    const endpoint = advertisedEndpoint({
      status: 200,
      url: "https://other.example/post",
      headers: { "content-type": "text/html" },
      body: Buffer.from(
        `<link rel="webmention" href="${long}"><a rel=webmention href="/mentions">`,
      ),
    });
    expect(endpoint?.href).toBe("https://other.example/mentions");
  });
});

describe("a mentioning page's links", () => {
  const soap = "https://ewe.test/science/soap";
  const linked = async (html: string) =>
    (await linksOf(html, "https://eve.example/notes/1")).map((url) => url.href);

  it("are those its readers see: links, images and players, resolved against its address", async () => {
    const html = `<p><a href="${soap}">soap</a> <img src="/pictures/1.png" alt="">
<video src="https://cdn.example/v.mp4"></video><a href='../about'>me</a></p>`;
    expect(await linked(html)).toEqual(
      expect.arrayContaining([
        soap,
        "https://eve.example/pictures/1.png",
        "https://cdn.example/v.mp4",
        "https://eve.example/about",
      ]),
    );
  });

  it("are none in a comment, a script, a template, the head, a hidden element or text", async () => {
    for (const html of [
      `<!-- <a href="${soap}">soap</a> -->`,
      `<script>document.write('<a href="${soap}">')</script>`,
      `<template><a href="${soap}">soap</a></template>`,
      `<head><link rel="canonical" href="${soap}"></head>`,
      `<div hidden><a href="${soap}">soap</a></div>`,
      `<div hidden="until-found"><a href="${soap}">soap</a></div>`,
      `<span style="DISPLAY:none"><a href="${soap}">soap</a></span>`,
      `<span style="opacity: 1; visibility: hidden !important"><a href="${soap}">soap</a></span>`,
      `<p>Paste: href="${soap}" or <code>&lt;a href="${soap}"&gt;</code></p>`,
      `<p title=' href="${soap}"'>A title</p>`,
    ]) {
      expect(await linked(html), html).toEqual([]);
    }
  });
});
