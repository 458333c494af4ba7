import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { convert } from "html-to-text";
import MarkdownIt from "markdown-it";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { withoutSampleVoiceMarkers } from "../../content/sample-voice-marker.ts";
import { escapeHtml } from "../../contract/html.ts";
import { layout } from "../outbox/mail-layout.ts";
import { absoluteLinks, type EditionLink } from "./edition-links.ts";
import { markupProblems } from "./edition-markup.ts";
import { type EditionBody, unsubscribePlaceholder } from "./messages.ts";

/**
 * An edition is a Markdown file with a YAML frontmatter block holding its
 * subject (docs/mail.md, "Newsletter editions"). Its slug, the file name without
 * `.md`, names it in the outbox: one edition is sent to an address once.
 */
const frontmatterSchema = z.strictObject({
  subject: z
    .string()
    .trim()
    .min(1, "is required")
    .max(200, "is at most 200 characters")
    .refine((subject) => !/[\r\n]/.test(subject), "must be one line"),
});

export type Edition = EditionBody & {
  slug: string;
  /** Its links and images, as written and as sent (checked by editionLinkProblems). */
  links: EditionLink[];
  /** What its raw HTML holds that a mail program removes, that acts, or that loads from elsewhere. */
  markup: string[];
};

export class EditionError extends Error {
  override name = "EditionError";
  /** True when there is no such file to read (or a folder stands in its place). */
  readonly missing: boolean;
  constructor(message: string, missing = false) {
    super(message);
    this.missing = missing;
  }
}

const slugPattern = /^[a-z0-9][a-z0-9-]{0,79}$/;

/** Reads and renders the edition in `file`; its site-relative links become absolute from `siteUrl`. */
export function readEdition(file: string, siteUrl: string): Edition {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      // An edition named by its slug ("04-first-week"): the file the owner likely meant.
      const meant = [`${file}.md`, path.join("newsletter", `${path.basename(file)}.md`)].find(
        (candidate) => !file.toLowerCase().endsWith(".md") && existsSync(candidate),
      );
      throw new EditionError(
        `There is no file ${file}.${meant ? ` Did you mean ${meant}?` : ""}`,
        true,
      );
    }
    if (code === "EISDIR") {
      throw new EditionError(`${file} is a folder: name the edition's .md file in it.`, true);
    }
    throw new EditionError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  const slug = path.basename(file).replace(/\.md$/i, "");
  if (!file.toLowerCase().endsWith(".md") || !slugPattern.test(slug)) {
    throw new EditionError(
      `${file}: an edition is a .md file named in lower case letters, digits and dashes (e.g. 2026-06-engines.md).`,
    );
  }
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(source);
  if (!match) throw new EditionError(`${file}: starts with no frontmatter (--- subject: … ---).`);
  const [, yaml = "", markdown = ""] = match;
  let data: unknown;
  try {
    data = parseYaml(yaml);
  } catch (error) {
    throw new EditionError(`${file}: the frontmatter is not YAML: ${(error as Error).message}`);
  }
  const parsed = frontmatterSchema.safeParse(data ?? {});
  if (!parsed.success) {
    // Zod's own words for a missing subject or another field say nothing of the fix.
    const problems = parsed.error.issues.map((issue) => {
      if (issue.code === "unrecognized_keys") {
        return `${issue.keys.join(", ")}: an edition's frontmatter holds its subject alone`;
      }
      const wording =
        issue.code === "invalid_type" ? "is required, one line of text" : issue.message;
      return `${issue.path.join(".") || "frontmatter"} ${wording}`;
    });
    throw new EditionError(`${file}: ${problems.join("; ")} (--- subject: … ---).`);
  }
  if (markdown.trim() === "") throw new EditionError(`${file}: the edition has no text.`);
  return { slug, ...renderEdition(parsed.data.subject, markdown, siteUrl) };
}

/**
 * The owner's Markdown as the pages' (content/markdown.ts), but raw HTML passes
 * through, and every link is kept as written: one that is no web address
 * reaches editionLinkProblems and the owner's warning instead of becoming text.
 */
const editionMarkdown = new MarkdownIt({ html: true, linkify: true });
editionMarkdown.validateLink = () => true;

/**
 * The edition's plain-text part: what the HTML says, as text a mail program
 * shows as it is. Links keep their address in brackets after their words
 * (once, when the words are the address), images their description and
 * address, lists their bullets and numbers; lines wrap at 78 characters.
 */
function plainText(html: string): string {
  return convert(html, {
    wordwrap: 78,
    selectors: [
      { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
      { selector: "h2", options: { uppercase: false, leadingLineBreaks: 2 } },
      { selector: "h3", options: { uppercase: false } },
      { selector: "h4", options: { uppercase: false } },
      { selector: "table", format: "dataTable" },
    ],
  });
}

/**
 * The edition in the mail template: HTML from the Markdown, with every link
 * and image absolute from `siteUrl`, and the same as plain text.
 */
export function renderEdition(
  subject: string,
  markdown: string,
  siteUrl: string,
): EditionBody & { links: EditionLink[]; markup: string[] } {
  const rendered = editionMarkdown.render(withoutSampleVoiceMarkers(markdown));
  const { html: bodyHtml, links } = absoluteLinks(rendered, siteUrl);
  const { html, text } = layout({
    subject,
    bodyHtml: `<h1 style="margin:0 0 16px;font-size:22px;color:#f8fafc">${escapeHtml(subject)}</h1>\n${bodyHtml.replace(/<a /g, '<a style="color:#22c55e" ').replace(/<img /g, '<img style="max-width:100%;height:auto" ')}`,
    bodyText: `${subject}\n${"=".repeat(Math.min(subject.length, 72))}\n\n${plainText(bodyHtml)}`,
    footerHtml: `You receive this because you subscribed on Engage with Engineer. <a href="${unsubscribePlaceholder}" style="color:#22c55e">Unsubscribe</a>`,
    footerText: `You receive this because you subscribed on Engage with Engineer.\nUnsubscribe: ${unsubscribePlaceholder}`,
  });
  return { subject, html, text, links, markup: markupProblems(bodyHtml, siteUrl) };
}
