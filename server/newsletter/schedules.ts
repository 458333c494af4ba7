import { setTimeout as sleep } from "node:timers/promises";
import { type ExpressionBuilder, sql } from "kysely";
import { type OwnerActor, transact } from "../db/owner-actor.ts";
import type { Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { Log } from "../lib/log.ts";
import { dayMs, toIso } from "../lib/time.ts";
import type { EditionsRepository } from "./editions-repository.ts";

/**
 * Editions sent later (docs/mail.md, "Sending later"). A scheduled edition is
 * stored when it is scheduled, so what goes out is what the owner saw; at its
 * time one instance claims it and queues it for every confirmed subscriber,
 * as `newsletter send` does. The claim is a lease in the database: any
 * instance may take a claim whose lease ran out, so an instance killed while
 * queueing is followed by another (or by itself, restarted), which queues
 * the rest. The outbox's unique index on (edition, address) keeps each copy
 * to one, even if two instances ever queue side by side.
 */

/** How long a claim holds without being renewed, and how often it is renewed while queueing. */
const scheduleLease = { ms: 30_000, renewEveryMs: 10_000 } as const;

/** How far ahead an edition may be scheduled. */
export const scheduleHorizonMs = 366 * dayMs;

type ScheduledEdition = { slug: string; sendAt: string; started: boolean };

/** No live claim holds the schedule: none was taken, or its lease ran out. */
const unclaimed = (now: string) => (eb: ExpressionBuilder<Database, "edition_schedules">) =>
  eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", now)]);

export function createEditionSchedules(store: Store) {
  const { db } = store;
  const nowIso = () => new Date().toISOString();

  return {
    /**
     * Sends edition `editionId` at `at`: a new schedule, or a new time for
     * one not started. "started" when it is being queued now.
     */
    async schedule(editionId: number, at: Date, within = db): Promise<"scheduled" | "started"> {
      const values = { send_at: at.toISOString(), created_at: nowIso() };
      const result = await within
        .insertInto("edition_schedules")
        .values({ edition_id: editionId, ...values })
        .onConflict((conflict) =>
          conflict
            .column("edition_id")
            .doUpdateSet({ ...values, started_at: null, claimed_until: null, queued_at: null })
            // A schedule that went out long ago gives way; one going out now does not.
            .where((eb) =>
              eb.or([
                eb("edition_schedules.started_at", "is", null),
                eb("edition_schedules.queued_at", "is not", null),
              ]),
            ),
        )
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0 ? "scheduled" : "started";
    },

    /**
     * Cancels the schedule of the edition `slug` if it has not started. An
     * edition that went to nobody is forgotten with it, so its file may be
     * changed and scheduled again.
     */
    async cancel(slug: string, within = db): Promise<"cancelled" | "started" | "not_found"> {
      return transact(within, async (trx) => {
        const row = await trx
          .selectFrom("edition_schedules")
          .innerJoin("editions", "editions.id", "edition_schedules.edition_id")
          .select(["editions.id", "edition_schedules.started_at"])
          .where("editions.slug", "=", slug)
          .where("edition_schedules.queued_at", "is", null)
          .executeTakeFirst();
        if (!row) return "not_found";
        const removed = await trx
          .deleteFrom("edition_schedules")
          .where("edition_id", "=", row.id)
          .where("started_at", "is", null)
          .executeTakeFirst();
        if (Number(removed.numDeletedRows) === 0) return "started";
        const copies = await trx
          .selectFrom("outbox")
          .select("id")
          .where("edition_id", "=", row.id)
          .limit(1)
          .executeTakeFirst();
        if (!copies) {
          await trx.deleteFrom("edition_links").where("edition_id", "=", row.id).execute();
          await trx.deleteFrom("editions").where("id", "=", row.id).execute();
        }
        return "cancelled";
      });
    },

    /** Editions waiting for their time or being queued, soonest first. */
    async pending(): Promise<ScheduledEdition[]> {
      const rows = await db
        .selectFrom("edition_schedules")
        .innerJoin("editions", "editions.id", "edition_schedules.edition_id")
        .select(["editions.slug", "edition_schedules.send_at", "edition_schedules.started_at"])
        .where("edition_schedules.queued_at", "is", null)
        .orderBy("edition_schedules.send_at")
        .execute();
      return rows.map((row) => ({
        slug: row.slug,
        sendAt: toIso(row.send_at),
        started: row.started_at !== null,
      }));
    },

    /**
     * Claims one edition whose time has come and which no live claim holds;
     * its id and slug, or null when none is due.
     */
    async claimDue(): Promise<{ id: number; slug: string } | null> {
      for (;;) {
        const now = nowIso();
        const due = await db
          .selectFrom("edition_schedules")
          .innerJoin("editions", "editions.id", "edition_schedules.edition_id")
          .select(["editions.id", "editions.slug"])
          .where("edition_schedules.queued_at", "is", null)
          .where("edition_schedules.send_at", "<=", now)
          .where(unclaimed(now))
          .orderBy("edition_schedules.send_at")
          .limit(1)
          .executeTakeFirst();
        if (!due) return null;
        // Taken by whichever instance's update lands first; the others update nothing.
        const claimed = await db
          .updateTable("edition_schedules")
          .set({
            started_at: sql<string>`coalesce(started_at, ${now})`,
            claimed_until: new Date(Date.parse(now) + scheduleLease.ms).toISOString(),
          })
          .where("edition_id", "=", due.id)
          .where("queued_at", "is", null)
          .where(unclaimed(now))
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) > 0) return { id: Number(due.id), slug: due.slug };
      }
    },

    /** Keeps this instance's claim while it queues. */
    async renew(editionId: number): Promise<void> {
      await db
        .updateTable("edition_schedules")
        .set({ claimed_until: new Date(Date.now() + scheduleLease.ms).toISOString() })
        .where("edition_id", "=", editionId)
        .where("queued_at", "is", null)
        .execute();
    },

    /**
     * Every copy is queued: how many copies the edition has in all, whichever
     * instances queued them (one whose lease ran out may have queued the first
     * pages); null when another instance said so first.
     */
    async finish(editionId: number, within = db): Promise<number | null> {
      const result = await within
        .updateTable("edition_schedules")
        .set({ queued_at: nowIso(), claimed_until: null })
        .where("edition_id", "=", editionId)
        .where("queued_at", "is", null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return null;
      const { copies } = await within
        .selectFrom("outbox")
        .select((eb) => eb.fn.countAll().as("copies"))
        .where("edition_id", "=", editionId)
        .executeTakeFirstOrThrow();
      return Number(copies);
    },

    /**
     * SQLite only (one instance): a claim left by a server that stopped
     * mid-queue is released at the next start, instead of waiting out its lease.
     */
    async releaseClaims(): Promise<void> {
      if (store.kind !== "sqlite") return;
      await db
        .updateTable("edition_schedules")
        .set({ claimed_until: null })
        .where("queued_at", "is", null)
        .execute();
    },
  };
}

