import type { Kysely } from "kysely";
import { transact } from "../db/owner-actor.ts";
import type { Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { EventBus } from "../events/bus.ts";
import { fediverseBlocksTopic as blocksTopic, createEventJournal } from "../events/journal.ts";
import type { Log } from "../lib/log.ts";
import { nowIso } from "../lib/time.ts";

/*
 * The owner's blocks (`fediverse_blocks`): an account by its actor's address,
 * a server by its host name. Each block and unblock records an event in the
 * journal in its transaction, so that every instance, and a server beside the
 * command line, reads the blocks again (`blockedSenders`): the inbox consults
 * them in memory for each post, before it reads one.
 */

/** How old the blocks in memory may be when nothing said they changed. */
const rereadAfterMs = 60_000;

/** A server as a block names it: its host name, and with its port when it has one. */
export const serverNamesOf = (address: string): string[] => {
  const url = URL.parse(address);
  return url ? [...new Set([url.host.toLowerCase(), url.hostname.toLowerCase()])] : [];
};

export function createBlockRecords(store: Store) {
  const { db } = store;
  const journal = createEventJournal(store);
  /** `change` in `within` (a transaction of its own when that is none), the journal told when it changed a row. */
  const told = (within: Kysely<Database>, change: (trx: Kysely<Database>) => Promise<boolean>) =>
    transact(within, async (trx) => {
      const changed = await change(trx);
      if (changed) await journal.recordChanged(trx, blocksTopic);
      return changed;
    });
  return {
    /** Blocks an account (its actor id) or a whole server (its host name); true if new. */
    block: (target: string, within = db): Promise<boolean> =>
      told(within, async (trx) => {
        const result = await trx
          .insertInto("fediverse_blocks")
          .values({ target, created_at: nowIso() })
          .onConflict((conflict) => conflict.column("target").doNothing())
          .returning("target")
          .executeTakeFirst();
        return result !== undefined;
      }),

    unblock: (target: string, within = db): Promise<boolean> =>
      told(within, async (trx) => {
        const result = await trx
          .deleteFrom("fediverse_blocks")
          .where("target", "=", target)
          .executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      }),

    async blocks(): Promise<{ target: string; blockedAt: string }[]> {
      const rows = await db
        .selectFrom("fediverse_blocks")
        .selectAll()
        .orderBy("created_at", "desc")
        .execute();
      return rows.map((row) => ({
        target: row.target,
        blockedAt: new Date(row.created_at).toISOString(),
      }));
    },

    /** Whether this actor, or its server, is blocked. */
    async isBlocked(actorId: string): Promise<boolean> {
      const row = await db
        .selectFrom("fediverse_blocks")
        .select("target")
        .where("target", "in", [actorId, ...serverNamesOf(actorId)])
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

/**
 * Whether `address` (a key's id, or its owner's) names a blocked account (the
 * address without its fragment: Mastodon's key ids are the actor's plus
 * `#main-key`) or server.
 */
function namesBlocked(blocks: ReadonlySet<string>, address: string): boolean {
  const url = URL.parse(address);
  if (!url) return false;
  url.hash = "";
  return blocks.has(url.href) || serverNamesOf(url.href).some((name) => blocks.has(name));
}

/**
 * The blocks in memory, for the inbox: read at the first post, again at each
 * event of a block or unblock on any instance (the journal's, through the
 * bus: at once on PostgreSQL, within a second on SQLite) and at most a minute
 * after the last read. While the bus cannot hear events (PostgreSQL's listener
 * reconnecting), nothing is known: no post is dropped here (the inbox's
 * listeners still drop a blocked sender's, having read it), so an unblock is
 * never missed.
 */
export function blockedSenders({
  targets,
  bus,
  log,
}: {
  /** Every block's target, from the database. */
  targets: () => Promise<string[]>;
  bus: Pick<EventBus, "subscribeAll" | "healthy">;
  log: Pick<Log, "warn">;
}) {
  let known: { blocks: ReadonlySet<string>; at: number } | null = null;
  /** Counts the reads started: only the latest one's answer is kept. */
  let reads = 0;
  /** The latest read, while it runs. */
  let reading: Promise<void> | null = null;

  /**
   * Reads the blocks from the database: anew, since what called it may have
   * just committed. Settles once the blocks in memory are at least this fresh:
   * when a read begun later keeps its answer instead, after that one.
   */
  function read(): Promise<void> {
    const mine = ++reads;
    const done = (async () => {
      try {
        const blocks = new Set(await targets());
        if (mine === reads) known = { blocks, at: Date.now() };
      } catch (error) {
        if (mine === reads) known = null;
        log.warn({ err: error }, "the Fediverse blocks could not be read");
      } finally {
        if (mine === reads) reading = null;
      }
      if (reading) await reading;
    })();
    reading = done;
    return done;
  }

  // A read in hand may have begun before the change committed: read again.
  const unsubscribe = bus.subscribeAll((event) => {
    if (event.topic === blocksTopic && (known !== null || reading !== null)) void read();
  });

  return {
    /** Reads the blocks again now (after this instance's own block or unblock). */
    read,
    /** Whether any of `addresses` (key ids, a key's owner) names a blocked account or server. */
    async names(addresses: readonly (string | null | undefined)[]): Promise<boolean> {
      if (!bus.healthy) {
        known = null;
        return false;
      }
      if (known === null) await (reading ?? read());
      else if (!reading && Date.now() - known.at > rereadAfterMs) void read();
      const blocks = known?.blocks;
      return blocks !== undefined && addresses.some((one) => one && namesBlocked(blocks, one));
    },
    stop: unsubscribe,
  };
}
