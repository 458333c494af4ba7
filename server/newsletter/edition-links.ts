import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { decodeHtmlEntities, escapeHtml } from "../../contract/html.ts";

/**
 * The links and images of an edition. A mail is read away from the site, so a
 * site-relative address (`/science/pressure-cooker`, `/og/x.png`) means nothing
 * there: every one is made absolute from SITE_URL when the edition is rendered.
 * Each is then checked before anyone reads it (docs/product.md, "Newsletter"):
 * a page or file of the site must exist in the built site, down to the card or
 * heading a `#fragment` names; anything else must be an http(s), mailto or tel
 * address. Other sites' pages are not fetched: only their form is checked.
 */

export type EditionLink = {
  kind: "link" | "image";
  /** As written in the edition's file. */
  written: string;
  /** As the mail carries it: absolute, or as written when it cannot be read as an address. */
  absolute: string;
};

/** A link's or an image's address, in double, single or no quotes, as HTML allows. */
const attribute = /<(a|img)\b([^>]*?)\s(href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/gi;

/**
 * The edition's HTML with every link (`<a href>`) and image (`<img src>`)
 * absolute from `siteUrl`, and each one as written and as sent.
 */
export function absoluteLinks(
  html: string,
  siteUrl: string,
): { html: string; links: EditionLink[] } {
  const links: EditionLink[] = [];
  const base = `${siteUrl.replace(/\/+$/, "")}/`;
  const rewritten = html.replace(
    attribute,
    (_match, tag: string, before: string, name: string, ...quoted: (string | undefined)[]) => {
      const written = decodeHtmlEntities(
        quoted.slice(0, 3).find((v) => v !== undefined) ?? "",
      ).trim();
      // Not an address at all: left as written, and reported by editionLinkProblems.
      const absolute = URL.parse(written, base)?.href ?? written;
      links.push({ kind: tag.toLowerCase() === "img" ? "image" : "link", written, absolute });
      // Written again in double quotes: the click links are found so (clicks.ts).
      return `<${tag}${before} ${name}="${escapeHtml(absolute)}"`;
    },
  );
  return { html: rewritten, links };
}

/** A page's ids, read once per check. */
function idsOf(file: string): Set<string> {
  const html = readFileSync(file, "utf8");
  return new Set(
    [...html.matchAll(/\sid="([^"]+)"/g)].map((match) => decodeHtmlEntities(match[1] ?? "")),
  );
}

/** The built file a path of the site is served from, or null when there is none. */
function builtFile(clientRoot: string, pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  const target = path.join(clientRoot, decoded);
  if (target !== clientRoot && !target.startsWith(`${clientRoot}${path.sep}`)) return null;
  for (const candidate of [target, path.join(target, "index.html"), `${target}.html`]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/**
 * What is wrong with an edition's links and images, one sentence each, for
 * the owner to read before sending: empty when all is well. `clientRoot` is
 * the built site; when it is missing, the site's own links cannot be checked,
 * and that is said once.
 */
export function editionLinkProblems(
  links: EditionLink[],
  { siteUrl, clientRoot }: { siteUrl: string; clientRoot: string },
): string[] {
  const problems: string[] = [];
  const site = new URL(siteUrl);
  const built = existsSync(path.join(clientRoot, "index.html"));
  const pageIds = new Map<string, Set<string>>();
  let unbuiltSaid = false;
  for (const { kind, written, absolute } of links) {
    const what = kind === "image" ? `The image ${written || '""'}` : `The link ${written || '""'}`;
    const url = URL.parse(absolute);
    if (!url) {
      problems.push(`${what} is not an address.`);
      continue;
    }
    if (written === "") {
      problems.push(`${what} is empty.`);
      continue;
    }
    const allowed = kind === "image" ? ["http:", "https:"] : ["http:", "https:", "mailto:", "tel:"];
    if (!allowed.includes(url.protocol)) {
      problems.push(`${what} is not a web address (${url.protocol}).`);
      continue;
    }
    if (url.origin !== site.origin) {
      // A mail program that shows it asks that server, which learns who opened the edition.
      if (kind === "image") {
        problems.push(
          `${what} is loaded from ${url.host}: each reader's mail program would tell that site when they open the edition, and many show it only once asked. Put it in the site's own files (public/) and link it from there.`,
        );
      }
      continue;
    }
    if (!built) {
      if (!unbuiltSaid) {
        problems.push(
          `The site's own links could not be checked: there is no built site at ${clientRoot}.`,
        );
        unbuiltSaid = true;
      }
      continue;
    }
    const file = builtFile(clientRoot, url.pathname);
    if (!file) {
      problems.push(`${what} leads to ${url.pathname}, which is not on the site.`);
      continue;
    }
    const fragment = decodeURIComponent(url.hash.slice(1));
    if (fragment && file.endsWith(".html")) {
      const ids = pageIds.get(file) ?? idsOf(file);
      pageIds.set(file, ids);
      if (!ids.has(fragment)) {
        problems.push(`${what} leads to #${fragment}, which is not on ${url.pathname}.`);
      }
    }
  }
  return problems;
}

/**
 * Gmail shows a mail whose HTML passes 102 KB cut short, its end (the unsubscribe link
 * with it) behind "View entire message". Warned at 100 KB of the edition's HTML, which
 * leaves room for each copy's own links.
 */
const clippedAt = 100 * 1024;

/**
 * What is wrong with an edition before it is sent: its links' problems, its raw HTML's
 * (`markupProblems`), an image without a description (what a screen reader says, and a
 * mail program that shows no images), and a length Gmail clips.
 */
export function editionProblems(
  edition: { html: string; links: EditionLink[]; markup: string[] },
  config: { siteUrl: string; clientRoot: string },
): string[] {
  const problems = [...editionLinkProblems(edition.links, config), ...edition.markup];
  for (const [image] of edition.html.matchAll(/<img\b[^>]*>/gi)) {
    if (/\salt\s*=\s*("[^"]*[^\s"][^"]*"|'[^']*[^\s'][^']*')/i.test(image)) continue;
    const src = /\ssrc\s*=\s*"([^"]*)"/i.exec(image)?.[1] ?? "";
    problems.push(
      `The image ${decodeHtmlEntities(src) || '""'} has no description: write what it shows between the brackets, ![what it shows](…), for screen readers and for mail programs that show no images.`,
    );
  }
  const bytes = Buffer.byteLength(edition.html);
  if (bytes > clippedAt) {
    problems.push(
      `The edition is ${Math.ceil(bytes / 1024)} KB of HTML: Gmail shows a mail over 102 KB cut short, its end and the unsubscribe link behind "View entire message". Shorten it, or make it two editions.`,
    );
  }
  return problems;
}
