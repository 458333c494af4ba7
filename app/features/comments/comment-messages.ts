import { ApiError } from "../../lib/api-client.ts";

/**
 * What the form says when the server refuses a comment: its own message (a
 * spam defence, a ban, the reserved name: docs/product.md, "Spam and
 * moderation"). Too many writes are the panel's notice to show.
 */
export function refusalMessage(error: unknown): string | null {
  if (error instanceof ApiError) {
    if (error.code === "rate_limited") return null;
    if (error.status >= 400 && error.status < 500) return error.message;
  }
  return "Your comment could not be sent. Check your connection and try again.";
}
