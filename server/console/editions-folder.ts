import { readdirSync } from "node:fs";
import path from "node:path";
import { onFirstUse } from "../lib/on-first-use.ts";
import { editionLinkProblems } from "../newsletter/edition-links.ts";

type EditionListing = {
  slug: string;
  subject: string | null;
  problem: string | null;
  warnings: string[];
};

/** The site the editions link to: its address, and its build, which their links are checked against. */
type LinkedSite = { siteUrl: string; clientRoot: string };

const slugPattern = /^[a-z0-9][a-z0-9-]{0,79}$/;

/**
 * Reading an edition renders its Markdown and its plain text (html-to-text
 * and the HTML parser it brings): loaded when the owner first opens the
 * editions, not at every start (docs/benchmarks.md, "Start and idle").
 */
export const editions = onFirstUse(() => import("../newsletter/editions.ts"));

/**
 * The newsletter's editions folder (EDITIONS_DIR; docs/mail.md, "Newsletter
 * editions"): every Markdown file, newest name first, each with its subject or
 * the reason it cannot be sent, and what is wrong with its links and images.
 */
export async function listEditions(folder: string, site: LinkedSite): Promise<EditionListing[]> {
  const { EditionError, readEdition } = await editions();
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.toLowerCase().endsWith(".md"));
  } catch {
    return [];
  }
  return names
    .sort()
    .reverse()
    .map((name) => {
      const slug = name.replace(/\.md$/i, "");
      try {
        const edition = readEdition(path.join(folder, name), site.siteUrl);
        const warnings = editionLinkProblems(edition.links, site);
        return { slug, subject: edition.subject, problem: null, warnings };
      } catch (error) {
        const message = error instanceof EditionError ? error.message : String(error);
        // The folder's own path is the server's business, not the page's.
        const problem = message.replaceAll(`${folder}${path.sep}`, "");
        return { slug, subject: null, problem, warnings: [] };
      }
    });
}

/** The edition named `slug` in the folder; the slug is checked, so no other file is reached. */
export function editionFile(folder: string, slug: string): string | null {
  return slugPattern.test(slug) ? path.join(folder, `${slug}.md`) : null;
}
