import { ApiError } from "../../lib/api-client.ts";

/**
 * What the form says when the server refuses a comment: its own message (a
 * spam defence, a ban, the reserved name: docs/product.md, "Spam and
 * moderation"), and so when its database failed (it may have saved the
 * comment all the same). Too many writes are the panel's notice to show.
 */
export function refusalMessage(error: unknown): string | null {
  if (error instanceof ApiError) {
    if (error.code === "rate_limited") return null;
    if (error.status >= 400 && error.status < 500) return error.message;
    if (error.code === "service_unavailable") return error.message;
  }
  return "Your comment could not be sent. Check your connection and try again.";
}
