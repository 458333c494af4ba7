import type { Deliver, OutboxRow } from "./delivery-rules.ts";
import type { SmtpError } from "./mailer.ts";
import { recordFeedback } from "./marks.ts";
import type { Suppressions } from "./suppressions.ts";
import { verpAddress } from "./verp.ts";

/**
 * What the outbox worker asks and tells about a recipient
 * (docs/decisions/047-list-health.md): whether the address is suppressed
 * (then the mail is cancelled, whatever its kind), the mail's own bounce
 * address, and a refusal at send time: a hard bounce suppresses the address
 * at once, a mail that kept failing until the outbox gave up counts as a soft
 * bounce. Either marks the row, for its edition's figures.
 */
export type RecipientHealth = {
  suppressed(email: string): Promise<boolean>;
  /** `db` is the delivery's own: on PostgreSQL, the transaction that holds the row. */
  refused(
    row: OutboxRow,
    failure: { hard: boolean; reason: string },
    db: Parameters<Deliver>[1],
  ): Promise<void>;
  /** The return path of the row's mail to `email`, when BOUNCE_ADDRESS is set. */
  returnPath?: (rowId: number, email: string) => string;
};

export function createRecipientHealth(
  suppressions: Suppressions,
  {
    bounceAddress,
    verpKey,
    undeliverable,
  }: { bounceAddress: string | undefined; verpKey: string; undeliverable?: OnUndeliverable },
): RecipientHealth {
  return {
    suppressed: (email) => suppressions.isSuppressed(email),
    async refused(row, { hard, reason }, db) {
      if (!row.email) return;
      if (hard)
        await suppressions.suppress(row.email, "hard_bounce", { source: "smtp", detail: reason });
      else
        await suppressions.softBounce(row.email, {
          ref: `outbox ${row.id}`,
          source: "smtp",
          detail: reason,
        });
      await recordFeedback(db, Number(row.id), "bounce");
      if (hard) await undeliverable?.(row, db);
    },
    ...(bounceAddress
      ? {
          returnPath: (rowId: number, email: string) =>
            verpAddress(bounceAddress, rowId, email, verpKey),
        }
      : {}),
  };
}

/**
 * What the mail's own module does when a hard bounce is tied to the row it was sent
 * from: its SMTP answer, a report to its signed return path, or a verified provider's
 * report of it (docs/decisions/090-a-booking-whose-address-bounces-is-released.md).
 * `db`: the delivery's own at send time (on PostgreSQL, the transaction that holds the row).
 */
export type OnUndeliverable = (
  row: Pick<OutboxRow, "id" | "kind" | "email" | "payload">,
  db?: Parameters<Deliver>[1],
) => Promise<void>;

/** What a refused mail says of its recipient's address (`bounceOf`). */
export type Bounce = "hard" | "soft";

/**
 * What an enhanced status code (RFC 3463) of a refused mail, at send time or
 * in a delivery report, says of its recipient's address: null, nothing, when
 * the message or its sender was refused, as a mail to anyone else would be
 * (5.7.x: policy, spam, a blocklisted sending server, a relay that wants a
 * login; 5.3.x: the receiving system, too large a message; 5.6.x: its
 * content; 5.2.3: too long for the mailbox); "soft", a state that passes (any
 * 4.x.x; 5.2.2, a full mailbox, which many servers call permanent; 5.4.7,
 * retried until given up); "hard", the address is no more (5.1.x: no such
 * mailbox or domain, and the rest: Outlook.com refuses an unknown mailbox
 * with 5.5.0, Exchange Online with 5.4.1, others with 5.0.0).
 */
export function bounceOf(status: string): Bounce | null {
  if (/^5\.(3|6|7)\.|^5\.2\.3$/.test(status)) return null;
  return /^4\.|^5\.2\.2$|^5\.4\.7$/.test(status) ? "soft" : "hard";
}

/**
 * How the outbox treats a failed delivery. `bounce`: what the refusal says of
 * the recipient's address (`bounceOf`): "hard", it is no more; "soft", a state that passes (a full mailbox); null, nothing: the
 * message or its sender was refused (taken for spam, a blocklisted sending
 * server, a relay that wants a login, too large), which any recipient would
 * meet, so nobody is suppressed for it.
 */
type DeliveryFailure = {
  permanent: boolean;
  bounce: Bounce | null;
  /**
   * Whether a temporary refusal was said of the recipient's address (a full
   * mailbox, an unknown user for now), so that a mail given up on counts as its
   * soft bounce: not when the mail server could not be reached or took no
   * login, nor when it refused the sender or the message (4.7.x: slow down;
   * 4.3.x: its own system), which it would for any recipient.
   */
  aboutRecipient: boolean;
  reason: string;
};

/**
 * A 5xx answer to the envelope or the message is the recipient's server
 * saying no: permanent. A 4xx answer, a lost connection, a timeout or a
 * refused login are temporary: the message waits and is tried again, and a
 * broken configuration does not fail a whole edition at once. A permanent
 * answer is read for its enhanced status (RFC 3463); one without, from a
 * server too old to give it, is a hard bounce when it refused the recipient
 * (`RCPT TO`), and says nothing of the address when it refused the sender or
 * the message.
 */
export function classifyFailure(error: unknown): DeliveryFailure {
  const { responseCode, response, code, message, command } = (error ?? {}) as Partial<SmtpError>;
  const reason = (response ?? message ?? String(error)).replace(/\s+/g, " ").slice(0, 500);
  const permanent =
    typeof responseCode === "number" &&
    responseCode >= 500 &&
    code !== "EAUTH" &&
    code !== "ECONNECTION";
  // The enhanced status follows the reply code (RFC 2034), on each line of the answer.
  const status = /^\d{3}[ -]([245]\.\d{1,3}\.\d{1,3})(?![\w.])/.exec(reason)?.[1];
  const bounce = !permanent
    ? null
    : status
      ? bounceOf(status)
      : code === "EENVELOPE" && command === "RCPT TO"
        ? "hard"
        : null;
  const answered = code === "EENVELOPE" || code === "EMESSAGE";
  const aboutRecipient =
    answered &&
    (status
      ? bounceOf(status.replace(/^4/, "5")) !== null
      : code === "EENVELOPE" && command === "RCPT TO");
  return { permanent, bounce, aboutRecipient, reason };
}
