import type { Deliver, OutboxRow } from "./delivery-rules.ts";
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
  { bounceAddress, verpKey }: { bounceAddress: string | undefined; verpKey: string },
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
    },
    ...(bounceAddress
      ? {
          returnPath: (rowId: number, email: string) =>
            verpAddress(bounceAddress, rowId, email, verpKey),
        }
      : {}),
  };
}
