import { createHmac } from "node:crypto";
import type { Delivery } from "../outbox/delivery-rules.ts";

/**
 * `sha256=` and the hex HMAC-SHA256, keyed with WEBHOOK_SECRET, of the
 * timestamp, a dot and the raw body. The timestamp is signed with the body so
 * a receiver that refuses old timestamps cannot be fed a recorded call again.
 */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

type WebhookCall = {
  url: string;
  secret: string;
  /** The event's type, e.g. comment.created. */
  event: string;
  /** The same on every attempt of one event: receivers drop repeats by it. */
  deliveryId: string;
  body: string;
  now: Date;
  timeoutMs: number;
};

/**
 * One attempt. 2xx is done. A timeout, a lost connection, 408, 429 or a 5xx
 * is temporary and the outbox tries again later (30 s, doubling). Any other
 * answer is the receiver refusing this call, so repeating it would not help:
 * the row is marked failed with the status. Redirects are not followed: the
 * signed body is for the configured address only.
 */
export async function callWebhook(call: WebhookCall): Promise<Delivery> {
  const timestamp = String(Math.floor(call.now.getTime() / 1000));
  let response: Response;
  try {
    response = await fetch(call.url, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(call.timeoutMs),
      // docs/mail.md, "Notifications of new comments".
      headers: {
        "content-type": "application/json",
        "user-agent": "EngageWithEngineer-Webhook/1",
        "x-ewe-event": call.event,
        "x-ewe-delivery": call.deliveryId,
        "x-ewe-timestamp": timestamp,
        "x-ewe-signature": webhookSignature(call.secret, timestamp, call.body),
      },
      body: call.body,
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const reason =
      (error as Error).name === "TimeoutError"
        ? `no answer within ${call.timeoutMs} ms`
        : `could not connect${cause ? ` (${cause})` : ""}`;
    return { outcome: "retry", reason };
  }
  // The answer's body is of no use; cancelling it frees the connection.
  await response.body?.cancel().catch(() => undefined);
  const { status } = response;
  if (status >= 200 && status < 300) return { outcome: "sent" };
  const reason = `the receiver answered ${status}`;
  if (status === 408 || status === 429 || status >= 500) return { outcome: "retry", reason };
  if (status >= 300 && status < 400) {
    return { outcome: "failed", reason: `${reason} (redirects are not followed)` };
  }
  return { outcome: "failed", reason };
}
