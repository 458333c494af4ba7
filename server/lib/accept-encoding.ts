/* What a client accepts in Accept-Encoding, for every answer the server compresses. */

import { remembered } from "./remembered.ts";

/**
 * The coding to answer with: brotli, then gzip, among those the client
 * accepts (an explicit `q=0` refuses one), or none.
 */
export function preferredEncoding(acceptEncoding: string | undefined): "br" | "gzip" | null {
  return acceptEncoding ? acceptedOf(acceptEncoding).preferred : null;
}

/** Whether the client accepts gzip. */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return acceptEncoding ? acceptedOf(acceptEncoding).gzip : false;
}

type Accepted = { preferred: "br" | "gzip" | null; gzip: boolean };

/** Browsers send a handful of distinct values: each is parsed once. */
const acceptedOf = remembered(parseAcceptEncoding, 100);

function parseAcceptEncoding(acceptEncoding: string): Accepted {
  const names = new Set<string>();
  for (const part of acceptEncoding.split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (q && Number(q.slice(2)) === 0) continue;
    names.add(name.trim());
  }
  const gzip = names.has("gzip");
  return { preferred: names.has("br") ? "br" : gzip ? "gzip" : null, gzip };
}
