import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * The lists of sites the comment rules know (docs/decisions/010-moderation-and-spam.md),
 * kept as data in site-lists.txt beside this file and read once at start: the
 * top-level domains a bare address is recognised by, the brands phishing
 * imitates, the sites readers cite, and where readers keep their own work.
 */

type SiteLists = {
  bareTlds: string[];
  brands: string[];
  referenceSites: string[];
  projectHosts: string[];
};

const headings: Record<string, keyof SiteLists> = {
  "bare-tlds": "bareTlds",
  brands: "brands",
  "reference-sites": "referenceSites",
  "project-hosts": "projectHosts",
};

/** Reads the file's sections; an entry before any heading, or an unknown heading, is a mistake in the file. */
function parseSiteLists(text: string): SiteLists {
  const lists: SiteLists = { bareTlds: [], brands: [], referenceSites: [], projectHosts: [] };
  let current: keyof SiteLists | null = null;
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.replace(/#.*$/, "").trim().toLowerCase();
    if (line === "") continue;
    const heading = /^\[(.+)\]$/.exec(line)?.[1];
    if (heading !== undefined) {
      current = headings[heading] ?? null;
      if (!current) throw new Error(`site-lists.txt line ${index + 1}: unknown list [${heading}]`);
    } else if (!current) {
      throw new Error(`site-lists.txt line ${index + 1}: "${line}" is under no list`);
    } else lists[current].push(line);
  }
  return lists;
}

export const siteLists = parseSiteLists(
  readFileSync(path.join(import.meta.dirname, "site-lists.txt"), "utf8"),
);

/** Whether `host` is one of `sites` or under one; an entry starting with "." matches any host ending so. */
export function onSite(host: string, sites: readonly string[]): boolean {
  return sites.some((site) =>
    site.startsWith(".") ? host.endsWith(site) : host === site || host.endsWith(`.${site}`),
  );
}
