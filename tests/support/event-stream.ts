import http from "node:http";
import { z } from "zod";
import type { ItemEventName, LiveEventName } from "../../contract/event-names.ts";
import {
  type CommentEvent,
  type ItemEventPayloads,
  itemEventSchemas,
} from "../../contract/live-events.ts";

export type StreamEvent = { id: string | undefined; event: string; data: string };

/**
 * What each event's data carries, by its name: an item's events their
 * contract's payload, the stream's own (`ready`, `resync`) an empty object.
 */
export type EventData = {
  [name in LiveEventName]: name extends ItemEventName
    ? ItemEventPayloads[name]
    : Record<string, never>;
};

/** An event named `name` that has arrived, with its data parsed. */
export type ParsedEvent<N extends LiveEventName> = StreamEvent & { json: EventData[N] };

/** The comment a `comment` event carries: none when the comment was deleted or held. */
export function commentIn(data: CommentEvent) {
  return "comment" in data ? data.comment : undefined;
}

const dataSchemas: { [name in LiveEventName]: z.ZodType<EventData[name]> } = {
  ...itemEventSchemas,
  ready: z.strictObject({}),
  resync: z.strictObject({}),
};

/**
 * An event's data checked against its name's schema, so a payload of the wrong
 * shape fails the test here; returned as sent, not as the schema would strip
 * it, so a test can still see a field that should not be there.
 */
function parsed<N extends LiveEventName>(name: N, event: StreamEvent): ParsedEvent<N> {
  const data: unknown = JSON.parse(event.data);
  dataSchemas[name].parse(data);
  return { ...event, json: data as EventData[N] };
}

/**
 * A minimal EventSource over node:http that records everything it receives,
 * comments (heartbeats) included, for tests to wait on. The benchmark opens
 * thousands with `record: false` and reads each event as it comes (`onEvent`).
 */
export class EventStream {
  readonly events: StreamEvent[] = [];
  readonly comments: string[] = [];
  status = 0;
  headers: http.IncomingHttpHeaders = {};
  ended = false;
  readonly #request: http.ClientRequest;
  #buffer = "";
  #waiters = new Set<() => void>();
  readonly #record: boolean;
  readonly #onEvent: ((event: StreamEvent) => void) | undefined;

  constructor(
    baseUrl: string,
    topic: string,
    lastEventId?: string,
    {
      localAddress,
      headers = {},
      record = true,
      onEvent,
    }: {
      /** Another loopback address (127.0.0.2…) to connect from. */
      localAddress?: string;
      /** Extra headers (a cookie). */
      headers?: Record<string, string>;
      /** Keep what arrives in `events` and `comments`; off, only `onEvent` sees events. */
      record?: boolean;
      onEvent?: (event: StreamEvent) => void;
    } = {},
  ) {
    this.#record = record;
    this.#onEvent = onEvent;
    const url = new URL(`/api/events?topic=${encodeURIComponent(topic)}`, baseUrl);
    this.#request = http.get(url, {
      ...(localAddress ? { localAddress } : {}),
      headers: {
        accept: "text/event-stream",
        ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
        ...headers,
      },
    });
    this.#request.on("response", (response) => {
      this.status = response.statusCode ?? 0;
      this.headers = response.headers;
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => this.#receive(chunk));
      response.on("end", () => {
        this.ended = true;
        this.#notify();
      });
    });
    this.#request.on("error", () => {
      this.ended = true;
      this.#notify();
    });
  }

  #receive(chunk: string) {
    this.#buffer += chunk;
    let end = this.#buffer.indexOf("\n\n");
    while (end !== -1) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":") && this.#record) this.comments.push(line.slice(1).trim());
        const colon = line.indexOf(":");
        if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
      }
      if (fields.event !== undefined || fields.data !== undefined) {
        const event = { id: fields.id, event: fields.event ?? "message", data: fields.data ?? "" };
        if (this.#record) this.events.push(event);
        this.#onEvent?.(event);
      }
      end = this.#buffer.indexOf("\n\n");
    }
    this.#notify();
  }

  #notify() {
    for (const waiter of this.#waiters) waiter();
  }

  /** Resolves once `condition` holds, re-checked on every chunk received. */
  until<T>(condition: (stream: this) => T | undefined | false, timeoutMs = 5000): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const value = condition(this);
        if (value !== undefined && value !== false) {
          cleanup();
          resolve(value);
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out; received ${JSON.stringify(this.events)}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
      check();
    });
  }

  /** The `index`th event named `name` (from 0), once it has arrived, with its data parsed. */
  nth<N extends LiveEventName>(name: N, index: number, timeoutMs?: number) {
    return this.until(
      (stream) => stream.events.filter((event) => event.event === name)[index],
      timeoutMs,
    ).then((event) => parsed(name, event));
  }

  /**
   * The first event named `name` whose parsed data `matches`, once it has
   * arrived. Delivery is at least once: a stream opened just after a write may
   * hear of it too, so a test waiting for one change looks for it by content.
   */
  find<N extends LiveEventName>(
    name: N,
    matches: (data: EventData[N]) => boolean,
    timeoutMs?: number,
  ) {
    return this.until(
      (stream) =>
        stream.events.find((event) => event.event === name && matches(parsed(name, event).json)),
      timeoutMs,
    ).then((event) => parsed(name, event));
  }

  next<N extends LiveEventName>(name: N, timeoutMs?: number) {
    return this.nth(name, 0, timeoutMs);
  }

  ready() {
    return this.next("ready");
  }

  close() {
    this.#request.destroy();
  }
}
