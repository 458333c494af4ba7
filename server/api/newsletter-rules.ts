import type { FastifyReply } from "fastify";
import type { Sender } from "../comments/confirmation-limits.ts";
import type { Engagement } from "../engagement/index.ts";
import {
  type FormTickets,
  type FormTokenCheck,
  type FormTokens,
  formTokenRefusal,
} from "../lib/form-token.ts";
import { ApiError } from "./errors.ts";

/** What the subscription routes need beyond the repositories. */
export type NewsletterDeps = {
  formTokens: FormTokens;
  formTickets: FormTickets;
  confirmationsPerIpPerHour: number;
  /** What the limits on confirmation mails count a request from an address by (writer-keys.ts). */
  senderOf(ip: string): Sender;
  /** Tells this instance's outbox worker that a mail is waiting. */
  mailQueued(): void;
};

/** The form's timing refused (docs/product.md, "Newsletter"), as an API error. */
export function timingRefusal(check: Exclude<FormTokenCheck, "ok">): ApiError {
  const { status, code, message } = formTokenRefusal(check);
  return new ApiError(status, code, message);
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
 * passed: the caps on confirmation mails per IP address and per network, one mail per mailbox (every
 * spelling of its address) per 24 hours; a confirmed address is answered as any other.
 */
export async function requestSubscription(
  { engagement, newsletter }: { engagement: Engagement; newsletter: NewsletterDeps },
  email: string,
  ip: string,
  reply: FastifyReply,
): Promise<void> {
  const outcome = await engagement.subscribers.subscribe(email, {
    sender: newsletter.senderOf(ip),
    maxPerIpPerHour: newsletter.confirmationsPerIpPerHour,
  });
  if (outcome === "ip_limited" || outcome === "network_limited") {
    reply.header("retry-after", "3600");
    const from = outcome === "ip_limited" ? "your connection" : "your network";
    throw new ApiError(
      429,
      "rate_limited",
      `Too many confirmation mails were requested from ${from}; try again in an hour.`,
    );
  }
  if (outcome === "confirmation_queued") newsletter.mailQueued();
}