export type EditionSchedules = ReturnType<typeof createEditionSchedules>;

/**
 * Looks every `everyMs` for editions whose time has come and queues each
 * (the first look soon after the start). `queued` runs after each page of
 * copies, as for `newsletter send`. The schedule's end commits with the audit
 * trail's line, written by `by`, with the edition's copies in all: when the
 * line cannot be written the schedule stays open, and the instance that
 * claims it once the lease runs out ends it with its line.
 */
export function startEditionSchedules({
  schedules,
  editions,
  everyMs = 5_000,
  queued,
  by,
  log,
}: {
  schedules: EditionSchedules;
  editions: Pick<EditionsRepository, "queueEdition">;
  everyMs?: number;
  queued: () => void;
  by: OwnerActor;
  log: Pick<Log, "info" | "warn">;
}) {
  async function sendDue() {
    for (;;) {
      if (loop.stopped()) return;
      const due = await schedules.claimDue();
      if (!due) return;
      const renewing = setInterval(
        () => void schedules.renew(due.id).catch(() => {}),
        scheduleLease.renewEveryMs,
      );
      try {
        await editions.queueEdition(due.id, { onPage: queued });
        const total = await by.act(
          (trx) => schedules.finish(due.id, trx),
          (copies) =>
            copies !== null && ["newsletter scheduled send", `${due.slug} (${copies} queued)`],
        );
        if (total !== null)
          log.info({ edition: due.slug, queued: total }, "scheduled edition queued");
      } finally {
        clearInterval(renewing);
      }
    }
  }

  let released = false;
  const round = async () => {
    try {
      if (!released) {
        await schedules.releaseClaims();
        released = true;
      }
      await sendDue();
    } catch (error) {
      // The database is away: the next round tries again; a claim left runs out.
      log.warn({ err: error }, "scheduled editions could not be looked at");
    }
  };
  const loop = repeatRounds(round, Math.min(everyMs, 1_000), everyMs);
  return { stop: loop.stop };
}

/**
 * Runs `round` `firstMs` after the start, then `everyMs` after each one ends,
 * until stopped; `stop` waits for the round under way. A round catches its
 * own failures.
 */
export function repeatRounds(round: () => Promise<void>, firstMs: number, everyMs: number) {
  const stopping = new AbortController();
  const pause = (ms: number) =>
    sleep(ms, true, { signal: stopping.signal, ref: false }).catch(() => false);
  const running = (async () => {
    for (let ms = firstMs; await pause(ms); ms = everyMs) await round();
  })();
  return {
    stopped: () => stopping.signal.aborted,
    async stop() {
      stopping.abort();
      await running;
    },
  };
}
