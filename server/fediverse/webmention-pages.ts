import type { DefaultTreeAdapterMap } from "parse5";
import type { ShownMention } from "../../contract/fediverse.ts";
import { decodeHtmlEntities } from "../../contract/html.ts";
import { hasVisibleCharacter } from "../../contract/text.ts";
import { showsAnotherSite } from "../comments/markdown.ts";
import { indexedBytes } from "../db/columns.ts";
import type { RemoteAnswer } from "../lib/safe-fetch.ts";
import { remoteLine } from "./note-text.ts";

/*
 * What a page says to Webmention (docs/fediverse.md, "Webmention"): the
 * addresses it links to, its h-entry (read with microformats-parser: who
 * wrote it, what it says, and whether it is a reply, a like, a repost or a
 * mention), and the endpoint it advertises for mentions of itself.
 */

/** An address from elsewhere, written out as it is stored: what the database's index holds. */
const urlMax = indexedBytes.link;
const nameMax = 100;
const contentMax = 1000;
/** An HTML attribute's value, quoted either way or not at all. */
const attribute = String.raw`\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))`;
const attributeValue = (match: RegExpMatchArray | null) =>
  match?.[1] ?? match?.[2] ?? match?.[3] ?? "";

/**
 * An http(s) address without its fragment, or null; null too when, written out
 * as it is stored, it is longer than `urlMax` bytes: 1,918 characters of "é"
 * are 11,508 once %-escaped.
 */
export function webAddress(value: string, base?: string): URL | null {
  if (value.length > urlMax) return null;
  const url = URL.parse(value, base);
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) return null;
  if (url.username || url.password) return null;
  url.hash = "";
  return Buffer.byteLength(url.href) > urlMax ? null : url;
}

/** Whether an answer of this Content-Type is a page: HTML, or XHTML. */
export const isPage = (type: string) => /^(text\/html|application\/xhtml\+xml)\s*(;|$)/i.test(type);

/** Two addresses for the same page: the same but for a trailing slash. */
export const samePage = (a: URL, b: URL) =>
  a.origin === b.origin &&
  a.search === b.search &&
  a.pathname.replace(/\/$/, "") === b.pathname.replace(/\/$/, "");

/** The elements whose address a reader of the page follows or sees: a link, an image, a player. */
const shownAddress: Record<string, string> = {
  a: "href",
  area: "href",
  img: "src",
  video: "src",
  audio: "src",
  source: "src",
};
/** Elements never shown, whatever they hold: their addresses are no link of the page's. */
const neverShown = new Set(["head", "script", "style", "template", "noscript", "title"]);
/** An inline style that hides its element. */
const hiding =
  /(^|;)\s*(display\s*:\s*none|visibility\s*:\s*(hidden|collapse))\s*(!important\s*)?(;|$)/i;

type Parse5Node = DefaultTreeAdapterMap["node"];

/**
 * Every address a page shows a reader, as a link or an image, resolved
 * against `base`: not one in a comment, a script, a template or the head, nor
 * in an element hidden by its `hidden` attribute or its inline style (a link
 * its readers never see says nothing to them of the item), nor text that only
 * reads like an attribute. Read as the HTML parser builds the page, within its
 * limits (`parsedWithin`); a page past them throws.
 */
export async function linksOf(html: string, base: string): Promise<URL[]> {
  const document = parsedWithin(html, await import("parse5"));
  const links: URL[] = [];
  const stack: Parse5Node[] = [document];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (!("childNodes" in node)) continue;
    if ("tagName" in node) {
      const { tagName, attrs } = node;
      const named = (name: string) => attrs.find((one) => one.name === name)?.value;
      if (neverShown.has(tagName) || named("hidden") !== undefined) continue;
      if (hiding.test(named("style") ?? "")) continue;
      const address = named(shownAddress[tagName] ?? "");
      const url = address === undefined ? null : webAddress(address.trim(), base);
      if (url) links.push(url);
    }
    stack.push(...node.childNodes);
  }
  return links;
}

/**
 * Another site's words as one line (`remoteLine`, as a Fediverse writer's
 * name), cut with "…", and empty when nothing of them shows (blank
 * characters such as U+3164).
 */
