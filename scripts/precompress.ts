import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/*
 * The build's precompressed copies, brotli and gzip, beside each text file.
 * The hashed files under assets/ (the islands' scripts, the style sheet, the
 * icon sprite) are fetched by every reader and cached for good: their gzip is
 * zopfli's, about 3 % smaller than zlib's best. Everything else (pages, feeds,
 * the search index's scripts) changes with each build and is mostly fetched as
 * brotli: zlib's best does, in a hundredth of the time (zopfli on them was 11
 * of the build's 27 s).
 */

const compressible = /\.(html|js|css|svg|xml|txt|json|webmanifest)$/;

/** The gzip copy the build makes of `file` (relative to the client folder). */
export async function gzipCopy(file: string, source: Buffer): Promise<Buffer> {
  if (!file.startsWith(`assets${path.sep}`)) {
    return gzipSync(source, { level: constants.Z_BEST_COMPRESSION });
  }
  // Imported late: the WebAssembly module installs global error handlers.
  const { gzipAsync } = await import("@gfx/zopfli");
  return Buffer.from(await gzipAsync(source, { numiterations: 15 }));
}

/**
 * Writes `<file>.br`, and `<file>.gz` unless `gzip` is false, beside every
 * text file under `clientDir`. A copy is only written when it is smaller.
 * Brotli's best (quality 11) for the site; the browser tests' build asks for
 * quality 5: the same files served the same way, about a tenth larger, for a
 * fiftieth of the CPU (5.5 CPU-seconds of that build's 19 at 11).
 */
export async function writeCompressedCopies(
  clientDir: string,
  { gzip = true, brotliQuality = 11 } = {},
) {
  const targets = readdirSync(clientDir, { recursive: true, encoding: "utf8" }).filter((file) =>
    compressible.test(file),
  );
  await Promise.all(
    targets.map(async (file) => {
      const full = path.join(clientDir, file);
      const source = readFileSync(full);
      const brotli = brotliCompressSync(source, {
        params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality },
      });
      if (brotli.length < source.length) writeFileSync(`${full}.br`, brotli);
      if (!gzip) return;
      const zipped = await gzipCopy(file, source);
      if (zipped.length < source.length) writeFileSync(`${full}.gz`, zipped);
    }),
  );
}
