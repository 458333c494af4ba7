import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { type DefaultTreeAdapterMap, parse } from "parse5";
import { engagementCatalogOf, loadItemIndex } from "../content/catalog.ts";
import { inlineScriptHashes, runs } from "../server/web/inline-scripts.ts";
import { headerSets } from "../server/web/security-headers.ts";

/*
 * What a built page makes the browser load and run as it is read, checked
 * without a browser, on every page of the reading site (the console's pages
 * have a policy of their own and are each read in Chromium). A page's visit in
 * Chromium reports, on its console, an address that is not there (an image,
 * a stylesheet, a script, an island's code), an address the page's
 * Content-Security-Policy refuses (an image or frame of another origin, a
 * script or style the policy's hashes do not allow, an event handler written
 * into an attribute), and a read of an item the server does not know. What
 * differs between the pages of one page source is the owner's writing, so
 * Chromium reads one page of each source
 * (docs/decisions/068-what-a-page-loads-checked-without-a-browser.md) and this
 * reads the rest, as the server would serve them: the policy is the one the
 * server sends with the pages (`headerSets`, its inline scripts' hashes made
 * from the built pages as at start), the files are the build's, the items the
 * catalog the server reads from the content.
 */

type Element = DefaultTreeAdapterMap["element"];
type Node = DefaultTreeAdapterMap["node"];

/** A policy's directives, each with its sources. */
export type Policy = Map<string, string[]>;

export function parsePolicy(header: string): Policy {
  return new Map(
    header
      .split(";")
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name = "", ...sources]) => [name.toLowerCase(), sources]),
  );
}

/** Where a directive falls back to when the policy does not name it. */
const fallbacks: Record<string, string[]> = {
  "script-src-elem": ["script-src", "default-src"],
  "script-src-attr": ["script-src", "default-src"],
  "style-src-elem": ["style-src", "default-src"],
  "style-src-attr": ["style-src", "default-src"],
  "frame-src": ["child-src", "default-src"],
};

function sourcesFor(policy: Policy, directive: string): string[] | undefined {
  for (const name of [directive, ...(fallbacks[directive] ?? ["default-src"])]) {
    const sources = policy.get(name);
    if (sources) return sources;
  }
  return undefined;
}

/** The policy lets `directive` load `url` (absolute), from a page of `origin`. */
function allows(policy: Policy, directive: string, url: URL, origin: string): boolean {
  const sources = sourcesFor(policy, directive);
  if (!sources) return true;
  return sources.some((source) => {
    if (source === "'self'") return url.origin === origin;
    if (/^[a-z][a-z0-9+.-]*:$/i.test(source)) return url.protocol === source.toLowerCase();
    if (source.startsWith("'")) return false;
    const host = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*\.)?([^/:]+)(?::(\d+|\*))?/i.exec(source);
    if (!host) return false;
    const [, scheme, wildcard, name = "", port] = host;
    if (scheme && `${scheme.toLowerCase()}:` !== url.protocol) return false;
    if (port && port !== "*" && port !== url.port) return false;
    const hostname = url.hostname.toLowerCase();
    return wildcard ? hostname.endsWith(`.${name.toLowerCase()}`) : hostname === name.toLowerCase();
  });
}

/** An inline script or style's source as a policy lists it. */
const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

const attribute = (element: Element, name: string) =>
  element.attrs.find((entry) => entry.name === name)?.value;

const textOf = (element: Element) =>
  element.childNodes.map((child) => ("value" in child ? child.value : "")).join("");

/** Each address of a `srcset`: its candidates' URLs. */
const srcsetUrls = (value: string) =>
  value
    .split(",")
    .map((candidate) => candidate.trim().split(/\s+/)[0] ?? "")
    .filter(Boolean);