const oneLine = (text: string, max: number) => {
  const whole = remoteLine(text, Number.POSITIVE_INFINITY);
  if (!hasVisibleCharacter(whole)) return "";
  return whole.length > max ? `${remoteLine(whole, max - 1)}…` : whole;
};

type Mf2Item = { type?: string[]; properties?: Record<string, unknown[]>; children?: Mf2Item[] };

function firstEntry(items: Mf2Item[]): Mf2Item | null {
  for (const item of items) {
    if (item.type?.includes("h-entry")) return item;
    const inside = firstEntry(item.children ?? []);
    if (inside) return inside;
  }
  return null;
}

const stringOf = (value: unknown): string | null => {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "value" in value) {
    const inner = (value as { value: unknown }).value;
    return typeof inner === "string" ? inner : null;
  }
  return null;
};

/** What an h-entry's property naming the target makes of it, the first that does. */
const answers = { "like-of": "like", "repost-of": "repost", "in-reply-to": "reply" } as const;

/** Deepest nesting of a page's elements read for its h-entry: real pages nest a few dozen. */
const depthMax = 1000;
/**
 * Most elements a page may make the parser build: a blog post with its comments
 * makes a few thousand. Each costs some 15 µs of the event loop between the
 * parser and the h-entry reader: 100,000 held it 1.2 to 2.4 seconds a check.
 */
const elementsMax = 10_000;
/** Most elements of a page with a microformats class (`h-entry`, `p-name`, …): a real page has dozens. */
const markedMax = 2000;

/**
 * The page as the HTML parser builds it, or a throw when that would take too
 * long or too much memory: it is built by the parser the h-entry reader uses,
 * counting as it goes. The parser's work for each element grows with the
 * depth it opens at (1 MB of `<div>` held the event loop for minutes), and a
 * few kilobytes can make it build millions of elements (a thousand bold
 * elements left open are made anew in each block after: 34 kB took 8 seconds
 * and 750 MB). Counted by the parser itself, no way of writing a tag escapes.
 */
function parsedWithin(html: string, { defaultTreeAdapter, parse }: Parse5) {
  const depths = new WeakMap<object, number>();
  let elements = 0;
  let marked = 0;
  const placed = (parent: object, child: object) => {
    const depth = (depths.get(parent) ?? 0) + 1;
    if (depth > depthMax) throw new Error(`its elements nest deeper than ${depthMax}`);
    depths.set(child, depth);
  };
  const counting: typeof defaultTreeAdapter = {
    ...defaultTreeAdapter,
    createElement(tagName, namespace, attributes) {
      elements += 1;
      if (elements > elementsMax) throw new Error(`it makes over ${elementsMax} elements`);
      const classes = attributes.find(({ name }) => name === "class")?.value ?? "";
      if (/(^|\s)(h|p|u|e|dt)-/.test(classes) && ++marked > markedMax) {
        throw new Error(`it has over ${markedMax} elements with microformats classes`);
      }
      return defaultTreeAdapter.createElement(tagName, namespace, attributes);
    },
    appendChild(parent, child) {
      placed(parent, child);
      defaultTreeAdapter.appendChild(parent, child);
    },
    insertBefore(parent, child, reference) {
      placed(parent, child);
      defaultTreeAdapter.insertBefore(parent, child, reference);
    },
  };
  return parse(html, { treeAdapter: counting });
}

/** The HTML parser, loaded with the first page read (as microformats-parser, which uses it). */
type Parse5 = typeof import("parse5");

/**
 * A mentioning page, built by the parser once within its limits (a page past
 * them throws): the addresses it shows (`linksOf`), and, asked for once these
 * name the item, its h-entry, read in a later turn of the event loop, so the
 * two halves of the work are not one stall.
 */
export async function readSource(html: string, source: URL) {
  const links = await linksOf(html, source.href);
  return {
    links,
    entry: async (target: URL) => {
      await new Promise((resolve) => setImmediate(resolve));
      return entryOf(html, source, target);
    },
  };
}

