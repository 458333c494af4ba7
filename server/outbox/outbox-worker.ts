import type { OutboxKind } from "../db/schema.ts";
import { classifyFailure, type Mailer, type OutgoingMail } from "./mailer.ts";
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

/** Writes the mail of an outbox row of one kind, or says why there is none to send. */
export type ComposeMail = (
  ...args: Parameters<Deliver>
) => Promise<OutgoingMail | Exclude<Awaited<ReturnType<Deliver>>, { outcome: "sent" }>>;

export type WorkerOptions = {
  outbox: OutboxRepository;
  mailer: Mailer;
  /** Messages per minute from this instance; 0 for no pacing. */
  ratePerMinute: number;
  /** How often an idle worker looks for rows queued by other processes. */
  pollMs?: number;
  log: WorkerLog;
  /** The kinds of row this worker sends, each with its mail. */
  composers: Partial<Record<OutboxKind, ComposeMail>>;
};

export type LoopOptions = {
  outbox: OutboxRepository;
  /** The kinds of row this loop claims. */
  kinds: readonly OutboxKind[];
  deliver: Deliver;
  /** Rows per minute from this instance; 0 for no pacing. */
  ratePerMinute: number;
  pollMs?: number;
  log: WorkerLog;
  /** Runs once the loop has stopped. */
  onStop?: () => void;
};

/**
 * Works through the outbox rows of some kinds, one at a time, at most
 * `ratePerMinute` per minute. Runs inside every server instance; the
 * outbox's row claiming makes sure each row is handled by one of them.
 */
export function startOutboxLoop({
  outbox,
  kinds,
  deliver,
  ratePerMinute,
  pollMs = 1000,
  log,
  onStop,
}: LoopOptions): OutboxWorker {
  const spacingMs = ratePerMinute > 0 ? 60_000 / ratePerMinute : 0;
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

  const running = (async () => {
    const released = await outbox.releaseClaims({ kinds }).catch(() => 0);
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
        worked = await outbox.processNext(deliver, { kinds });
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
      onStop?.();
    },
  };
}

/**
 * Sends the outbox's mail: every kind given in `composers` (the newsletter's
 * confirmations and editions, the owner's notifications), one at a time, at
 * most `ratePerMinute` per minute.
 */
export function startMailWorker({
  outbox,
  mailer,
  ratePerMinute,
  pollMs = 1000,
  log,
  composers,
}: WorkerOptions): OutboxWorker {
  const deliver: Deliver = async (row, db, batch) => {
    const compose = composers[row.kind];
    if (!compose) return { outcome: "failed", reason: `no mail for ${row.kind} rows` };
    const composed = await compose(row, db, batch);
    if ("outcome" in composed) return composed;
    try {
      await mailer.send(composed);
      return { outcome: "sent" };
    } catch (error) {
      const { permanent, reason } = classifyFailure(error);
      log.warn({ outbox: row.id, permanent, reason }, "mail not accepted");
      return permanent ? { outcome: "failed", reason } : { outcome: "retry", reason };
    }
  };

  return startOutboxLoop({
    outbox,
    kinds: Object.keys(composers) as OutboxKind[],
    deliver,
    ratePerMinute,
    pollMs,
    log,
    onStop: () => mailer.close(),
  });
}