/** The `url(…)`s of a style sheet or style attribute. */
const cssUrls = (css: string) =>
  [...css.matchAll(/url\(\s*(['"]?)([^'")]+)\1\s*\)/g)].map((match) => match[2] ?? "");

/** The directive a `<link rel="preload">` of each `as` falls under. */
const preloads: Record<string, string> = {
  script: "script-src-elem",
  style: "style-src-elem",
  font: "font-src",
  image: "img-src",
  fetch: "connect-src",
  audio: "media-src",
  video: "media-src",
  track: "media-src",
  worker: "worker-src",
};

/** What an element loads as the page is read: each address, with the directive that governs it. */
function loadsOf(element: Element): [directive: string, address: string][] {
  const get = (name: string) => attribute(element, name);
  const loads: [string, string][] = [];
  const add = (directive: string, ...addresses: (string | undefined)[]) => {
    for (const address of addresses) if (address?.trim()) loads.push([directive, address.trim()]);
  };
  const inPicture = element.parentNode?.nodeName === "picture";
  switch (element.tagName) {
    case "img":
      add("img-src", get("src"), ...srcsetUrls(get("srcset") ?? ""));
      break;
    case "source":
      if (inPicture) add("img-src", ...srcsetUrls(get("srcset") ?? ""));
      else add("media-src", get("src"));
      break;
    case "input":
      if (get("type")?.toLowerCase() === "image") add("img-src", get("src"));
      break;
    case "video":
    case "audio":
    case "track":
      add("media-src", get("src"));
      add("img-src", get("poster"));
      break;
    case "iframe":
    case "frame":
      add("frame-src", get("src"));
      break;
    case "embed":
      add("object-src", get("src"));
      break;
    case "object":
      add("object-src", get("data"));
      break;
    case "script":
      add("script-src-elem", get("src"));
      break;
    case "link": {
      const rel = (get("rel") ?? "").toLowerCase().split(/\s+/);
      const as = get("as")?.toLowerCase();
      if (rel.includes("stylesheet")) add("style-src-elem", get("href"));
      if (rel.includes("icon") || rel.includes("apple-touch-icon")) add("img-src", get("href"));
      if (rel.includes("modulepreload")) add("script-src-elem", get("href"));
      if (rel.includes("manifest")) add("manifest-src", get("href"));
      const preloaded = rel.includes("preload") && as ? preloads[as] : undefined;
      if (preloaded) add(preloaded, get("href"));
      break;
    }
    case "use":
    case "image":
      // An SVG sprite's symbol or picture, fetched as the page draws it.
      add("img-src", get("href") ?? get("xlink:href"));
      break;
    case "astro-island":
      add(
        "script-src-elem",
        get("component-url"),
        get("renderer-url"),
        get("before-hydration-url"),
      );
      break;
  }
  for (const url of cssUrls(get("style") ?? "")) add("img-src", url);
  if (element.tagName === "style") for (const url of cssUrls(textOf(element))) add("img-src", url);
  return loads;
}

/** The build's file for a same-origin path, as the server answers it. */
function builtFile(root: string, pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  const file = path.join(root, decoded);
  if (!file.startsWith(root)) return undefined;
  for (const candidate of [file, path.join(file, "index.html")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** An island's props, as Astro writes them: each value `[type, value]`, 0 for a plain one. */
function islandProps(element: Element): Record<string, unknown> {
  const raw = attribute(element, "props");
  if (!raw) return {};
  const props = JSON.parse(raw) as Record<string, [number, unknown]>;
  return Object.fromEntries(Object.entries(props).map(([name, [, value]]) => [name, value]));
}

export type PageContext = {
  root: string;
  policy: Policy;
  /** The items whose reactions and comments the server keeps, by kind (content/catalog.ts). */
  catalog: Record<string, ReadonlySet<string>>;
};

/**
 * What reading `page` (a path under `root`, as the build wrote it) would make
 * the browser report: one line each, empty when nothing.
 */
export function pageFaults(context: PageContext, page: string): string[] {
  const { root, policy, catalog } = context;
  const html = readFileSync(path.join(root, page), "utf8");
  const document = parse(html);
  const faults: string[] = [];
  const elements: Element[] = [];
  const walk = (node: Node) => {
    if ("tagName" in node) elements.push(node);
    const children = "childNodes" in node ? node.childNodes : [];
    for (const child of children) walk(child);
    if ("content" in node && node.nodeName === "template") walk(node.content);
  };
  walk(document);
  const canonical = elements.find(
    (element) => element.tagName === "link" && attribute(element, "rel") === "canonical",
  );
  const pageUrl = new URL(
    `/${page.replace(/(^|\/)index\.html$/, "$1").replace(/\.html$/, "")}`,
    canonical ? attribute(canonical, "href") : "http://site.invalid",
  );
  const base = elements.find((element) => element.tagName === "base");
  const baseHref = base && attribute(base, "href");
  const baseUrl = baseHref ? new URL(baseHref, pageUrl) : pageUrl;
  const hashes = (directive: string) => sourcesFor(policy, directive) ?? ["'unsafe-inline'"];
  for (const element of elements) {
    for (const [directive, address] of loadsOf(element)) {
      let url: URL;
      try {
        url = new URL(address, baseUrl);
      } catch {
        faults.push(`<${element.tagName}> loads "${address}", which is no address`);
        continue;
      }
      if (!allows(policy, directive, url, pageUrl.origin)) {
        faults.push(`<${element.tagName}> loads ${url.href}, which ${directive} refuses`);
      } else if (url.origin === pageUrl.origin && !builtFile(root, url.pathname)) {
        faults.push(`<${element.tagName}> loads ${url.pathname}, which the build does not hold`);
      }
    }
    for (const { name, value } of element.attrs) {
      if (/^on/i.test(name) && !hashes("script-src-attr").includes("'unsafe-inline'")) {
        faults.push(`<${element.tagName} ${name}>: script-src-attr refuses an event handler`);
      }
      if (
        name === "style" &&
        !hashes("style-src-attr").includes("'unsafe-inline'") &&
        !hashes("style-src-attr").includes(sha256(value))
      ) {
        faults.push(`<${element.tagName} style>: style-src-attr refuses it`);
      }
      if (/^(?:href|src|action|formaction)$/.test(name) && /^\s*javascript:/i.test(value)) {
        faults.push(`<${element.tagName} ${name}="javascript:…">: script-src refuses it`);
      }
    }
    if (element.tagName === "script" && attribute(element, "src") === undefined) {
      const body = textOf(element);
      const sources = hashes("script-src-elem");
      if (
        runs.test((attribute(element, "type") ?? "").trim()) &&
        body.trim() !== "" &&
        !sources.includes("'unsafe-inline'") &&
        !sources.includes(sha256(body))
      ) {
        faults.push(`an inline <script> whose hash script-src does not list: ${body.slice(0, 60)}`);
      }
    }
    if (element.tagName === "style") {
      const sources = hashes("style-src-elem");
      if (!sources.includes("'unsafe-inline'") && !sources.includes(sha256(textOf(element)))) {
        faults.push("an inline <style> whose hash style-src does not list");
      }
    }
    if (element.tagName === "astro-island") {
      let props: Record<string, unknown>;
      try {
        props = islandProps(element);
      } catch {
        faults.push(`the island ${attribute(element, "component-export")}'s props are not JSON`);
        continue;
      }
      const { kind, itemId } = props;
      if (typeof kind === "string" && typeof itemId === "string" && kind in catalog) {
        if (!catalog[kind]?.has(itemId)) {
          faults.push(
            `the island ${attribute(element, "component-export")} reads ${kind} "${itemId}", which the server does not keep`,
          );
        }
      }
    }
  }
  return faults;
}

/**
 * The page policy and catalog the server would serve the build under `root`
 * with: its inline scripts' hashes from the same pages (server/app.ts).
 */
export function servedContext(
  root: string,
  pages: string[],
  { chatbotScriptUrl = process.env.CHATBOT_SCRIPT_URL } = {},
): PageContext {
  const { pageHeaders } = headerSets({
    inlineScriptHashes: inlineScriptHashes(
      pages.map((page) => readFileSync(path.join(root, page))),
    ),
    chatbotOrigin: chatbotScriptUrl ? new URL(chatbotScriptUrl).origin : undefined,
    https: false,
    link: "",
  });
  const header = pageHeaders.find(([name]) => name.toLowerCase() === "content-security-policy");
  if (!header) throw new Error("The server sends its pages without a Content-Security-Policy");
  return { root, policy: parsePolicy(header[1]), catalog: engagementCatalogOf(loadItemIndex()) };
}

/** The console's pages, which the server sends with a policy of their own. */
export const isConsole = (page: string) => page === "admin/index.html" || page.startsWith("admin/");

/** What reading each page of the reading site would make the browser report, by page. */
export function loadFaults(root: string, pages: string[]): string[] {
  const context = servedContext(root, pages);
  return pages
    .filter((page) => !isConsole(page))
    .flatMap((page) => pageFaults(context, page).map((fault) => `${page}: ${fault}`));
}
