import { ApiError } from "../../lib/api-client.ts";

export const slowDownMessage =
  "You're going a little fast. Please slow down and try again in a moment.";

/** SPEC §8 keeps failures silent; a 429 is the one we explain (issue 5). */
export function isRateLimited(error: unknown): boolean {
  return error instanceof ApiError && error.status === 429;
}
