import type { Actor } from "@fedify/fedify/vocab";
import { decodeHtmlEntities } from "../../contract/html.ts";
import { limits } from "../../contract/limits.ts";
import {
  hasVisibleCharacter,
  withFewMarksPerCharacter,
  withoutControlOrDirectionCharacters,
  withoutHiddenCharacters,
} from "../../contract/text.ts";

/*
 * A post from another server as a comment's Markdown: its HTML reduced to
 * paragraphs, line breaks and links (the comment renderer makes the HTML
 * again, so none of theirs reaches a page), the mentions of the site's own
 * account dropped, a content warning kept as the first line, and the whole
 * held to a comment's length; and its writer's name and handle as one line
 * each, as the comment form would take a name.
 */

/**
 * Characters that would make Markdown of plain text; "&" too, as "&rlm;" or "&lt;" written
 * as text would be rendered as the character it names.
 */
const markdownSpecial = /([\\`*_[\]<>#&])/g;

/**
 * A tag, an element and a link, each matched without running past the next
 * `<` that could begin another: anyone's server can send 250 kB of `<a ` or
 * `<a href="…">` without an end, and /<a\b([^>]*)>([\s\S]*?)<\/a>/ tried
 * each one to the end of the text: 100 s of the event loop for one post.
 */
const tag = /<[^<>]*>/g;
const element = /<(script|style)\b[^<]*(?:<(?!\/?\1\b)[^<]*)*<\/\1\s*>/gi;
const link = /<a\b([^<>]*)>([^<]*(?:<(?!\/?a\b)[^<]*)*)<\/a\s*>/gi;

/**
 * The HTML without its comments, which no reader of the post sees (one left
 * open runs to the end, as a browser reads it): a link inside one would
 * otherwise show here. Found in linear time, as the patterns above.
 */
function withoutComments(html: string): string {
  let kept = "";
  let at = 0;
  for (let open = html.indexOf("<!--"); open !== -1; open = html.indexOf("<!--", at)) {
    kept += html.slice(at, open);
    const close = html.indexOf("-->", open + 4);
    if (close === -1) return kept;
    at = close + 3;
  }
  return kept + html.slice(at);
}

function inlineText(html: string): string {
  return decodeHtmlEntities(html.replace(tag, "")).replace(markdownSpecial, "\\$1");
}

export function noteMarkdown(
  html: string,
  {
    contentWarning,
    dropMentionsOf,
  }: { contentWarning?: string | null; dropMentionsOf: readonly string[] },
): string {
  // U+E000 (private use) marks where each link goes back in: none of theirs may pose as one.
  const withoutScripts = withoutComments(html.replaceAll("\uE000", "")).replace(element, "");
  const links: string[] = [];
  const linked = withoutScripts.replace(link, (_whole, attributes: string, inner: string) => {
    const href = /\bhref\s*=\s*"([^"]*)"/i.exec(attributes)?.[1];
    const label = inlineText(inner).trim();
    const target = href ? decodeHtmlEntities(href) : "";
    if (dropMentionsOf.includes(target)) return "";
    const plain =
      /\b(mention|hashtag)\b/.test(attributes) ||
      !/^https?:\/\/[^\s()<>]+$/i.test(target) ||
      label === "";
    // A link that shows its own address is an autolink: bare, the renderer links nothing, and
    // reads the address's `_` and `*` as emphasis ("/__init__" shown as a bold "/init").
    links.push(
      plain
        ? label
        : label.replaceAll("\\", "") === target
          ? `<${target}>`
          : `[${label}](${target})`,
    );
    return `\uE000${links.length - 1}\uE000`;
  });
  const blocks = linked
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/(p|div|blockquote|li|h[1-6])\s*>/gi, "\n\n")
    .replace(tag, "");
  const text = decodeHtmlEntities(blocks)
    .replace(markdownSpecial, "\\$1")
    .replace(/\uE000(\d+)\uE000/g, (_whole, index: string) => links[Number(index)] ?? "")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  const warning = contentWarning?.trim()
    ? `**Content warning: ${inlineText(contentWarning).trim()}**\n\n`
    : "";
  const whole = `${warning}${text}`;
  const cut =
    whole.length <= limits.commentMax
      ? whole
      : `${whole.slice(0, limits.commentMax - 1).trimEnd()}…`;
  // Raw or as references (`&#x202E;`), they would disguise it or command a terminal; and
  // after the cut, which may leave half an emoji.
  return withoutControlOrDirectionCharacters(cut);
}

/**
 * One line of text from elsewhere, at most `max` UTF-16 units (as the comment
 * form counts them) without half an emoji, nothing to disguise it or command a
 * terminal, and at most a few marks on a character.
 */
export function remoteLine(text: string, max: number): string {
  let line = "";
  for (const character of withFewMarksPerCharacter(withoutHiddenCharacters(text))) {
    if (line.length + character.length > max) break;
    line += character;
  }
  return line.trim();
}

/**
 * A display name a comment can carry, as the comment form takes one
 * (`userNameSchema`): one line, at most 40 UTF-16 units, a few marks on a
 * character; `fallback` when nothing of it shows (blank characters such as
 * U+3164).
 */
export function remoteName(name: { toString(): string } | null | undefined, fallback: string) {
  const line = remoteLine(String(name ?? "").replace(/:[a-z0-9_]+:/gi, ""), limits.userNameMax);
  return hasVisibleCharacter(line) ? line : remoteLine(fallback, limits.userNameMax);
}

/** The longest account name a handle shows, in characters. */
const usernameMax = 64;

/**
 * `@name@host` from an actor, without a WebFinger lookup. The name is another
 * server's word, shown under a comment and in the owner's console and terminal:
 * control, invisible and space characters go (they would disguise it, or
 * command a terminal), and a long one is cut.
 */
export function handleOf(actor: Pick<Actor, "id" | "preferredUsername">): string {
  const host = actor.id?.host ?? "unknown";
  const given = withFewMarksPerCharacter(
    withoutHiddenCharacters(actor.preferredUsername?.toString() ?? ""),
  );
  // An "@" in it would make a second server of its text: "@support@bank.example@their.host".
  const name = [...given.replace(/[\p{Co}\p{Cn}\s@]/gu, "")];
  const shown =
    name.length > usernameMax ? `${name.slice(0, usernameMax - 1).join("")}…` : name.join("");
  return `@${shown || "someone"}@${host}`;
}
