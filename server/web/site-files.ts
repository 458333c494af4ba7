import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { compressAbove, encoded, strongEtag } from "../lib/representation.ts";

/**
 * The built site as a table in memory, made at start-up: every file under the
 * client root with its precompressed copies (the build writes `.br` and `.gz`
 * beside each text file), a strong validator per coding, its type and its
 * caching rule. A request is then one lookup and one write of bytes already in
 * hand (docs/decisions/029-pages-from-memory.md). A rebuild or a deploy is
 * picked up by restarting the server, as before.
 *
 * What nearly every visit needs is read at start: the brotli copies of the
 * text files (pages, scripts, styles, feeds), which every browser takes.
 * What few visits need is read on its first request and kept from then on:
 * the text files as written, which only clients without compression take,
 * binary files (the share images that link previews fetch, pictures), the
 * gzip copies that only clients without brotli ask for, and each copy's
 * validator, a hash of its bytes. Reading them all at start cost a twentieth
 * of the start's CPU, and holding the pages as written beside their brotli
 * copies about 5 MB, in a server that may never send them
 * (docs/decisions/039-server-bundle.md). What reads a page at start (the
 * CSP's hashes, the templates' placeholders) reads it from the disk,
 * `bytesOf`, and keeps none of it.
 *
 * Only regular files are listed: no directory is ever listed, a name that
 * starts with a dot (in any segment) is left out, and a path that is not a key
 * of the table (`..`, a symlink outside, a typo) is simply not found.
 */

export type Coding = "br" | "gzip" | "identity";

/** One coding of a file, with the headers it goes out with. */
export type Variant = { body: Buffer; headers: Record<string, string>; etag: string };

export type SiteFile = {
  /** Where the build wrote it. */
  file: string;
  /** Each coding once made: `undefined`, not yet; `null`, not worth sending (no smaller than the file). */
  identity?: Variant;
  br?: Variant | null;
  gzip?: Variant | null;
  /** Text worth compressing: negotiated, and answers vary on Accept-Encoding. */
  compressible: boolean;
  /** Binary files whose readers may ask for a part (media players, PDF viewers, fonts). */
  rangeable: boolean;
  /** The type and caching headers every coding shares. */
  base: Record<string, string>;
  /** The build's brotli copy, read at start; turned into a variant on first use. */
  builtBr?: Buffer;
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
/**
 * Pictures other sites may show: the share cards (/og-image.png, /og/…) that
 * link previews fetch, the pictures an edition puts in a mail (read in a mail
 * program, or in the console's preview, a sandboxed frame with an origin of
 * its own), the icons. They go out with `Cross-Origin-Resource-Policy:
 * cross-origin` in place of the page headers' `same-origin`
 * (server/web/security-headers.ts), which a browser enforces on an image
 * embedded anywhere but this site. Every other file keeps `same-origin`.
 */
const publicPictures = /\.(png|jpe?g|webp|avif|gif|svg|ico)$/;
const rangeableTypes = /\.(pdf|mp4|webm|mp3|woff2?)$/;

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

/**
 * The HTML pages of a table whose address starts with `prefix`, each once (a
 * page has several addresses), read one at a time as they are asked for.
 */
export function* htmlPages(files: Map<string, SiteFile>, prefix = "/"): Generator<Buffer> {
  const seen = new Set<SiteFile>();
  for (const [address, file] of files) {
    if (!address.startsWith(prefix) || !address.endsWith(".html") || seen.has(file)) continue;
    seen.add(file);
    const bytes = bytesOf(file);
    if (bytes) yield bytes;
  }
}

function readIfThere(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * A file's bytes as the build wrote it: those its answer as it is holds, once
 * a client asked for that, else read from the disk and not kept; undefined if
 * the build took the file away since the start.
 */
export function bytesOf(file: SiteFile): Buffer | undefined {
  return file.identity?.body ?? readIfThere(file.file);
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
    const extension = path.extname(relative).toLowerCase();
    const text = compressibleTypes.test(relative);
    const file: SiteFile = {
      file: full,
      compressible: text && statSync(full).size > compressAbove,
      rangeable: rangeableTypes.test(relative),
      base: {
        "content-type": types[extension] ?? "application/octet-stream",
        "cache-control": relative.startsWith("assets/")
          ? cacheControl.immutable
          : cacheControl.revalidate,
        ...(publicPictures.test(extension)
          ? { "cross-origin-resource-policy": "cross-origin" }
          : {}),
      },
    };
    if (file.compressible) file.builtBr = readIfThere(`${full}.br`);
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

/**
 * The file as it is, with its validator, made on first use; null if the build
 * took it away since the start (it is then not found, as after a restart).
 */
export function identityOf(file: SiteFile): Variant | null {
  if (file.identity) return file.identity;
  const bytes = readIfThere(file.file);
  if (!bytes) return null;
  file.identity = variant(bytes, strongEtag(bytes), file.base, "identity", file.compressible);
  return file.identity;
}

/**
 * The copy of `file` in `coding`, made once: the build's copy if it wrote one
 * (it writes one only when it is smaller), else compressed here from the file
 * as written, which is not kept; null when not worth it. Its validator is a
 * hash of the copy's own bytes, so it changes with them whenever they change.
 */
export function codedVariant(file: SiteFile, coding: "br" | "gzip"): Variant | null {
  const known = file[coding];
  if (known !== undefined) return known;
  let coded = coding === "br" ? file.builtBr : readIfThere(`${file.file}.gz`);
  if (!coded) {
    const bytes = bytesOf(file);
    if (!bytes) return null;
    const encodedHere = encoded(bytes, coding);
    coded = encodedHere.length < bytes.length ? encodedHere : undefined;
  }
  const made = coded
    ? variant(coded, `${strongEtag(coded).slice(0, -1)}-${coding}"`, file.base, coding, true)
    : null;
  file[coding] = made;
  file.builtBr = undefined;
  return made;
}
