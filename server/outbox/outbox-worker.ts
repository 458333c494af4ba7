import type { OutboxKind } from "../db/schema.ts";
import { classifyFailure, type Mailer, type OutgoingMail } from "./mailer.ts";
import {
  type Deliver,
  type OutboxRepository,
  retryDelay,
  retryPolicy,
} from "./outbox-repository.ts";
import type { RecipientHealth } from "./recipient-health.ts";

export type WorkerLog = {
  info(object: unknown, message: string): void;
  warn(object: unknown, message: string): void;
  error(object: unknown, message: string): void;
};

export type OutboxWorker = {
  /** Looks for due rows now, e.g. right after this instance queued one. */
  wake(): void;
  /** Finishes the messages in hand, then stops. */
  stop(): Promise<void>;
};

/** Writes the mail of an outbox row of one kind, or says why there is none to send. */
export type ComposeMail = (
  ...args: Parameters<Deliver>
) => Promise<OutgoingMail | Exclude<Awaited<ReturnType<Deliver>>, { outcome: "sent" }>>;

export type LoopOptions = {
  outbox: OutboxRepository;
  /** The kinds of row this loop claims. */
  kinds: readonly OutboxKind[];
  deliver: Deliver;
  /** Rows per minute from this instance; 0 for no pacing. */
  ratePerMinute: number;
  /**
   * Rows delivered at once at most when not paced; 1 by default. For mail: those
   * the transport's connections send and those waiting for one.
   */
  inFlight?: number;
  /** How often an idle loop looks for rows queued by other processes. */
  pollMs?: number;
  /** The first wait before a retry (the repository's): the loop wakes when a retry falls due. */
  retryBaseMs?: number;
  log: WorkerLog;
  /** Resolves when sending can begin (awaited before the first row): the pace is kept from then on. */
  ready?: () => Promise<void>;
  /** Runs once the loop has stopped. */
  onStop?: () => void;
};

/**
 * Works through the outbox rows of some kinds: paced at `ratePerMinute`, one at
 * a time; unpaced, at most `inFlight` at once. Runs inside every server instance; the
 * outbox's row claiming makes sure each row is handled by one of them. It
 * never holds more than a page of rows (docs/decisions/036-sending-in-flat-memory.md).
 */
export function startOutboxLoop({
  outbox,
  kinds,
  deliver,
  ratePerMinute,
  inFlight = 1,
  pollMs = 1000,
  retryBaseMs = retryPolicy.baseMs,
  log,
  ready,
  onStop,
}: LoopOptions): OutboxWorker {
  const spacingMs = ratePerMinute > 0 ? 60_000 / ratePerMinute : 0;
  let stopped = false;
  /** When the next send may start, when paced. */
  let nextStart = 0;
  const waiting = new Set<() => void>();
  /** Woken while busy: the next pause ends at once, as a row queued meanwhile may have been missed. */
  let woken = false;

  /** Waits `ms`, or less when woken (a row queued or due again, the loop stopping). */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken) {
        woken = false;
        resolve();
        return;
      }
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        waiting.delete(done);
        resolve();
      }
      waiting.add(done);
    });

  /**
   * Each send takes the next start time, so sends side by side keep the pace
   * between them. Taken once a row is claimed and just before it is handed
   * over, so the time its claim took does not bunch mails together.
   */
  const pace = async () => {
    if (spacingMs <= 0) return;
    const at = Math.max(Date.now(), nextStart);
    nextStart = at + spacingMs;
    while (!stopped && Date.now() < at) await pause(at - Date.now());
  };
  // The transport is started with the first row to send, not before: a
  // server with nothing to send keeps no SMTP thread.
  let started: Promise<void> | undefined;
  const paced: Deliver = async (row, db, batch) => {
    if (!started) started = ready?.() ?? Promise.resolve();
    await started;
    await pace();
    const delivery = await deliver(row, db, batch);
    if (delivery.outcome === "retry")
      retryIn = Math.min(retryIn, retryDelay(row.attempts + 1, retryBaseMs));
    return delivery;
  };
  const going = () => !stopped;
  /**
   * The soonest retry of a round, in ms, and when it falls due, counted from
   * the round's end (its outcomes recorded by then): an idle loop wakes for it
   * rather than waiting for the next poll.
   */
  let retryIn = Number.POSITIVE_INFINITY;
  let retryAt = Number.POSITIVE_INFINITY;

  const running = (async () => {
    const released = await outbox.releaseClaims({ kinds }).catch(() => 0);
    if (released > 0)
      log.info({ released }, "outbox rows claimed before a restart are queued again");
    while (!stopped) {
      let handled = 0;
      try {
        // Paced, one at a time: the pace is the limit, and a crash can then
        // send again only the one mail in hand (docs/decisions/008-newsletter.md).
        handled = await outbox.processSome(paced, {
          kinds,
          inFlight: spacingMs > 0 ? 1 : inFlight,
          going,
        });
      } catch (error) {
        // The database is down: keep trying at the polling pace.
        log.error({ err: error }, "outbox could not be read");
      }
      retryAt = Math.min(retryAt, Date.now() + retryIn);
      retryIn = Number.POSITIVE_INFINITY;
      if (handled === 0 && !stopped) {
        // Passed, and nothing was due: another instance took the row.
        if (Date.now() > retryAt) retryAt = Number.POSITIVE_INFINITY;
        await pause(Math.min(pollMs, retryAt + 1 - Date.now()));
      }
    }
  })();

  function wakeAll() {
    woken = waiting.size === 0;
    for (const done of [...waiting]) done();
  }
  return {
    wake: wakeAll,
    async stop() {
      stopped = true;
      wakeAll();
      await running;
      onStop?.();
    },
  };
}

