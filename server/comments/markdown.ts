import MarkdownIt from "markdown-it";
import { limits } from "../../contract/limits.ts";
import { hasNoControlOrDirectionCharacters } from "../../contract/text.ts";

/*
 * The Markdown readers may write in comments (docs/product.md, "Comments"):
 * paragraphs, emphasis, strong, inline code, fenced code, block quotes, lists
 * and http(s) links. Everything else stays as typed: raw HTML is text, an
 * image or a heading is its symbols. Rendered here once per write and stored
 * beside the source, so every answer, live event and served page carries the
 * same HTML and the browser needs no parser.
 */

const parser = new MarkdownIt("zero", {
  // Raw HTML in a comment is escaped, never passed through.
  html: false,
  // A line break in the text is one on the page, as readers expect of a comment box.
  breaks: true,
  linkify: false,
  typographer: false,
  maxNesting: 20,
}).enable([
  "fence",
  "blockquote",
  "list",
  "newline",
  "escape",
  "backticks",
  "emphasis",
  "link",
  "autolink",
  "entity",
]);

/** Only absolute web links: no javascript:, data:, mailto: or relative targets. */
parser.validateLink = (url: string) => /^https?:\/\/[^\s/]/i.test(url.trim());

const rel = "nofollow ugc noopener";
parser.renderer.rules.link_open = (tokens, index, options, _env, self) => {
  tokens[index]?.attrSet("rel", rel);
  return self.renderToken(tokens, index, options);
};

type Token = ReturnType<typeof parser.parse>[number];

/**
 * The text as a page shows it, for the text rules: character references
 * ("c&#97;sino") and backslash escapes ("bit\.ly") resolved, as the renderer
 * resolves them, but code as typed, as the page shows it; emphasis marks and
 * links' brackets gone, so that "ca**s**ino" and "[ca](…)sino" read "casino";
 * where the links lead after the text. No blocked word, address or link hides
 * behind Markdown, and code written with escapes is not read as what it escapes.
 */
export function shownText(source: string): string {
  const blocks: string[] = [];
  const targets: string[] = [];
  for (const block of parser.parse(source, {})) {
    if (block.type === "fence") blocks.push(block.content);
    if (block.type !== "inline") continue;
    let shown = "";
    for (const token of block.children ?? []) {
      if (token.type === "text" || token.type === "code_inline") shown += token.content;
      else if (token.type === "softbreak" || token.type === "hardbreak") shown += "\n";
      else if (token.type === "link_open") {
        targets.push(parser.normalizeLinkText(String(token.attrGet("href") ?? "")));
      }
    }
    blocks.push(shown);
  }
  return [...blocks, ...targets].join("\n\n");
}

/** Comment text as the HTML every reader sees. */
export function renderComment(source: string): string {
  return parser.render(source).trim();
}

/** A word that reads as a web address: "example.com", "https://x.org/a", "192.0.2.7". */
const addressLike =
  /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:(?:[\p{L}\p{N}-]+\.)+[\p{L}]{2,}|\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?(?:[/?#]\S*)?$/iu;

/** Dots of other scripts and widths that a browser's address bar would read as ".". */
const dotLike = /[。．｡︒]/gu;
const invisible = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu;

/**
 * The addresses a link's text shows, as a reader would take them: the whole
 * text when it is one word, and any word with a scheme, "www." or an IP
 * address; compatibility forms folded, look-alike dots as dots, invisible
 * characters (a soft hyphen, a zero-width space) gone, and the sentence's
 * punctuation after an address ("paypal.com.") left off.
 */
function addressesShown(text: string): string[] {
  const words = text
    .normalize("NFKC")
    .replace(dotLike, ".")
    .replace(invisible, "")
    .split(/\s+/)
    .map((word) => word.replace(/[.,;:!?)\]'"]+$/u, "").replace(/^[(['"]+/u, ""))
    .filter((word) => word !== "");
  const marked = /^(?:[a-z][a-z0-9+.-]*:\/\/|www\.|\d{1,3}(?:\.\d{1,3}){3}(?![\p{L}\p{N}.]))/iu;
  return words.filter(
    (word) => addressLike.test(word) && (words.length === 1 || marked.test(word)),
  );
}

function hostOf(address: string): string | null {
  const url = URL.parse(/^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `http://${address}`);
  return url ? url.hostname.replace(/^www\./, "").replace(/\.$/, "") : null;
}

/** One host is the other, or under it ("en.wikipedia.org" and "wikipedia.org"). */
const sameSite = (a: string, b: string) => a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`);

/**
 * Whether a link's text shows the address of another site than its `href`
 * leads to ("paypal.com" on a link to evil.example): how phishing hides
 * where a link goes, in a comment or in a name linked to its writer's page.
 */
export function showsAnotherSite(text: string, href: string): boolean {
  const target = hostOf(href);
  return addressesShown(text)
    .map(hostOf)
    .some((host) => host !== null && target !== null && !sameSite(host, target));
}

/** The links of a parsed comment, each with the text it shows. */
function linksOf(tokens: Token[]): { href: string; text: string }[] {
  const links: { href: string; text: string }[] = [];
  for (const block of tokens) {
    let open: { href: string; text: string } | null = null;
    for (const token of block.children ?? []) {
      if (token.type === "link_open") {
        open = { href: String(token.attrGet("href") ?? ""), text: "" };
      } else if (token.type === "link_close" && open) {
        links.push(open);
        open = null;
      } else if (open) {
        open.text += token.content;
      }
    }
  }
  return links;
}

/** How deep quotes and lists go inside each other. */
function nestingOf(tokens: Token[]): number {
  let depth = 0;
  let deepest = 0;
  for (const token of tokens) {
    if (!/^(?:blockquote|bullet_list|ordered_list)_/.test(token.type)) continue;
    depth += token.nesting;
    deepest = Math.max(deepest, depth);
  }
  return deepest;
}

type MarkdownRefusal = {
  status: 400 | 422;
  code: "validation_failed" | "blocked_content";
  message: string;
};

/**
 * Why this comment's Markdown cannot be posted, or null. A text-direction
 * character written as a character reference would show as the character. A
 * link whose text is itself the address of another site is how phishing hides
 * where a link goes; quotes and lists nested deeper than a conversation needs
 * only break the layout.
 */
export function markdownRefusal(source: string): MarkdownRefusal | null {
  const tokens = parser.parse(source, {});
  // A character reference ("&#x202E;") renders as the character it names: held to the
  // rule the character typed is held to (commentContentSchema), or it reverses the page's text.
  if (!hasNoControlOrDirectionCharacters(parser.renderer.render(tokens, parser.options, {}))) {
    return {
      status: 400,
      code: "validation_failed",
      message:
        "Comments cannot contain control or text-direction characters, typed or written as character references such as &#x202E;.",
    };
  }
  if (nestingOf(tokens) > limits.commentNestingMax) {
    return {
      status: 400,
      code: "validation_failed",
      message: `Quotes and lists can be nested at most ${limits.commentNestingMax} deep in a comment.`,
    };
  }
  for (const link of linksOf(tokens)) {
    if (showsAnotherSite(link.text, link.href)) {
      const text = link.text.trim();
      return {
        status: 422,
        code: "blocked_content",
        message: `The link text "${text}" shows the address of another site than the one it leads to. Show the real address, or describe the link in words.`,
      };
    }
  }
  return null;
}
