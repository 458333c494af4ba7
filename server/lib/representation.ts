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
  /** Made for one reader (their own flags): never for a shared cache. */
  personal?: true;
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
    ...(shared ? {} : { personal: true as const }),
  };
}

/** A reader's own part of an answer, kept to follow shared bytes (`assembled`). */
export type Tail = { bytes: Buffer; tag: string };

export function tail(text: string): Tail {
  const bytes = Buffer.from(text);
  return { bytes, tag: createHash("sha256").update(bytes).digest("base64url").slice(0, 16) };
}

/**
 * One reader's answer: the shared bytes up to `keep` (their first `keep`
 * bytes), then the reader's own, copied from both as they are, nothing
 * serialized again. Its validator joins the shared one and the tail's, so it
 * changes whenever either does. Sent uncompressed: compressing per reader
 * is the work per request this saves
 * (docs/decisions/035-returning-readers-read-the-shared-bytes.md).
 */
export function assembled(shared: Representation, keep: number, own: Tail): Representation {
  return {
    body: Buffer.concat([shared.body.subarray(0, keep), own.bytes]),
    etag: `${shared.etag.slice(0, -1)}.${own.tag}"`,
    compressible: false,
    personal: true,
  };
}

/** A strong validator for bytes served as they are. */
export function strongEtag(body: string | Buffer): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
}
