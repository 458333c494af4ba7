import { existsSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import path from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { preferredEncoding } from "../lib/accept-encoding.ts";
import { clientHolds } from "../lib/representation.ts";
import { createFastPages, type FastPages } from "./fast-pages.ts";
import {
  codedVariant,
  identityOf,
  loadSiteFiles,
  type SiteFile,
  type Variant,
} from "./site-files.ts";

/** The built site's table (server/web/site-files.ts); a start without a built site stops here. */
export function loadBuiltSite(root: string): Map<string, SiteFile> {
  if (!existsSync(path.join(root, "index.html"))) {
    throw new Error(`No built site in ${root}: run "npm run build" first.`);
  }
  return loadSiteFiles(root);
}

/**
 * Serves the built site from memory (`loadBuiltSite`): one HTML file
 * per page, hashed assets cached for a year, HTML revalidated on every visit
 * (a 304 when the reader's copy is current), each in the best coding the
 * reader accepts.
 */
export async function staticSite(
  app: FastifyInstance,
  { files, fast }: { files: Map<string, SiteFile>; fast?: FastPages },
) {
  const notFoundPage = files.get("/404.html");
  // What each answer sent, for the fast path to record once it has gone out.
  const sentVariants = new WeakMap<FastifyRequest, Variant>();

  app.get(
    "/*",
    {
      onResponse(request, reply, done) {
        const variant = sentVariants.get(request);
        const path = (request.raw.url ?? "").split("?")[0] ?? "";
        // Only a plain answer, for an address the route read as it was written.
        if (fast && variant && reply.statusCode === 200 && path === routedPath(request)) {
          fast.record(path, request.routeOptions.url ?? "/*", variant, reply.raw.getHeaders());
        }
        done();
      },
    },
    (request, reply) => {
      const file = files.get(routedPath(request));
      const chosen = file && chosenVariant(request.headers, file);
      if (!file || !chosen) return reply.callNotFound();
      if (request.method === "GET" && request.headers.range === undefined) {
        sentVariants.set(request, chosen);
      }
      return sendFile(request, reply, file, chosen);
    },
  );

  // Unknown paths get the built 404 page, which sends the reader on to "/"
  // (docs/product.md, "Unknown addresses").
  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith("/api/") || request.url === "/api") {
      return reply.code(404).send({ error: { code: "not_found", message: "No such endpoint." } });
    }
    const page =
      (request.method === "GET" || request.method === "HEAD") && notFoundPage
        ? chosenVariant(request.headers, notFoundPage)
        : null;
    if (!page) {
      return reply.code(404).send({ error: { code: "not_found", message: "Not found." } });
    }
    const { body, headers } = page;
    const { etag: _unused, ...rest } = headers;
    return reply
      .code(404)
      .headers({ ...rest, "cache-control": "no-cache" })
      .send(body);
  });
}

/** The fast path for the files `staticSite` serves (server/web/fast-pages.ts). */
export function fastStaticPages(
  files: Map<string, SiteFile>,
  options: Omit<Parameters<typeof createFastPages>[0], "choose" | "codingOf">,
): FastPages {
  return createFastPages({
    ...options,
    codingOf: (request) => preferredEncoding(request.headers["accept-encoding"]) ?? "identity",
    choose: (path, request) => {
      const file = files.get(path);
      return file ? chosenVariant(request.headers, file) : null;
    },
  });
}

/** The address the route reads the file at: its path, decoded by Fastify. */
function routedPath(request: FastifyRequest): string {
  return `/${(request.params as { "*": string })["*"]}`;
}

/**
 * The coding of `file` the reader takes best; null if the file is gone since
 * the start. The file as written is read only for a reader who takes no copy.
 */
function chosenVariant(headers: IncomingHttpHeaders, file: SiteFile): Variant | null {
  const coding = file.compressible ? preferredEncoding(headers["accept-encoding"]) : null;
  return (coding && codedVariant(file, coding)) || identityOf(file);
}

function sendFile(request: FastifyRequest, reply: FastifyReply, file: SiteFile, chosen: Variant) {
  const range = file.rangeable ? request.headers.range : undefined;
  if (range !== undefined) return sendRange(request, reply, chosen, range);
  reply.headers(chosen.headers);
  if (clientHolds(request, chosen.etag)) return reply.code(304).send();
  return reply.send(chosen.body);
}

/**
 * One byte range of a binary file (RFC 9110, section 14): `bytes=a-b`,
 * `bytes=a-` or `bytes=-n`. Several ranges, or an If-Range the file no longer
 * matches, get the whole file, which the standard allows.
 */
function sendRange(request: FastifyRequest, reply: FastifyReply, whole: Variant, range: string) {
  const { body, etag, headers } = whole;
  reply.headers(headers).header("accept-ranges", "bytes");
  const ifRange = request.headers["if-range"];
  const match = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
  if ((ifRange !== undefined && ifRange !== etag) || !match || (!match[1] && !match[2])) {
    if (clientHolds(request, etag)) return reply.code(304).send();
    return reply.send(body);
  }
  const size = body.length;
  const [start, end] = match[1]
    ? [Number(match[1]), Math.min(match[2] ? Number(match[2]) : size - 1, size - 1)]
    : [Math.max(0, size - Number(match[2])), size - 1];
  if (start >= size || start > end) {
    return reply.code(416).header("content-range", `bytes */${size}`).send();
  }
  return reply
    .code(206)
    .header("content-range", `bytes ${start}-${end}/${size}`)
    .send(body.subarray(start, end + 1));
}