/** Who wrote the page, what it says and how it answers `target`, from its h-entry. */
async function entryOf(
  html: string,
  source: URL,
  target: URL,
): Promise<Omit<ShownMention, "id" | "source">> {
  const { mf2 } = await import("microformats-parser");
  const entry = firstEntry(mf2(html, { baseUrl: source.href }).items as Mf2Item[]);
  const props = entry?.properties ?? {};
  const names = (key: string) =>
    (props[key] ?? []).some((value) => {
      const url = webAddress(stringOf(value) ?? "");
      const inner =
        value && typeof value === "object" && "properties" in value
          ? webAddress(String((value as Mf2Item).properties?.url?.[0] ?? ""))
          : null;
      return (url && samePage(url, target)) || (inner && samePage(inner, target));
    });
  const kind = Object.entries(answers).find(([property]) => names(property))?.[1] ?? "mention";
  const author = props.author?.[0];
  let authorName: string | null = null;
  let authorUrl: string | null = null;
  if (author && typeof author === "object" && "properties" in author) {
    const card = (author as Mf2Item).properties ?? {};
    authorName = stringOf(card.name?.[0]) ?? stringOf(author);
    authorUrl = webAddress(stringOf(card.url?.[0]) ?? "", source.href)?.href ?? null;
  } else if (author !== undefined) {
    const text = stringOf(author) ?? "";
    const asUrl = /^https?:\/\//i.test(text) ? webAddress(text) : null;
    if (asUrl) authorUrl = asUrl.href;
    else authorName = text;
  }
  const content = stringOf(props.content?.[0]) ?? stringOf(props.summary?.[0]);
  const name = authorName ? oneLine(authorName, nameMax) : "";
  return {
    kind,
    // The name links to the author's page: one that reads as another site's address
    // would send readers where it does not say, so the page's host stands in its place.
    authorName: name === "" || (authorUrl && showsAnotherSite(name, authorUrl)) ? null : name,
    authorUrl,
    content:
      kind === "like" || kind === "repost" || !content
        ? null
        : oneLine(content, contentMax) || null,
  };
}

/** The endpoint a fetched page advertises (its Link header first, then its HTML), or null. */
export function advertisedEndpoint(answer: RemoteAnswer): URL | null {
  const linkHeaders = [answer.headers.link ?? []].flat().join(",");
  for (const part of linkHeaders.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match && /;\s*rel\s*=\s*"?[^"]*\bwebmention\b/i.test(match[2] ?? "")) {
      return webAddress(match[1] ?? "", answer.url);
    }
  }
  if (!isPage(String(answer.headers["content-type"] ?? ""))) return null;
  const href = linkedHref(answer.body.toString("utf8"), (attribute) =>
    attribute("rel").toLowerCase().split(/\s+/).includes("webmention"),
  );
  return href === null ? null : webAddress(href, answer.url);
}

/**
 * The address of a page's first `<link>` or `<a>` that `wanted` takes (given
 * its attributes), entities decoded; null when none does. In linear time: a
 * tag ends before the next `<` (/<a\s[^>]*>/ read each of 400 kB of `<a ` to
 * the page's end). An address longer than any real one is passed over before
 * it is decoded: a page's 1 MB `href` took a second and a half to decode.
 */
export function linkedHref(
  html: string,
  wanted: (attribute: (name: string) => string) => boolean,
): string | null {
  for (const [tag] of html.matchAll(/<(?:link|a)\s[^<>]*>/gi)) {
    const attributeOf = (name: string) => attributeValue(attributePattern(name).exec(tag));
    const href = attributePattern("href").exec(tag);
    const value = attributeValue(href);
    if (href && value.length <= 2 * urlMax && wanted(attributeOf)) return decodeHtmlEntities(value);
  }
  return null;
}

/** Each attribute's pattern, made once: made for each of a page's 200,000 tags, it took 4 times the scan's time. */
const attributePatterns = new Map<string, RegExp>();
function attributePattern(name: string): RegExp {
  let pattern = attributePatterns.get(name);
  if (!pattern) {
    pattern = new RegExp(String.raw`\s${name}${attribute}`, "i");
    attributePatterns.set(name, pattern);
  }
  return pattern;
}
