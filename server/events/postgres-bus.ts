import pg from "pg";
import type { Log } from "../lib/log.ts";
import { createJournalReader, type EventBus, type EventJournal, eventsChannel } from "./bus.ts";

/** Reconnection attempts start this soon and back off to at most every 5 s. */
const retryDelayMs = { min: 250, max: 5000 };

/**
 * Several instances on one PostgreSQL: each holds one LISTEN connection. A
 * notification only says "there is news"; the events themselves are read from
 * the journal by id, in commit order (writers serialize on an advisory lock, see
 * events/journal.ts), so a notification lost while the connection
 * was down costs nothing: after reconnecting, everything above the last
 * delivered id is read.
 */
export async function createPostgresBus({
  connectionString,
  journal,
  log,
}: {
  connectionString: string;
  journal: EventJournal;
  log: Log;
}): Promise<EventBus> {
  let client: pg.Client | null = null;
  let closed = false;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let retryDelay = retryDelayMs.min;
  // Streams start from here; an event committed before LISTEN is in place is
  // still above this position, so the next read delivers it.
  const reader = createJournalReader({
    journal,
    lastId: await journal.latestId(),
    log,
    stopped: () => closed,
  });

  async function connect(): Promise<void> {
    const listener = new pg.Client({
      connectionString,
      application_name: "ewe-listener",
      keepAlive: true,
    });
    listener.on("notification", () => void reader.catchUp());
    listener.on("error", (error) => {
      log.warn({ err: error }, "live events listener lost its database connection");
      drop(listener);
    });
    listener.on("end", () => drop(listener));
    try {
      await listener.connect();
      await listener.query(`listen ${eventsChannel}`);
    } catch (error) {
      listener.removeAllListeners();
      listener.on("error", () => {});
      await listener.end().catch(() => {});
      throw error;
    }
    client = listener;
  }

  function drop(listener: pg.Client) {
    if (client !== listener) return;
    client = null;
    listener.end().catch(() => {});
    scheduleReconnect();
  }

  function scheduleReconnect() {
    if (closed || reconnectTimer) return;
    reconnectTimer = setTimeout(async () => {
      reconnectTimer = null;
      try {
        await connect();
        retryDelay = retryDelayMs.min;
        log.info({}, "live events listener reconnected");
        await reader.catchUp();
      } catch (error) {
        retryDelay = Math.min(retryDelay * 2, retryDelayMs.max);
        log.warn({ err: error, retryInMs: retryDelay }, "live events listener cannot reconnect");
        scheduleReconnect();
      }
    }, retryDelay);
  }

  await connect();

  return {
    subscribe: reader.subscribe,
    subscribeAll: reader.subscribeAll,
    get lastEventId() {
      return reader.lastEventId;
    },
    committed() {
      // Delivered through LISTEN like every other instance's events, which keeps
      // one order for all of them.
      void reader.catchUp();
    },
    get healthy() {
      return client !== null;
    },
    async close() {
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      const listener = client;
      client = null;
      await listener?.end().catch(() => {});
      await reader.settled();
    },
  };
}
