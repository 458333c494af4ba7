import { readFile } from "node:fs/promises";
import path from "node:path";
import type { InboxContext } from "@fedify/fedify";
import type { Actor } from "@fedify/fedify/vocab";
import type { FastifyInstance } from "fastify";
import { rowIdParamSchema } from "../../contract/api.ts";
import type { Config } from "../config.ts";
import { clientHolds, strongEtag } from "../lib/representation.ts";
import type { RemoteFetch } from "../lib/safe-fetch.ts";
import type { Profile } from "./federation.ts";
import type { Logger } from "./logging.ts";

/*
 * The picture of someone who replies from the Fediverse, fetched once when
 * their reply arrives, through the guarded fetch (no private addresses
 * outside tests, checked again at each redirect), within a size and a time
 * limit, and kept only when its bytes are a PNG, JPEG, GIF or WebP image
 * of at most 1,024 pixels a side:
 * the type their server claims is not trusted, and SVG (which can carry
 * script) is never taken. The copy is served from the site's own origin
 * (`servePictures`), so a reader's browser never asks their server for it. The
 * owner's own picture is the account's icon (`profileOf`).
 */

/** Bytes a picture may have: a Mastodon avatar is at most 2 MB, most are under 100 KB. */
export const pictureBytesMax = 256 * 1024;
const pictureTimeoutMs = 5000;

/** The image type these bytes are, by their first bytes, or null for anything else. */
export function imageTypeOf(bytes: Uint8Array): string | null {
  const starts = (...values: number[]) => values.every((value, at) => bytes[at] === value);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (starts(0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39)) {
    return bytes[5] === 0x61 ? "image/gif" : null;
  }
  const riff = starts(0x52, 0x49, 0x46, 0x46);
  const webp = bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50;
  return riff && webp ? "image/webp" : null;
}

/**
 * The most pixels a picture may have a side. It is drawn a few dozen pixels
 * wide, yet a reader's browser decodes it whole, four bytes a pixel: 256 KB of
 * PNG can say 20,000 × 20,000 (1.6 GB), and a page shows one per comment.
 * Mastodon serves avatars at 400 × 400.
 */
const pictureSideMax = 1024;

/** A picture's size as its header gives it (a GIF's frames all inside it), or null when none. */
export function imageSizeOf(bytes: Buffer): { width: number; height: number } | null {
  try {
    const type = imageTypeOf(bytes);
    const chunk = bytes.toString("latin1", 12, 16);
    if (type === "image/png" && chunk === "IHDR") {
      return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
    }
    if (type === "image/jpeg") return jpegSizeOf(bytes);
    if (type === "image/gif") return gifSizeOf(bytes);
    if (type !== "image/webp") return null;
    if (chunk === "VP8 ") {
      return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
    }
    const bits = bytes.readUInt32LE(21);
    if (chunk === "VP8L")
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    if (chunk !== "VP8X") return null;
    return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  } catch {
    // A header cut short.
    return null;
  }
}

/** A JPEG's size from its first frame header (SOFn), read past the segments before it. */
function jpegSizeOf(bytes: Buffer) {
  for (let at = 2; bytes[at] === 0xff; ) {
    const marker = bytes[at + 1] ?? 0;
    if (marker === 0xff) at += 1;
    else if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) at += 2;
    else if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { width: bytes.readUInt16BE(at + 7), height: bytes.readUInt16BE(at + 5) };
    } else if (marker === 0xd9 || marker === 0xda) return null;
    else at += 2 + bytes.readUInt16BE(at + 2);
  }
  return null;
}

/** A GIF's size: its screen's, grown to hold each frame, as browsers draw it. */
function gifSizeOf(bytes: Buffer) {
  const colours = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  let [width, height] = [bytes.readUInt16LE(6), bytes.readUInt16LE(8)];
  let at = 13 + colours(bytes[10] ?? 0);
  const skipBlocks = () => {
    while ((bytes[at] ?? 0) !== 0) at += (bytes[at] ?? 0) + 1;
    at += 1;
  };
  while (at < bytes.length && bytes[at] !== 0x3b) {
    if (bytes[at] === 0x21) {
      at += 2;
    } else if (bytes[at] === 0x2c) {
      width = Math.max(width, bytes.readUInt16LE(at + 1) + bytes.readUInt16LE(at + 5));
      height = Math.max(height, bytes.readUInt16LE(at + 3) + bytes.readUInt16LE(at + 7));
      at += 11 + colours(bytes[at + 9] ?? 0);
    } else return null;
    skipBlocks();
  }
  return { width, height };
}

