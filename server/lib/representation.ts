import { createHash } from "node:crypto";
import { brotliCompressSync, constants, crc32, deflateRawSync, gzipSync } from "node:zlib";
import type { FastifyReply, FastifyRequest } from "fastify";
import { acceptsGzip, preferredEncoding } from "./accept-encoding.ts";

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
  /** Brotli's quality for this answer (`encoded`): 4 for one made for a single request. */
  brQuality?: number;
  /** Offered in gzip alone: an assembled answer's gzip is joined from kept pieces, brotli's cannot be. */
  gzipOnly?: true;
  gzip?: Buffer;
  br?: Buffer;
  /** Its first `keep` bytes as the start of a gzip stream, left open for a reader's own (`assembled`). */
  opened?: { keep: number; bytes: Buffer; crc: number };
};

/** Below this, compression saves less than its headers and work cost. */
export const compressAbove = 1024;

/**
 * `body` in one coding, at the levels every answer of the server uses: brotli
 * at quality 5 (4 for a page made for each request), gzip at 6.
 */
export function encoded(body: Buffer | string, coding: "br" | "gzip", brQuality = 5): Buffer {
  return coding === "br"
    ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: brQuality } })
    : gzipSync(body, { level: 6 });
}

export function representation(
  body: string | Buffer,
  {
    shared = true,
    once = false,
  }: {
    shared?: boolean;
    /** Made for one request and sent once (a search's answer): compressed at brotli's 4. */
    once?: boolean;
  } = {},
): Representation {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  return {
    body: bytes,
    etag: strongEtag(bytes),
    compressible: shared && bytes.length > compressAbove,
    ...(shared ? {} : { personal: true as const }),
    ...(once ? { brQuality: 4 } : {}),
  };
}

/** A reader's own part of an answer, kept to follow shared bytes (`assembled`). */
export type Tail = { bytes: Buffer; tag: string; deflated?: Buffer };

export function tail(text: string): Tail {
  const bytes = Buffer.from(text);
  return { bytes, tag: createHash("sha256").update(bytes).digest("base64url").slice(0, 16) };
}

/**
 * One reader's answer: the shared bytes up to `keep` (their first `keep`
 * bytes), then the reader's own, copied from both as they are, nothing
 * serialized again (docs/decisions/035-returning-readers-read-the-shared-bytes.md).
 * Its validator joins the shared one and the tail's, so it changes whenever
 * either does. Its gzip is joined the same way: the shared part deflated
 * once and left open, the reader's part deflated once, and the trailer's
 * checksum carried on from the shared part's; nothing is compressed per request.
 */
export function assembled(shared: Representation, keep: number, own: Tail): Representation {
  return (
    recentJoins.of(shared, keep, own) ??
    recentJoins.keep(shared, keep, own, joined(shared, keep, own))
  );
}

function joined(shared: Representation, keep: number, own: Tail): Representation {
  let body: Buffer | undefined;
  let gzip: Buffer | undefined;
  return {
    get body() {
      body ??= Buffer.concat([shared.body.subarray(0, keep), own.bytes]);
      return body;
    },
    etag: `${shared.etag.slice(0, -1)}.${own.tag}"`,
    compressible: shared.compressible,
    personal: true,
    gzipOnly: true,
    get gzip() {
      gzip ??= joinedGzip(shared, keep, own);
      return gzip;
    },
  };
}

/**
 * The joined answers of the most recent readers, so that a reader who reads
 * the same discussion again is sent bytes already made. Joining them per
 * request allocated a buffer each time, and at thousands of reads a second
 * those buffers made V8 collect its whole heap every second or so, which was
 * the returning readers' slowest 1 %. Bounded: the oldest is forgotten first,
 * at a few kilobytes each.
 */
const recentJoins = (() => {
  const kept = 2000;
  const joins = new Map<Tail, { shared: Representation; keep: number; joined: Representation }>();
  return {
    of(shared: Representation, keep: number, own: Tail): Representation | undefined {
      const join = joins.get(own);
      return join?.shared === shared && join.keep === keep ? join.joined : undefined;
    },
    keep(shared: Representation, keep: number, own: Tail, joined: Representation): Representation {
      joins.delete(own);
      if (joins.size >= kept) joins.delete(joins.keys().next().value as Tail);
      joins.set(own, { shared, keep, joined });
      return joined;
    },
  };
})();

/** A gzip member's header: deflate, no name, no time, unknown system (RFC 1952). */
const gzipHeader = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

function joinedGzip(shared: Representation, keep: number, own: Tail): Buffer {
  if (shared.opened?.keep !== keep) {
    const head = shared.body.subarray(0, keep);
    // A sync flush ends on a byte boundary with no final block: the reader's
    // deflated part, a stream of its own, follows as the last blocks.
    const deflated = deflateRawSync(head, { level: 6, finishFlush: constants.Z_SYNC_FLUSH });
    shared.opened = { keep, bytes: Buffer.concat([gzipHeader, deflated]), crc: crc32(head) };
  }
  own.deflated ??= deflateRawSync(own.bytes, { level: 6 });
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(own.bytes, shared.opened.crc), 0);
  trailer.writeUInt32LE((keep + own.bytes.length) % 2 ** 32, 4);
  return Buffer.concat([shared.opened.bytes, own.deflated, trailer]);
}

/** A strong validator for bytes served as they are. */
export function strongEtag(body: string | Buffer): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
}

/** Whether the client already holds `etag` (If-None-Match may list several). */
export function clientHolds(request: FastifyRequest, etag: string): boolean {
  return request.headers["if-none-match"]?.split(",").some((tag) => tag.trim() === etag) ?? false;
}

/**
 * Sends `entry` with its ETag (304 when the client holds it), compressed when
 * the client accepts it and the entry is worth it. Every coding of one version
 * shares the validator: the bytes differ, the content does not, and `Vary`
 * keeps caches from mixing them up.
 */
export function sendRepresentation(
  request: FastifyRequest,
  reply: FastifyReply,
  entry: Representation,
  /** What else the answer depends on, for caches between (e.g. `cookie`). */
  varies: string[] = [],
) {
  reply.header("etag", entry.etag).header("vary", varyOf(varies));
  if (clientHolds(request, entry.etag)) return reply.code(304).send();
  const acceptEncoding = request.headers["accept-encoding"];
  const coding = !entry.compressible
    ? null
    : entry.gzipOnly
      ? acceptsGzip(acceptEncoding)
        ? "gzip"
        : null
      : preferredEncoding(acceptEncoding);
  if (coding === "br") {
    entry.br ??= encoded(entry.body, "br", entry.brQuality);
    return reply.header("content-encoding", "br").send(entry.br);
  }
  if (coding === "gzip") {
    entry.gzip ??= encoded(entry.body, "gzip");
    return reply.header("content-encoding", "gzip").send(entry.gzip);
  }
  return reply.send(entry.body);
}

export const varyOf = (varies: string[]) => ["accept-encoding", ...varies].join(", ");
