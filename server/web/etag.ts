import { createHash } from "node:crypto";
import type { FastifyRequest } from "fastify";

/** A strong validator for bytes served as they are (cached reads, filled-in pages). */
export function strongEtag(body: string | Buffer): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
}

/** Whether the client already holds `etag` (If-None-Match may list several). */
export function clientHolds(request: FastifyRequest, etag: string): boolean {
  return request.headers["if-none-match"]?.split(",").some((tag) => tag.trim() === etag) ?? false;
}
