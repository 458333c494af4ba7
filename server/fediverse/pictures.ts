import path from "node:path";
import type { Config } from "../config.ts";
import type { Profile } from "./federation.ts";
import type { RemoteFetch } from "./safe-fetch.ts";

/*
 * The picture of someone who replies from the Fediverse, fetched once when
 * their reply arrives, through the guarded fetch (no private addresses
 * outside tests, checked again at each redirect), within a size and a time
 * limit, and kept only when its bytes are a PNG, JPEG, GIF or WebP image:
 * the type their server claims is not trusted, and SVG (which can carry
 * script) is never taken. The copy is served from the site's own origin
 * (routes.ts), so a reader's browser never asks their server for it. The
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
    return `${type};base64,${answer.body.toString("base64")}`;
  } catch (error) {
    why(error instanceof Error ? error.message : String(error));
    return null;
  }
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