/** Whether bytes are a picture kept and served: a PNG, JPEG, GIF or WebP, at most `pictureSideMax` a side. */
export function isSmallImage(bytes: Buffer): boolean {
  const size = imageSizeOf(bytes);
  return !!size && [size.width, size.height].every((side) => side >= 1 && side <= pictureSideMax);
}

/**
 * The picture at `url` as `type;base64,…`, or null when it cannot be had
 * within the limits or is not an image; `why` hears the reason.
 */
export async function fetchPicture(
  remoteFetch: RemoteFetch,
  url: string,
  why: (reason: string) => void = () => {},
): Promise<string | null> {
  try {
    const answer = await remoteFetch(url, {
      timeoutMs: pictureTimeoutMs,
      maxBytes: pictureBytesMax,
      headers: { accept: "image/png, image/jpeg, image/gif, image/webp" },
    });
    if (answer.status !== 200) {
      why(`it answered ${answer.status}`);
      return null;
    }
    const type = imageTypeOf(answer.body);
    if (!type) {
      why("it is not a PNG, JPEG, GIF or WebP image");
      return null;
    }
    if (!isSmallImage(answer.body)) {
      why(`it is over ${pictureSideMax} pixels a side, or gives no size`);
      return null;
    }
    return `${type};base64,${answer.body.toString("base64")}`;
  } catch (error) {
    why(error instanceof Error ? error.message : String(error));
    return null;
  }
}

/** A reply's writer's picture (their account's icon), fetched once, or null. */
export async function writerPicture(
  actor: Actor,
  ctx: InboxContext<void>,
  remoteFetch: RemoteFetch,
  log: Pick<Logger, "info">,
): Promise<string | null> {
  let url: URL | undefined;
  try {
    const icon = await actor.getIcon(ctx);
    url = (icon?.url instanceof URL ? icon.url : icon?.url?.href) ?? undefined;
  } catch (error) {
    log.info({ err: error }, "a Fediverse writer's picture could not be read");
    return null;
  }
  if (!url) return null;
  return fetchPicture(remoteFetch, url.href, (reason) =>
    log.info(
      { actor: actor.id?.href, picture: url.href, reason },
      "a Fediverse writer's picture was not kept",
    ),
  );
}

/** The owner's picture as the actor's icon: a drawing (SVG) is no avatar to a Fediverse server. */
const ownerPictureTypes: Record<string, string> = {
  ".jpg": "image/jpeg",
  ".png": "image/png",
  ".webp": "image/webp",
};

/** The account's profile: the owner's (content/owner.md), their picture a file of `contentRoot`. */
export function profileOf(owner: Config["owner"], contentRoot: string): Profile {
  const type = owner.photo && ownerPictureTypes[path.extname(owner.photo.src).toLowerCase()];
  return {
    name: owner.name,
    summary: owner.role,
    links: owner.links,
    picture:
      owner.photo && type
        ? { file: path.join(contentRoot, "images", owner.photo.src), type }
        : null,
  };
}

/** The pictures the site serves: the writers' as kept, and the owner's, the account's icon. */
export function servePictures(
  app: FastifyInstance,
  {
    shownAvatar,
    picture,
  }: {
    /** A Fediverse writer's picture as its comment shows it (repository.ts), or null. */
    shownAvatar: (commentId: number) => Promise<string | null>;
    picture: Profile["picture"];
  },
) {
  // A Fediverse writer's picture, as kept when their reply arrived (pictures.ts).
  app.get("/fediverse/avatars/:commentId", async (request, reply) => {
    const { commentId } = request.params as { commentId: string };
    const id = rowIdParamSchema.safeParse(commentId);
    const avatar = id.success ? await shownAvatar(id.data) : null;
    const [type = "", data = ""] = avatar?.split(";base64,") ?? [];
    const bytes = Buffer.from(data, "base64");
    // Checked again as it goes out: a row an import brought in is a file's word.
    if (imageTypeOf(bytes) !== type || !isSmallImage(bytes)) {
      return reply.code(404).send({ error: { code: "not_found", message: "No such picture." } });
    }
    // Every cache asks again before showing it (304 while it stands), so one
    // erased with its comment answers 404 at once (docs/fediverse.md).
    const etag = strongEtag(bytes);
    reply.header("cache-control", "no-cache").header("etag", etag);
    if (clientHolds(request, etag)) return reply.code(304).send();
    return reply
      .type(type)
      .header("content-security-policy", "default-src 'none'")
      .header("x-content-type-options", "nosniff")
      .send(bytes);
  });

  if (picture) {
    app.get("/fediverse/picture", async (_request, reply) =>
      reply
        .type(picture.type)
        .header("cache-control", "public, max-age=86400")
        .send(await readFile(picture.file)),
    );
  }
}