/**
 * Sends the outbox's mail: every kind given in `composers` (the newsletter's
 * confirmations and editions, the owner's notifications), as startOutboxLoop
 * works: paced one at a time, or unpaced `inFlight` at once.
 */
export function startMailWorker({
  mailer,
  composers,
  health,
  ...loop
}: Omit<LoopOptions, "kinds" | "deliver" | "ready" | "onStop"> & {
  mailer: Mailer;
  /** The kinds of row this worker sends, each with its mail. */
  composers: Partial<Record<OutboxKind, ComposeMail>>;
  /** Suppressed addresses, bounces at send time and return paths (server/outbox/recipient-health.ts). */
  health?: RecipientHealth;
}): OutboxWorker {
  const deliver: Deliver = async (row, db, batch) => {
    const compose = composers[row.kind];
    if (!compose) return { outcome: "failed", reason: `no mail for ${row.kind} rows` };
    // Nothing of any kind to a suppressed address (docs/mail.md, "Bounces and complaints").
    if (row.email && (await health?.suppressed(row.email))) {
      return { outcome: "cancelled", reason: "the address is suppressed" };
    }
    const composed = await compose(row, db, batch);
    if ("outcome" in composed) return composed;
    const returnPath = health?.returnPath?.(Number(row.id));
    try {
      await mailer.send(
        returnPath ? { ...composed, envelope: { from: returnPath, to: [composed.to] } } : composed,
      );
      return { outcome: "sent" };
    } catch (error) {
      const { permanent, hardBounce, reason } = classifyFailure(error);
      loop.log.warn({ outbox: row.id, permanent, reason }, "mail not accepted");
      const givenUp = !permanent && row.attempts + 1 >= retryPolicy.maxAttempts;
      if (hardBounce || givenUp) {
        await health?.refused(row, { hard: hardBounce, reason }, db).catch((failure: unknown) => {
          loop.log.error({ err: failure, outbox: row.id }, "a bounce could not be recorded");
        });
      }
      return permanent ? { outcome: "failed", reason } : { outcome: "retry", reason };
    }
  };

  return startOutboxLoop({
    ...loop,
    kinds: Object.keys(composers) as OutboxKind[],
    deliver,
    // Awaited before the first mail, so the first mails keep their pace too.
    ready: () => mailer.ready?.() ?? Promise.resolve(),
    onStop: () => mailer.close(),
  });
}
