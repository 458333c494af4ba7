import { AsyncLocalStorage } from "node:async_hooks";
import type {
  MessageQueue,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import { sql } from "kysely";
import { z } from "zod";
import type { Store } from "../db/store.ts";
import type { Log } from "../lib/log.ts";
import { nowIso } from "../lib/time.ts";

/*
 * Fedify's message queue on the site's own database (table fediverse_queue):
 * every delivery to a follower's inbox and every activity received waits
 * here, so a restart loses none. A worker takes a due message for a lease,
 * hands it to Fedify and deletes it; a worker that dies mid-way leaves it due
 * again when the lease ends. Fedify itself retries a failed delivery with
 * backoff by queueing it again with a delay. Messages that share an ordering
 * key (a Create and the Delete of the same object, to one server) are taken
 * one at a time, oldest first; a retry, queued with its key while its message
 * is in hand, takes that message's row, so what was queued after it stays
 * after it. The site's own `TakeBack` waits here too.
 */

/** How long a taken message is left to its worker before another may take it. */
const leaseMs = 5 * 60_000;

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
) {
  if (messages.length === 0) return;
  const now = new Date();
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

/** The message a worker has in hand: its row, its ordering key, whether a retry took its row. */
type InHand = { id: number | string; ordering_key: string | null; retried: boolean };

export function createMessageQueue(
  store: Store,
  log: Pick<Log, "error">,
  takeBack: (message: TakeBack) => Promise<void>,
  { pollMs = 1000, workers = 4 }: { pollMs?: number; workers?: number } = {},
) {
  const { db } = store;
  const wakers = new Set<() => void>();
  const wake = () => {
    for (const waker of wakers) waker();
  };
  const inHand = new AsyncLocalStorage<InHand>();

  /**
   * Fedify retries a failed delivery by queueing it again, with its key, from its handler:
   * the retry takes the row, and its place before a Delete queued meanwhile (which a Create
   * retried after it would undo). False when it is no retry, or the row is gone.
   */
  async function retry(message: unknown, options?: MessageQueueEnqueueOptions) {
    const taken = inHand.getStore();
    if (!taken || taken.retried || options?.orderingKey !== taken.ordering_key) return false;
    taken.retried = true;
    const result = await db
      .updateTable("fediverse_queue")
      .set({
        message: JSON.stringify(message),
        due_at: dueAt(options, new Date()),
        taken_until: null,
      })
      .where("id", "=", taken.id as number)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async function insert(messages: readonly unknown[], options?: MessageQueueEnqueueOptions) {
    const [first, ...rest] = messages;
    const retried = first !== undefined && (await retry(first, options));
    await enqueueMessages(db, retried ? rest : messages, options);
    if (!options?.delay || options.delay.total("millisecond") <= 0) wake();
  }

  /** Takes the next due message for a lease, or none. */
  async function take(): Promise<(InHand & { message: string }) | undefined> {
    const now = nowIso();
    const until = new Date(Date.now() + leaseMs).toISOString();
    const lock = store.kind === "postgres" ? sql`for update skip locked` : sql``;
    const result = await sql<Omit<InHand, "retried"> & { message: string }>`
      update fediverse_queue set taken_until = ${until}
      where id = (
        select q.id from fediverse_queue q
        where q.due_at <= ${now}
          and (q.taken_until is null or q.taken_until < ${now})
          and (q.ordering_key is null or not exists (
            select 1 from fediverse_queue o
            where o.ordering_key = q.ordering_key and o.id < q.id
          ))
        order by q.due_at, q.id
        limit 1
        ${lock}
      )
      returning id, ordering_key, message`.execute(db);
    const row = result.rows[0];
    return row && { ...row, retried: false };
  }

  return {
    enqueue: (message, options) => insert([message], options),
    enqueueMany: (messages, options) => insert(messages, options),
    async listen(handler, options?: MessageQueueListenOptions) {
      const signal = options?.signal;
      const worker = async () => {
        while (!signal?.aborted) {
          let taken: Awaited<ReturnType<typeof take>>;
          try {
            taken = await take();
          } catch (error) {
            log.error({ err: error }, "the Fediverse queue could not be read");
            taken = undefined;
          }
          if (taken) {
            // Fedify retries its own messages by queueing them again; the
            // site's, failed (its database unreachable), is left to be taken
            // again when its lease ends.
            let kept = false;
            try {
              const message = JSON.parse(taken.message);
              const own = takeBackSchema.safeParse(message);
              kept = own.success;
              await inHand.run(taken, () => (own.success ? takeBack(own.data) : handler(message)));
              kept = false;
            } catch (error) {
              log.error({ err: error }, "a Fediverse queue message failed");
            }
            if (kept || taken.retried) continue;
            await db
              .deleteFrom("fediverse_queue")
              .where("id", "=", taken.id as number)
              .execute()
              .catch((error: unknown) =>
                log.error({ err: error }, "a Fediverse queue message could not be removed"),
              );
            continue;
          }
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
        }
      };
      await Promise.all(Array.from({ length: workers }, worker));
    },
    /** Messages waiting, due or not. */
    async getDepth() {
      const row = await db
        .selectFrom("fediverse_queue")
        .select((eb) => eb.fn.countAll().as("count"))
        .executeTakeFirstOrThrow();
      return { queued: Number(row.count) };
    },
  } satisfies MessageQueue;
}
