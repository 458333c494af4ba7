import type { ItemEventName } from "../../contract/event-names.ts";
import type { Log } from "../lib/log.ts";

/**
 * Live events: what the event stream (`GET /api/events`) sends to browsers.
 * Every event is first written to the `events` table inside the transaction
 * of the write that caused it, so its id orders it and lets a reconnecting
 * client or instance catch up. See docs/decisions/003-live-events.md.
 */
export type LiveEventType = ItemEventName | typeof ownEventType | typeof changedEventType;

/**
 * A write changed what only its writer sees of an item (a comment held for
 * approval, edited or deleted by its writer while held, or caught by the honeypot): recorded under
 * `ownTopicOf(item)`, a topic no stream can open, with no data, so that every
 * instance's read cache forgets the writers' own of that item and nothing else
 * hears of it (docs/architecture.md, "Reads").
 */
export const ownEventType = "own";

/**
 * Something every instance keeps in memory, and that is no item's, changed
 * (the Fediverse's blocks): recorded under a topic of its own that no stream
 * can open (no item's kind), with no data, so that every instance reads it again.
 */
export const changedEventType = "changed";

const ownTopicPrefix = "own:";

/** The private topic of an item's `own` events. */
export const ownTopicOf = (itemTopic: string) => `${ownTopicPrefix}${itemTopic}`;

/** The item an `own` event is about, or null for any other topic. */
export const itemOfOwnTopic = (topic: string): string | null =>
  topic.startsWith(ownTopicPrefix) ? topic.slice(ownTopicPrefix.length) : null;

/** PostgreSQL's NOTIFY channel; payloads are event ids (a row could exceed NOTIFY's 8,000 bytes). */
export const eventsChannel = "ewe_events";

export type LiveEvent = {
  id: number;
  /** `mythology:<story id>` or `science:<post id>` */
  topic: string;
  type: LiveEventType;
  /** The payload, already JSON, as stored. */
  data: string;
};

export type Listener = (event: LiveEvent) => void;

export interface EventBus {
  subscribe(topic: string, listener: Listener): () => void;
  /** Every event of every topic, as this instance learns of it (read caches). */
  subscribeAll(listener: Listener): () => void;
  /** The newest event this instance has delivered: the position of a new stream. */
  readonly lastEventId: number;
  /** The transaction that recorded `event` has committed. */
  committed(event: LiveEvent): void;
  /** False while the bus cannot receive events (PostgreSQL listener reconnecting). */
  readonly healthy: boolean;
  close(): Promise<void>;
}

/** Reads the journal (the `events` table): how buses learn of other processes' events. */
export type EventJournal = {
  /** Events of every topic with an id above `afterId`, oldest first. */
  after(afterId: number, limit: number): Promise<LiveEvent[]>;
  latestId(): Promise<number>;
};

const journalBatchSize = 500;

/**
 * A bus's listeners by topic, and its reader of the journal, which delivers
 * the events above the last delivered id, oldest first, one read at a time.
 * Asking during a read makes that read go round once more: the event asked
 * about may have committed after the read began.
 */
export function createJournalReader({
  journal,
  lastId,
  log,
  stopped = () => false,
}: {
  journal: EventJournal;
  lastId: number;
  log: Log;
  stopped?: () => boolean;
}) {
  const byTopic = new Map<string, Set<Listener>>();
  const everything = new Set<Listener>();
  let last = lastId;
  let reading: Promise<void> | null = null;
  let readAgain = false;

  function deliver(event: LiveEvent) {
    if (event.id <= last) return;
    last = event.id;
    // Caches hear of a change before any stream tells a browser about it, so a
    // browser that reloads on the event reads the new state.
    for (const listener of [...everything, ...(byTopic.get(event.topic) ?? [])]) {
      try {
        listener(event);
      } catch (error) {
        // One broken stream must not keep the event from the others.
        log.error({ err: error, eventId: event.id }, "live event listener failed");
      }
    }
  }

  function catchUp(): Promise<void> {
    if (reading) {
      readAgain = true;
      return reading;
    }
    reading = (async () => {
      try {
        let events: LiveEvent[];
        do {
          readAgain = false;
          events = await journal.after(last, journalBatchSize);
          for (const event of events) deliver(event);
        } while ((events.length === journalBatchSize || readAgain) && !stopped());
      } catch (error) {
        // The next ask (write, poll, notification, reconnection) reads again.
        log.warn({ err: error }, "live events could not be read");
      } finally {
        reading = null;
      }
    })();
    return reading;
  }

  return {
    deliver,
    catchUp,
    get lastEventId() {
      return last;
    },
    /** Resolves when no read is in progress. */
    settled: async () => {
      await reading;
    },
    subscribe(topic: string, listener: Listener): () => void {
      let listeners = byTopic.get(topic);
      if (!listeners) {
        listeners = new Set();
        byTopic.set(topic, listeners);
      }
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && byTopic.get(topic) === listeners) byTopic.delete(topic);
      };
    },
    subscribeAll(listener: Listener): () => void {
      everything.add(listener);
      return () => everything.delete(listener);
    },
  };
}

/**
 * One server process on one SQLite file. Its own writes go straight from the
 * writer to the streams. Another process writing to the same file (the admin
 * command line deleting a comment) cannot reach this process's memory, so the
 * journal is polled too: every second, anything above the last delivered id
 * is read and delivered. SQLite has one writer at a time, so ids are assigned
 * in commit order; an event that is not the next id means one from elsewhere
 * came first, and the journal is read instead to keep the order.
 */
export function createLocalBus({
  lastEventId,
  journal,
  log,
}: {
  lastEventId: number;
  journal: EventJournal;
  log: Log;
}): EventBus {
  const reader = createJournalReader({ journal, lastId: lastEventId, log });
  const polling = setInterval(() => void reader.catchUp(), 1000);
  polling.unref();

  // The reader is the bus, with how this one hears of events.
  return Object.assign(reader, {
    committed(event: LiveEvent) {
      if (event.id === reader.lastEventId + 1) reader.deliver(event);
      else void reader.catchUp();
    },
    healthy: true,
    async close() {
      clearInterval(polling);
      await reader.settled();
    },
  });
}
