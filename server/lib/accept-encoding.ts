/* What a client accepts in Accept-Encoding, for every answer the server compresses. */

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

const accepted = new Map<string, Accepted>();
const codingsKept = 100;

/** Browsers send a handful of distinct values: each is parsed once. */
function acceptedOf(acceptEncoding: string): Accepted {
  const known = accepted.get(acceptEncoding);
  if (known !== undefined) return known;
  const coding = parseAcceptEncoding(acceptEncoding);
  if (accepted.size >= codingsKept) accepted.clear();
  accepted.set(acceptEncoding, coding);
  return coding;
}

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
