import { createHash } from "node:crypto";

/**
 * Bytes kept in memory and served as they are (cached item reads, pages filled
 * in with their discussion), with a strong validator and, once asked for, their
 * compressed copies: made once per version rather than once per request.
 */
export type Representation = {
  body: Buffer;
  etag: string;
  /** Whether copies are worth keeping: shared by many readers, and large enough to gain. */
  compressible: boolean;
  gzip?: Buffer;
  br?: Buffer;
};

/** Below this, compression saves less than its headers and work cost. */
const compressAbove = 1024;

export function representation(
  body: string | Buffer,
  { shared = true }: { shared?: boolean } = {},
): Representation {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  return {
    body: bytes,
    etag: strongEtag(bytes),
    compressible: shared && bytes.length > compressAbove,
  };
}

/** A strong validator for bytes served as they are. */
export function strongEtag(body: string | Buffer): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
}
