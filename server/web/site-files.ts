import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { strongEtag } from "../lib/representation.ts";

/**
 * The built site as a table in memory, made once at start-up: every file under
 * the client root with its precompressed copies (the build writes `.br` and
 * `.gz` beside each text file), a strong validator per coding, its type and its
 * caching rule. A request is then one lookup and one write of bytes already in
 * hand, with no file system call (docs/decisions/029-pages-from-memory.md).
 * A rebuild or a deploy is picked up by restarting the server, as before.
 *
 * Only regular files are listed: no directory is ever listed, a name that
 * starts with a dot (in any segment) is left out, and a path that is not a key
 * of the table (`..`, a symlink outside, a typo) is simply not found.
 */

export type Coding = "br" | "gzip" | "identity";

/** One coding of a file, with the headers it goes out with. */
export type Variant = { body: Buffer; headers: Record<string, string>; etag: string };

export type SiteFile = {
  identity: Variant;
  /** `undefined`: not made yet; `null`: not worth sending (no smaller than the file). */
  br?: Variant | null;
  gzip?: Variant | null;
  /** Text worth compressing: negotiated, and answers vary on Accept-Encoding. */
  compressible: boolean;
  /** Binary files whose readers may ask for a part (media players, PDF viewers, fonts). */
  rangeable: boolean;
  /** The type and caching headers every coding shares. */
  base: Record<string, string>;
};

const text = "; charset=utf-8";
/** The types of what the build writes; anything else is sent as bytes. */
const types: Record<string, string> = {
  ".html": `text/html${text}`,
  ".js": `text/javascript${text}`,
  ".mjs": `text/javascript${text}`,
  ".css": `text/css${text}`,
  ".svg": "image/svg+xml",
  ".xml": `application/xml${text}`,
  ".txt": `text/plain${text}`,
  ".json": `application/json${text}`,
  ".webmanifest": `application/manifest+json${text}`,
  ".map": `application/json${text}`,
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".gif": "image/gif",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".wasm": "application/wasm",
  ".pdf": "application/pdf",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".mp3": "audio/mpeg",
};
const compressibleTypes = /\.(html|js|mjs|css|svg|xml|txt|json|webmanifest|map)$/;
const rangeableTypes = /\.(pdf|mp4|webm|mp3|woff2?)$/;

/** Below this, compression saves less than its headers and work cost (as for cached reads). */
const compressAbove = 1024;

/** Hashed build output (assets/) never changes under its name; everything else is revalidated. */
export const cacheControl = {
  immutable: "public, max-age=31536000, immutable",
  revalidate: "public, max-age=0, must-revalidate",
};

function walk(root: string, folder = ""): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(path.join(root, folder), { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const relative = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...walk(root, relative));
    else if (entry.isFile()) files.push(relative);
  }
  return files;
}

function variant(
  body: Buffer,
  etag: string,
  base: Record<string, string>,
  coding: Coding,
  vary: boolean,
): Variant {
  return {
    body,
    etag,
    headers: {
      ...base,
      etag,
      ...(vary ? { vary: "accept-encoding" } : {}),
      ...(coding === "identity" ? {} : { "content-encoding": coding }),
    },
  };
}

/** The HTML pages of a table whose address starts with `prefix`, each once (a page has several addresses). */
export function htmlPages(files: Map<string, SiteFile>, prefix = "/"): Buffer[] {
  const pages = new Set<Buffer>();
  for (const [address, file] of files) {
    if (address.startsWith(prefix) && address.endsWith(".html")) pages.add(file.identity.body);
  }
  return [...pages];
}

/**
 * The files of `root` by their address: `/about/index.html` also answers
 * `/about` and `/about/`, and `/index.html` answers `/`.
 */
export function loadSiteFiles(root: string): Map<string, SiteFile> {
  const table = new Map<string, SiteFile>();
  for (const relative of walk(root)) {
    if (relative.endsWith(".br") || relative.endsWith(".gz")) continue;
    const full = path.join(root, relative);
    const body = readFileSync(full);
    const extension = path.extname(relative).toLowerCase();
    const compressible = compressibleTypes.test(relative) && body.length > compressAbove;
    const base = {
      "content-type": types[extension] ?? "application/octet-stream",
      "cache-control": relative.startsWith("assets/")
        ? cacheControl.immutable
        : cacheControl.revalidate,
    };
    const hash = strongEtag(body).slice(1, -1);
    const file: SiteFile = {
      identity: variant(body, `"${hash}"`, base, "identity", compressible),
      compressible,
      rangeable: rangeableTypes.test(relative),
      base,
    };
    if (compressible) {
      // The build's copies, when it wrote them; otherwise made on first request.
      for (const [coding, suffix] of [
        ["br", ".br"],
        ["gzip", ".gz"],
      ] as const) {
        if (existsSync(`${full}${suffix}`)) {
          file[coding] = variant(
            readFileSync(`${full}${suffix}`),
            `"${hash}-${coding}"`,
            base,
            coding,
            true,
          );
        }
      }
    }
    const address = `/${relative}`;
    table.set(address, file);
    if (address === "/index.html") table.set("/", file);
    else if (address.endsWith("/index.html")) {
      const folder = address.slice(0, -"/index.html".length);
      table.set(folder, file);
      table.set(`${folder}/`, file);
    }
  }
  return table;
}

/** The copy of `file` in `coding`, made once if the build left none; null when not worth it. */
export function codedVariant(file: SiteFile, coding: "br" | "gzip"): Variant | null {
  const known = file[coding];
  if (known !== undefined) return known;
  const body = file.identity.body;
  const coded =
    coding === "br"
      ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })
      : gzipSync(body, { level: 6 });
  const made =
    coded.length < body.length
      ? variant(coded, `${file.identity.etag.slice(0, -1)}-${coding}"`, file.base, coding, true)
      : null;
  file[coding] = made;
  return made;
}
