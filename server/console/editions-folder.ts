import { readdirSync } from "node:fs";
import path from "node:path";
import { EditionError, readEdition } from "../newsletter/editions.ts";

export type EditionListing = { slug: string; subject: string | null; problem: string | null };

const slugPattern = /^[a-z0-9][a-z0-9-]{0,79}$/;

/**
 * The newsletter's editions folder (EDITIONS_DIR, README "Newsletter
 * editions"): every Markdown file, newest name first, each with its subject or
 * the reason it cannot be sent.
 */
export function listEditions(folder: string): EditionListing[] {
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
        const edition = readEdition(path.join(folder, name));
        return { slug, subject: edition.subject, problem: null };
      } catch (error) {
        const message = error instanceof EditionError ? error.message : String(error);
        // The folder's own path is the server's business, not the page's.
        return { slug, subject: null, problem: message.replaceAll(`${folder}${path.sep}`, "") };
      }
    });
}

/** The edition named `slug` in the folder; the slug is checked, so no other file is reached. */
export function editionFile(folder: string, slug: string): string | null {
  return slugPattern.test(slug) ? path.join(folder, `${slug}.md`) : null;
}
