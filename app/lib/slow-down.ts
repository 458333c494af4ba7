import { ApiError } from "./api-client.ts";

export const slowDownMessage =
  "You're going a little fast. Please slow down and try again in a moment.";

/** Failures stay silent, but a 429 is explained (docs/product.md, "When something fails"). */
export function isRateLimited(error: unknown): boolean {
  return error instanceof ApiError && error.status === 429;
}
