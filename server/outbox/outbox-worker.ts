import type { OutboxKind } from "../db/schema.ts";
import { type Log, withoutAddresses } from "../lib/log.ts";
import {
  batchedKinds,
  type Deliver,
  type Delivery,
  type OutboxRow,
  retryDelay,
  retryPolicy,
  rowUntilDone,
} from "./delivery-rules.ts";
import type { Mailer, OutgoingMail } from "./mailer.ts";
import type { OutboxRepository } from "./queue.ts";
import { classifyFailure, type RecipientHealth } from "./recipient-health.ts";

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

type LoopOptions = {
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
  log: Log;
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
    let delivery: Delivery;
    try {
      if (!started) started = ready?.() ?? Promise.resolve();
      await started;
      await pace();
      delivery = await deliver(row, db, batch);
    } catch (error) {
      // A bug or a lost database connection in delivery is a temporary failure, never a lost row.
      delivery = { outcome: "retry", reason: (error as Error).message };
    }
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
    const released = await outbox.release({ kinds }).catch(() => 0);
    if (released > 0)
      log.info({ released }, "outbox rows claimed before a restart are queued again");
    while (!stopped) {
      let handled = 0;
      const roundStart = Date.now();
      try {
        // Paced, one at a time: the pace is the limit, and a crash can then
        // send again only the one mail in hand (docs/decisions/008-newsletter.md).
        handled = await processSome(outbox, paced, {
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
        // Due before this round looked, and nothing was: another instance took the row.
        // One that fell due while the round looked is tried at once.
        if (roundStart > retryAt) retryAt = Number.POSITIVE_INFINITY;
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

/** Rows a worker claims per send it keeps in flight before the digests due get a look: on SQLite, a page. */
const pagePerSend = 8;

/**
 * Delivers due rows of `kinds` with at most `inFlight` at once, until none is
 * due or `going` says the loop stops; the number handled. On PostgreSQL that
 * is `inFlight` claims side by side, each a row lock in its own transaction;
 * on SQLite, pages of rows. Rows sent in batches (the digests) go first, one
 * at a time: two claims side by side would split one recipient's digest in two;
 * and again after each page of the others, so a digest that falls due during a
 * backlog (an edition's) waits a page, not the backlog.
 */
type Round = { kinds: readonly OutboxKind[]; inFlight: number; going: () => boolean };

async function processSome(
  outbox: OutboxRepository,
  deliver: Deliver,
  { kinds, inFlight, going }: Round,
): Promise<number> {
  // Every instance looks every poll interval, mostly finding nothing: a look
  // is this one read, not a claim's transaction per lane and group of kinds.
  if (kinds.length === 0 || !(await outbox.anyDue(kinds))) return 0;
  let handled = 0;
  const batched = kinds.filter((kind) => batchedKinds.has(kind));
  const single = kinds.filter((kind) => !batchedKinds.has(kind));
  let digesting = false;
  const digests = async (look = true) => {
    if (batched.length === 0 || digesting || (look && !(await outbox.anyDue(batched)))) return;
    digesting = true;
    while (going() && (await outbox.processNext(deliver, { kinds: batched }))) handled += 1;
    digesting = false;
  };
  await digests(false);
  if (single.length === 0) return handled;
  if (outbox.store.kind === "sqlite") {
    const paged = await processPages(outbox, deliver, { kinds: single, inFlight, going }, digests);
    return handled + paged;
  }
  let due = true;
  let claims = 0;
  const lane = async () => {
    while (due && going()) {
      if (++claims % (inFlight * pagePerSend) === 0) await digests();
      if (!(await outbox.processNext(deliver, { kinds: single }))) due = false;
      else handled += 1;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return handled;
}

/**
 * SQLite (docs/decisions/036-sending-in-flat-memory.md): claims pages of due
 * rows of `kinds` and delivers them with at most `inFlight` at once, until
 * none is due or the loop stops; never more than a page and the sends in
 * flight in memory. Outcomes are written together, in one transaction each
 * time the one before is done, so a burst of finished sends costs one commit.
 */
async function processPages(
  outbox: OutboxRepository,
  deliver: Deliver,
  { kinds, inFlight, going }: Round,
  /** Sends the digests due, between pages. */
  digests: () => Promise<void>,
): Promise<number> {
  type Pending = { row: OutboxRow; delivery: Delivery; settle: (error?: unknown) => void };
  let pending: Pending[] = [];
  let writing = false;
  async function write() {
    writing = true;
    while (pending.length > 0) {
      const group = pending;
      pending = [];
      const outcome = await outbox.recordTogether(group).then(
        () => undefined,
        (error: unknown) => error ?? new Error("the outcomes could not be recorded"),
      );
      for (const { settle } of group) settle(outcome);
    }
    writing = false;
  }
  /** Resolves once the outcome is committed. */
  const recorded = (row: OutboxRow, delivery: Delivery) =>
    new Promise<void>((resolve, reject) => {
      pending.push({ row, delivery, settle: (error) => (error ? reject(error) : resolve()) });
      if (!writing) void write();
    });

  const running = new Set<Promise<void>>();
  let failure: unknown;
  let handled = 0;
  for (let pages = 0; ; pages += 1) {
    if (pages > 0) await digests();
    const page = await outbox.claimPage(kinds, inFlight * pagePerSend);
    if (page.length === 0) break;
    for (const [index, row] of page.entries()) {
      while (running.size >= inFlight) await Promise.race(running);
      if (failure !== undefined || !going()) {
        await outbox.release({ ids: page.slice(index).map((r) => r.id as number) });
        await Promise.all(running);
        if (failure !== undefined) throw failure;
        return handled;
      }
      const task: Promise<void> = deliver(row, outbox.store.db, [row])
        .then((delivery) => recorded(row, delivery))
        // A lost write stops this round once the sends in flight are done;
        // the row stays `sending` until the server starts again.
        .catch((error: unknown) => {
          failure ??= error;
        })
        .finally(() => running.delete(task));
      running.add(task);
      handled += 1;
    }
  }
  await Promise.all(running);
  if (failure !== undefined) throw failure;
  return handled;
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
    const returnPath = health?.returnPath?.(Number(row.id), row.email ?? composed.to);
    try {
      await mailer.send(
        returnPath ? { ...composed, envelope: { from: returnPath, to: [composed.to] } } : composed,
        batch.map((each) => Number(each.id)),
        { deletedOnceSent: rowUntilDone.has(row.kind) },
      );
      return { outcome: "sent" };
    } catch (error) {
      const { permanent, bounce, aboutRecipient, reason } = classifyFailure(error);
      loop.log.warn(
        { outbox: row.id, permanent, reason: withoutAddresses(reason) },
        "mail not accepted",
      );
      const givenUp = !permanent && row.attempts + 1 >= retryPolicy.maxAttempts;
      const counted = bounce ?? (givenUp && aboutRecipient ? "soft" : null);
      if (counted) {
        const hard = counted === "hard";
        await health?.refused(row, { hard, reason }, db).catch((failure: unknown) => {
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
