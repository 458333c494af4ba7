import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type {
  MessageQueue,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
  RetryContext,
} from "@fedify/fedify";
import { sql } from "kysely";
import { z } from "zod";
import type { Store } from "../db/store.ts";
import type { Log } from "../lib/log.ts";
import type { RemoteFetch } from "../lib/safe-fetch.ts";
import { toIso } from "../lib/time.ts";
import {
  type AnswerMs,
  createDeliveryDeadline,
  giveUpAfterMs,
  longestWaitMs,
  nameOf,
  RunPastDeadline,
  retryAfter,
  Slot,
  withDeadline,
} from "./deadlines.ts";

/*
 * Fedify's message queue on the site's own database (table fediverse_queue): every delivery to a
 * follower's inbox and every activity received waits here, so a restart loses none. A worker takes
 * a due message for a lease, hands it to Fedify and deletes it, renewing the lease while Fedify
 * works; a worker that dies mid-way leaves it due again when the lease it last renewed ends. Each
 * take marks the row with a token of its own (`taken_by`), and the worker settles the row (deletes
 * it, or sets it due again) only while the row still bears it: one that lost its lease leaves it to
 * the next taker. A run still running after `runMs` (two minutes; a delivery's post has 15 s,
 * deadlines.ts) counts as failed and is abandoned: its lease is no longer renewed, and what it
 * queues from then on is refused, so its end changes nothing. Fedify itself retries a failed
 * delivery with backoff by queueing it again (same id) with a delay: that retry, queued while its
 * message is in hand, takes the message's row, so what was queued after it stays after it (messages
 * that share an ordering key, a Create and the Delete of the same object to one server, are taken
 * one at a time, oldest first). A message whose handler fails without queueing it again (a fan-out
 * to followers' inboxes, the site's own `TakeBack`, a retry that could not be queued, a run past
 * its deadline) stays, due again after as long as it has been failing, from a second to an hour:
 * one bad message does not spin. One that ran past a deadline (or a delivery to a server that did,
 * deadlines.ts) then runs only on the one worker of such messages, until a run of it there ends
 * within its deadlines; one that failed quickly, on any. Failing still three days after its first
 * failure, it is given up, with a warning, so the messages queued after it with its ordering key go
 * on, and a record for Health (`fediverse_given_up`: its kind, the site's activity, why it last
 * failed; kept 30 days, repository.ts).
 */

/**
 * The site's own message, beside Fedify's: the owner's answers (their
 * comments' ids) to take back from the Fediverse, deleted here or their
 * writer erased, and the writer whose inbox gets the Deletes too, when known
 * (service.ts, `takeBack`). The command line queues it without loading
 * Fedify; a running server takes it within a minute, else the next to start.
 */
const takeBackSchema = z.object({
  type: z.literal("ewe:take-back"),
  answers: z.array(z.number().int()),
  writer: z.string().nullable(),
});
export type TakeBack = z.infer<typeof takeBackSchema>;

/** When a message queued now with these options is due. */
const dueAt = (options: MessageQueueEnqueueOptions | undefined, now: Date) => {
  const delayMs = options?.delay ? Math.max(0, options.delay.total("millisecond")) : 0;
  return new Date(now.getTime() + delayMs).toISOString();
};

/** Queues messages (Fedify's, or a `TakeBack`), due after the delay given. */
export async function enqueueMessages(
  db: Store["db"],
  messages: readonly unknown[],
  options?: MessageQueueEnqueueOptions,
  now = new Date(),
) {
  if (messages.length === 0) return;
  await db
    .insertInto("fediverse_queue")
    .values(
      messages.map((message) => ({
        message: JSON.stringify(message),
        ordering_key: options?.orderingKey ?? null,
        due_at: dueAt(options, now),
        created_at: now.toISOString(),
      })),
    )
    .execute();
}

/**
 * The message a worker has in hand: its row (since when it has been failing, or slow), the token
 * of this take, its id, whether its retry took the row, whether its run went past its deadline,
 * whether a post of it was cut at its own (`late`, deadlines.ts).
 */
