/**
 * Live events: what the event stream (`GET /api/events`) sends to browsers.
 * Every event is first written to the `events` table inside the transaction
 * of the write that caused it, so its id orders it and lets a reconnecting
 * client or instance catch up. See docs/decisions/003-live-events.md.
 */
export type LiveEventType = "reaction" | "comment";

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
  /** The newest event this instance has delivered: the position of a new stream. */
  readonly lastEventId: number;
  /** The transaction that recorded `event` has committed. */
  committed(event: LiveEvent): void;
  /** False while the bus cannot receive events (PostgreSQL listener reconnecting). */
  readonly healthy: boolean;
  close(): Promise<void>;
}

export type BusLogger = {
  info(object: unknown, message: string): void;
  warn(object: unknown, message: string): void;
  error(object: unknown, message: string): void;
};

/** Listeners by topic; one instance per bus. */
export class Subscriptions {
  readonly #byTopic = new Map<string, Set<Listener>>();
  readonly #log: BusLogger | undefined;

  constructor(log?: BusLogger) {
    this.#log = log;
  }

  subscribe(topic: string, listener: Listener): () => void {
    let listeners = this.#byTopic.get(topic);
    if (!listeners) {
      listeners = new Set();
      this.#byTopic.set(topic, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#byTopic.get(topic) === listeners) {
        this.#byTopic.delete(topic);
      }
    };
  }

  dispatch(event: LiveEvent): void {
    const listeners = this.#byTopic.get(event.topic);
    if (!listeners) return;
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        // One broken stream must not keep the event from the others.
        this.#log?.error({ err: error, eventId: event.id }, "live event listener failed");
      }
    }
  }
}

/** One process, one SQLite file: events go straight from the writer to the streams. */
export function createLocalBus({
  lastEventId,
  log,
}: {
  lastEventId: number;
  log?: BusLogger;
}): EventBus {
  const subscriptions = new Subscriptions(log);
  let last = lastEventId;
  return {
    subscribe: (topic, listener) => subscriptions.subscribe(topic, listener),
    get lastEventId() {
      return last;
    },
    committed(event) {
      last = Math.max(last, event.id);
      subscriptions.dispatch(event);
    },
    healthy: true,
    async close() {},
  };
}
