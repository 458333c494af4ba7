import type { FastifyReply } from "fastify";
import type { Engagement } from "../engagement/index.ts";
import type { FormTickets, FormTokenCheck, FormTokens } from "../lib/form-token.ts";
import { ApiError } from "./errors.ts";

/** What the subscription routes need beyond the repositories. */
export type NewsletterDeps = {
  formTokens: FormTokens;
  formTickets: FormTickets;
  confirmationsPerIpPerHour: number;
  /** Tells this instance's outbox worker that a mail is waiting. */
  mailQueued(): void;
};

/** The refusals of the list-bombing defences (docs/product.md, "Newsletter"), as API errors. */
export function timingRefusal(check: Exclude<FormTokenCheck, "ok">): ApiError {
  if (check === "too_fast") {
    return new ApiError(
      400,
      "too_fast",
      "The form was sent faster than a person can fill it in; wait a moment and send it again.",
    );
  }
  return new ApiError(
    400,
    "form_token_invalid",
    check === "stale"
      ? "The form has expired; reload the page and send it again."
      : check === "used"
        ? "This form was sent already; send it again."
        : "The form's token is missing or altered; reload the page and send it again.",
  );
}

export function assertNoHoneypot(website: string | null | undefined): void {
  if (website) {
    throw new ApiError(
      400,
      "honeypot_filled",
      "A field people never see was filled in, so this looks automated; nothing was sent.",
    );
  }
}

/**
 * The rules every way of subscribing shares, once the form's own checks
 * passed: the per-IP cap on confirmation mails, one mail per pending address
 * per 24 hours, confirmed addresses answered "already subscribed".
 */
export async function requestSubscription(
  { engagement, newsletter }: { engagement: Engagement; newsletter: NewsletterDeps },
  email: string,
  ip: string,
  reply: FastifyReply,
): Promise<void> {
  const outcome = await engagement.subscribers.subscribe(email, {
    ip,
    maxPerIpPerHour: newsletter.confirmationsPerIpPerHour,
  });
  if (outcome === "already_subscribed") {
    throw new ApiError(409, "already_subscribed", "This email address is already subscribed.");
  }
  if (outcome === "ip_limited") {
    reply.header("retry-after", "3600");
    throw new ApiError(
      429,
      "rate_limited",
      "Too many confirmation mails were requested from your connection; try again in an hour.",
    );
  }
  if (outcome === "confirmation_queued") newsletter.mailQueued();
}