type InHand = {
  id: number | string;
  created_at: string | Date;
  failed_at: string | Date | null;
  slow_at: string | Date | null;
  token: string;
  of?: unknown;
  retried: boolean;
  abandoned?: boolean;
  late?: boolean;
  /** Why Fedify said this run failed (`failed`); ended with no retry, the message is given up. */
  failure?: string;
};

/** The site's queue as the federation takes it: Fedify's interface, and `failed`. */
export type SiteQueue = ReturnType<typeof createMessageQueue>;

export function createMessageQueue(
  store: Store,
  log: Pick<Log, "error" | "warn">,
  takeBack: (message: TakeBack) => Promise<void>,
  {
    pollMs = 1000,
    workers = 4,
    clock = () => new Date(),
    // How long a taken message is left to its worker, unless renewed, before another may take it.
    leaseMs = 5 * 60_000,
    runMs = 2 * 60_000,
    answerMs = 15_000,
    post,
  }: {
    pollMs?: number;
    workers?: number;
    clock?: () => Date;
    leaseMs?: number;
    runMs?: number;
    /** How long a delivery's post waits for its answer (deadlines.ts). */
    answerMs?: AnswerMs;
    /** The checked fetch a delivery's posts go through (safe-fetch.ts, deadlines.ts). */
    post: RemoteFetch;
  },
) {
  const { db } = store;
  const deliveries = createDeliveryDeadline({ answerMs, clock, post });
  const wakers = new Set<() => void>();
  const wake = () => {
    for (const waker of wakers) waker();
  };
  const inHand = new AsyncLocalStorage<InHand>();

  /**
   * Fedify retries a failed message by queueing it again, same id, from its handler: the
   * retry takes the row, and its place before a Delete queued meanwhile (which a Create
   * retried after it would undo). False when it is no retry, or the row is gone.
   */
  async function retry(message: unknown, options?: MessageQueueEnqueueOptions) {
    const taken = inHand.getStore();
    const { id } = message as { id?: unknown };
    if (!taken || taken.retried || id === undefined || id !== taken.of) return false;
    const result = await db
      .updateTable("fediverse_queue")
      .set({
        message: JSON.stringify(message),
        due_at: dueAt(options, clock()),
        taken_until: null,
        taken_by: null,
      })
      .where((eb) => eb.and({ id: taken.id as number, taken_by: taken.token }))
      .executeTakeFirst();
    taken.retried = result.numUpdatedRows > 0n;
    return taken.retried;
  }

  async function insert(messages: readonly unknown[], options?: MessageQueueEnqueueOptions) {
    if (inHand.getStore()?.abandoned) throw new Error("a run past its deadline queues nothing");
    const [first, ...rest] = messages;
    const retried = first !== undefined && (await retry(first, options));
    await enqueueMessages(db, retried ? rest : messages, options, clock());
    if (!options?.delay || options.delay.total("millisecond") <= 0) wake();
  }

  /** Takes the next due message for a lease, or none; one that ran past a deadline only if `slow`. */
  async function take(slow: boolean): Promise<(InHand & { message: string }) | undefined> {
    const now = clock().toISOString();
    const until = new Date(Date.parse(now) + leaseMs).toISOString();
    const token = randomUUID();
    const lock = store.kind === "postgres" ? sql`for update skip locked` : sql``;
    const result = await sql<Omit<InHand, "token" | "retried"> & { message: string }>`
      update fediverse_queue set taken_until = ${until}, taken_by = ${token}
      where id = (
        select q.id from fediverse_queue q
        where q.due_at <= ${now}
          and (q.taken_until is null or q.taken_until < ${now})
          ${slow ? sql`` : sql`and q.slow_at is null`}
          and (q.ordering_key is null or not exists (
            select 1 from fediverse_queue o
            where o.ordering_key = q.ordering_key and o.id < q.id
          ))
        order by q.due_at, q.id
        limit 1
        ${lock}
      )
      returning id, created_at, failed_at, slow_at, message`.execute(db);
    const row = result.rows[0];
    return row && { ...row, token, retried: false };
  }

  /**
   * Renews the lease of a message in hand every third of it, until the returned
   * stop, which waits for a renewal under way (it must not land after the
   * settle). A worker that dies renews nothing: its message is due again when
   * the lease it last renewed ends.
   */
  function keepLease(taken: InHand) {
    let renewing: Promise<unknown> = Promise.resolve();
    const timer = setInterval(() => {
      renewing = db
        .updateTable("fediverse_queue")
        .set({ taken_until: new Date(clock().getTime() + leaseMs).toISOString() })
        .where((eb) => eb.and({ id: taken.id as number, taken_by: taken.token }))
        .execute()
        .catch((error: unknown) =>
          log.error({ err: error }, "a Fediverse queue message's lease could not be renewed"),
        );
    }, leaseMs / 3);
    return () => {
      clearInterval(timer);
      return renewing;
    };
  }

  /** Leaves a message to the worker that runs those that ran past a deadline. */
  async function toSlow(taken: InHand) {
    await db
      .updateTable("fediverse_queue")
      .set({ slow_at: clock().toISOString(), taken_until: null, taken_by: null })
      .where((eb) => eb.and({ id: taken.id as number, taken_by: taken.token }))
      .execute();
  }
  /** A lane run that ended in time (done, or failed quickly): it, and its server, go on any worker (deadlines.ts). */
  async function recovered(taken: InHand, host: string | null) {
    if (host !== null && !deliveries.forget(host)) return;
    await db
      .updateTable("fediverse_queue")
      .set({ slow_at: null })
      .where("id", "=", taken.id as number)
      .execute();
  }
  const unsettled = (error: unknown) =>
    // Left taken: due again when its lease ends.
    log.error({ err: error }, "a Fediverse queue message could not be settled");

  /**
   * Settles a message whose handler ended, unless another worker has taken it
   * since: done, it goes; failed, it is due again after as long as it has been
   * failing (1 s, 1 s, 2 s, 4 s, ... an hour), or given up once it has failed
   * for `giveUpAfterMs`. `why`: why it failed, without whom it concerned.
   */
  async function settle(taken: InHand, why: string | null, message: unknown) {
    const mine = { id: taken.id as number, taken_by: taken.token };
    const now = clock().getTime();
    const since = taken.failed_at ? Date.parse(toIso(taken.failed_at)) : now;
    if (why !== null && now - since < giveUpAfterMs) {
      const wait = Math.min(longestWaitMs, Math.max(1000, now - since));
      await db
        .updateTable("fediverse_queue")
        .set({
          due_at: new Date(now + wait).toISOString(),
          failed_at: new Date(since).toISOString(),
          ...(taken.abandoned ? { slow_at: new Date(now).toISOString() } : {}),
          taken_until: null,
        })
        .where((eb) => eb.and(mine))
        .execute();
      return;
    }
    const remove = (trx: typeof db) =>
      trx.deleteFrom("fediverse_queue").where((eb) => eb.and(mine));
    // Ended with no retry queued after Fedify said it failed: Fedify gave it up.
    const gaveUp = why ?? taken.failure ?? null;
    if (gaveUp === null) return void (await remove(db).execute());
    // What it was, without whom it concerned: Fedify's activity, or the site's answers.
    const { type, activityId, activityType, answers } = (message ?? {}) as Record<string, unknown>;
    const givenUp = await db.transaction().execute(async (trx) => {
      if ((await remove(trx).executeTakeFirst()).numDeletedRows === 0n) return false;
      const activity = typeof activityId === "string" ? activityId : null;
      const at = new Date(now).toISOString();
      await trx
        .insertInto("fediverse_given_up")
        .values({ kind: String(type ?? "unknown"), activity, why: gaveUp, given_up_at: at })
        .execute();
      return true;
    });
    if (!givenUp) return;
    log.warn(
      { type, activityId, activityType, answers, why: gaveUp },
      why === null
        ? "a Fediverse delivery was given up by Fedify"
        : "a Fediverse queue message was given up after failing for three days",
    );
  }

  return {
    /**
     * Fedify's retries (`retryAfter`), in ms, on the queue's clock: the message in hand since its
     * row was queued, not since Fedify's `started`, which is the system clock's and no test's to
     * move. federation.ts hands it to Fedify as its retry policy.
     */
    retryAfterMs({ elapsedTime, attempts }: RetryContext) {
      const taken = inHand.getStore()?.created_at;
      const since = taken
        ? clock().getTime() - Date.parse(toIso(taken))
        : elapsedTime.total("milliseconds");
      return retryAfter(since, attempts);
    },
    /**
     * Fedify's word, from inside its handler, that the message in hand failed
     * (`why` names no one): ended with no retry queued, it is given up, and
     * recorded as the queue's own are (federation.ts).
     */
    failed(why: string) {
      const taken = inHand.getStore();
      if (taken) taken.failure = why;
    },
    enqueue: (message, options) => insert([message], options),
    enqueueMany: (messages, options) => insert(messages, options),
    async listen(handler, options?: MessageQueueListenOptions) {
      const signal = options?.signal;
      // One worker at a time runs what ran past a deadline, or a delivery to a server that did not
      // answer in time (such servers would otherwise hold every worker); what failed quickly, any.
      const lane = new Slot();
      const worker = async () => {
        while (!signal?.aborted) {
          // Held while taking, so that no other worker takes such a message meanwhile.
          const held = lane.tryTake();
          const taken = await take(held).catch((error: unknown) => {
            log.error({ err: error }, "the Fediverse queue could not be read");
          });
          if (held) lane.release();
          if (!taken) {
            // Until `pollMs` has passed, a message is queued, or listening stops.
            await new Promise<void>((resolve) => {
              const done = () => {
                clearTimeout(timer);
                wakers.delete(done);
                signal?.removeEventListener("abort", done);
                resolve();
              };
              const timer = setTimeout(done, pollMs);
              wakers.add(done);
              signal?.addEventListener("abort", done, { once: true });
            });
            continue;
          }
          const host = deliveries.hostOf(taken.message);
          const slow = taken.slow_at !== null || (host !== null && deliveries.isSlow(host));
          // Nothing awaited since the release: a lane held to take it is this worker's again.
          if (slow && !lane.tryTake()) {
            await toSlow(taken).catch(unsettled);
            continue;
          }
          let why: string | null = null;
          let message: { id?: unknown } | undefined;
          const leaseKept = keepLease(taken);
          try {
            const parsed = JSON.parse(taken.message) as { id?: unknown };
            const own = takeBackSchema.safeParse(parsed);
            message = parsed;
            taken.of = parsed.id;
            const run = inHand.run(taken, () =>
              deliveries.run(host, taken, async () =>
                own.success ? takeBack(own.data) : handler(parsed),
              ),
            );
            await withDeadline(run, runMs, taken, log);
          } catch (error) {
            why = error instanceof RunPastDeadline ? error.message : nameOf(error);
            log.error({ err: error }, "a Fediverse queue message failed");
          } finally {
            await leaseKept();
            if (slow && !taken.abandoned && !taken.late)
              await recovered(taken, host).catch(unsettled);
            if (slow) lane.release();
          }
          if (taken.retried) continue;
          await settle(taken, why, message).catch(unsettled);
        }
      };
      await Promise.all(Array.from({ length: workers }, worker));
    },
    /** Messages waiting, due or not; not those a worker has in hand, as Fedify asks. */
    async getDepth() {
      const now = clock().toISOString();
      const row = await db
        .selectFrom("fediverse_queue")
        .select((eb) => eb.fn.countAll().as("count"))
        .where((eb) => eb.or([eb("taken_until", "is", null), eb("taken_until", "<", now)]))
        .executeTakeFirstOrThrow();
      return { queued: Number(row.count) };
    },
  } satisfies MessageQueue & Record<"failed" | "retryAfterMs", unknown>;
}
