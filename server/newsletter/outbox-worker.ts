import { classifyFailure, type Mailer } from "./mailer.ts";
import { confirmationMail, editionMail } from "./messages.ts";
import type { Deliver, OutboxRepository } from "./outbox-repository.ts";

export type WorkerLog = {
  info(object: unknown, message: string): void;
  warn(object: unknown, message: string): void;
  error(object: unknown, message: string): void;
};

export type OutboxWorker = {
  /** Looks for due rows now, e.g. right after this instance queued one. */
  wake(): void;
  /** Finishes the message in hand, then stops. */
  stop(): Promise<void>;
};

export type WorkerOptions = {
  outbox: OutboxRepository;
  mailer: Mailer;
  siteUrl: string;
  /** Messages per minute from this instance; 0 for no pacing. */
  ratePerMinute: number;
  /** How often an idle worker looks for rows queued by other processes. */
  pollMs?: number;
  log: WorkerLog;
};

/**
 * Sends the outbox, one row at a time, at most `ratePerMinute` per minute.
 * Runs inside every server instance; the outbox's row claiming makes sure
 * each row is handled by one of them.
 */
export function startOutboxWorker({
  outbox,
  mailer,
  siteUrl,
  ratePerMinute,
  pollMs = 1000,
  log,
}: WorkerOptions): OutboxWorker {
  const spacingMs = ratePerMinute > 0 ? 60_000 / ratePerMinute : 0;
  const editions = new Map<number, { subject: string; html: string; text: string }>();
  let stopped = false;
  let wakeUp: (() => void) | null = null;
  let lastStart = 0;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });

  const deliver: Deliver = async (row, db) => {
    let mail: ReturnType<typeof editionMail>;
    if (row.kind === "confirmation") {
      if (!row.token) return { outcome: "failed", reason: "no confirmation token" };
      mail = confirmationMail({ to: row.email, token: row.token }, siteUrl);
    } else {
      // Only to an address still subscribed, under the token the row was queued with.
      const recipient = row.token
        ? await db
            .selectFrom("subscribers")
            .select("id")
            .where("unsubscribe_token", "=", row.token)
            .where("status", "=", "confirmed")
            .executeTakeFirst()
        : undefined;
      if (!recipient) return { outcome: "cancelled", reason: "unsubscribed before sending" };
      const editionId = row.edition_id as number;
      let edition = editions.get(editionId);
      if (!edition) {
        edition = await outbox.edition(editionId);
        if (!edition) return { outcome: "failed", reason: "the edition is gone" };
        editions.set(editionId, edition);
      }
      mail = editionMail(edition, { to: row.email, token: row.token as string }, siteUrl);
    }
    try {
      await mailer.send(mail);
      return { outcome: "sent" };
    } catch (error) {
      const { permanent, reason } = classifyFailure(error);
      log.warn({ outbox: row.id, permanent, reason }, "mail not accepted");
      return permanent ? { outcome: "failed", reason } : { outcome: "retry", reason };
    }
  };

  const running = (async () => {
    const released = await outbox.releaseClaims().catch(() => 0);
    if (released > 0)
      log.info({ released }, "outbox rows claimed before a restart are queued again");
    while (!stopped) {
      const wait = lastStart + spacingMs - Date.now();
      if (wait > 0) {
        await pause(wait);
        continue;
      }
      lastStart = Date.now();
      let worked = false;
      try {
        worked = await outbox.processNext(deliver);
      } catch (error) {
        // The database is down: keep trying at the polling pace.
        log.error({ err: error }, "outbox could not be read");
      }
      if (!worked) {
        lastStart = 0;
        if (!stopped) await pause(pollMs);
      }
    }
  })();

  return {
    wake() {
      wakeUp?.();
    },
    async stop() {
      stopped = true;
      wakeUp?.();
      await running;
      mailer.close();
    },
  };
}
