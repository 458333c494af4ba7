import type { Socket } from "node:net";
import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { itemKindSchema } from "../../../contract/api.ts";
import {
  type ItemEventName,
  type LiveEventName,
  liveEventNames,
  ownerCommentsTopic,
} from "../../../contract/event-names.ts";
import type { LiveEvent } from "../../events/bus.ts";
import { ApiError, errorResponses } from "../errors.ts";
import type { StreamSlots } from "../stream-slots.ts";
import { type OwnerSession, type RouteDeps, requireItem } from "./deps.ts";

type StreamOptions = {
  /** The open streams, counted against their limits. */
  slots: StreamSlots;
};

/** How many missed events a reconnecting client is replayed before being told to resync. */
const replayLimit = 500;
/** A client that lets this much go unread is dropped; it will reconnect and catch up. */
const maxBufferedBytes = 1024 * 1024;
/**
 * A replay larger than this is a `resync` instead (the client reads the item
 * again, from memory): written in one go, it would fill what a client may
 * leave unread, and the client would be dropped before its `ready`, again at
 * every reconnection.
 */
const replayBytesMax = maxBufferedBytes / 2;
/** How often the owner's stream checks that its session is still alive. */
const sessionRecheckMs = 30_000;

const topicPattern = /^([a-z]+):(.+)$/;

// One event goes to every stream of its topic (thousands on a popular post):
// it is framed once, as the bytes that go on the wire, and those same bytes are
// written to each stream's socket (docs/architecture.md, "Live updates").
type Framed = {
  /** The event as an HTTP/1.1 chunk, as the response's own chunked encoding would frame it. */
  chunked: Buffer;
  /** The bare event, for a client that asked in HTTP/1.0 (no chunked encoding). */
  plain: Buffer;
};
const frames = new WeakMap<LiveEvent, Framed>();
const crlf = Buffer.from("\r\n");

function frame(event: LiveEvent, chunked: boolean): Buffer {
  let framed = frames.get(event);
  if (!framed) {
    const plain = Buffer.from(`id: ${event.id}\nevent: ${event.type}\ndata: ${event.data}\n\n`);
    const size = Buffer.from(`${plain.length.toString(16)}\r\n`, "latin1");
    framed = { plain, chunked: Buffer.concat([size, plain, crlf]) };
    frames.set(event, framed);
  }
  return chunked ? framed.chunked : framed.plain;
}

/** The stream's own events, which carry nothing but their name (and `ready` its position). */
function message(name: Exclude<LiveEventName, ItemEventName>, id?: number): string {
  return `${id === undefined ? "" : `id: ${id}\n`}event: ${name}\ndata: {}\n\n`;
}

function parseLastEventId(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : null;
}

/** What one stream sends: its events as they come, and what a reconnecting client missed. */
type Source = {
  subscribe(listener: (event: LiveEvent) => void): () => void;
  /** The events after `afterId`, or "resync" when that cannot be told exactly. */
  missed(afterId: number): Promise<LiveEvent[] | "resync">;
  /** The visitor the stream counts against (stream-slots.ts), or null for the owner. */
  visitorId: string | null;
  /** For a stream that needs a signed-in owner: whether the session still is alive. */
  stillAllowed?: () => Promise<boolean>;
};

export const eventRoutes: FastifyPluginAsyncZod<RouteDeps & StreamOptions> = async (
  app,
  { engagement, catalog, bus, slots, ownerVoice },
) => {
  const open = new Set<FastifyReply>();

  // Streams never end by themselves; without this, closing the server would
  // wait for every reader to leave.
  app.addHook("preClose", async () => {
    for (const reply of open) reply.sse.close();
  });

  /**
   * What a client that last saw `afterId` has missed among `read(limit)`'s
   * events, or "resync" when that cannot be told exactly: events were pruned,
   * there are too many, or the id is from the future (another database).
   */
  async function missed(
    afterId: number,
    read: (limit: number) => Promise<LiveEvent[]>,
  ): Promise<LiveEvent[] | "resync"> {
    // The database is the authority, not this instance's listener: a replay may
    // already have handed out an id whose notification is still on its way here.
    const latest = Math.max(bus.lastEventId, await engagement.events.latestId());
    if (afterId > latest) return "resync";
    const oldest = await engagement.events.oldestId();
    if (oldest === null ? afterId < latest : afterId + 1 < oldest) return "resync";
    const events = await read(replayLimit + 1);
    if (events.length > replayLimit) return "resync";
    let bytes = 0;
    for (const event of events) bytes += Buffer.byteLength(event.data);
    return bytes > replayBytesMax ? "resync" : events;
  }

  /** One item's reactions and comments: what every reader may see. */
  function itemSource(topic: string, visitorId: string | null): Source {
    return {
      subscribe: (listener) => bus.subscribe(topic, listener),
      missed: (afterId) =>
        missed(afterId, (limit) => engagement.events.after(afterId, limit, topic)),
      visitorId,
    };
  }

  /**
   * The comment events of every item and the owner's own (a comment held for
   * approval), for the console (docs/decisions/012-owner-console.md). Only a
   * live owner session opens it, and a revoked or expired one loses it within
   * half a minute: held comments never reach a reader's stream.
   */
  function ownerSource(session: OwnerSession): Source {
    const isComment = (event: LiveEvent) => event.type === "comment";
    return {
      subscribe: (listener) =>
        bus.subscribeAll((event) => {
          if (isComment(event)) listener(event);
        }),
      missed: (afterId) =>
        missed(afterId, async (limit) => {
          // Counted before filtering, so a burst of reactions can ask for a
          // resync (a reload of the list) but never hide a comment.
          const events = await engagement.events.after(afterId, limit);
          return events.length === limit ? events : events.filter(isComment);
        }),
      visitorId: null,
      stillAllowed: () => ownerVoice.isAlive(session),
    };
  }

  app.get(
    "/events",
    {
      sse: { kind: "manual" },
      schema: {
        summary:
          "Live reactions and comments of one item, or the owner's comment events (Server-Sent Events)",
        description: `Events: ${liveEventNames.map((name) => `\`${name}\``).join(", ")} (docs/architecture.md, "Live updates"). Send Last-Event-ID to replay missed events. The topic \`${ownerCommentsTopic}\` is every comment event, held comments included, for the signed-in owner only.`,
        tags: ["live"],
        querystring: z.object({
          topic: z
            .string()
            .max(200)
            .regex(topicPattern, "Use <kind>:<id>, e.g. science:wifi.")
            .describe(
              `\`mythology:<story id>\`, \`science:<post id>\` or \`${ownerCommentsTopic}\``,
            ),
        }),
        response: errorResponses,
      },
    },
    async (request, reply) => {
      const { topic } = request.query;
      if (topic === ownerCommentsTopic) {
        const session = await ownerVoice.sessionOf(request, reply);
        if (!session) {
          throw new ApiError(401, "unauthorized", "Sign in to the console first (/admin/sign-in).");
        }
        return stream(request, reply, ownerSource(session));
      }
      const [, kindText = "", id = ""] = topicPattern.exec(topic) ?? [];
      const kind = itemKindSchema.safeParse(kindText);
      if (!kind.success)
        throw new ApiError(400, "validation_failed", `Unknown kind "${kindText}".`);
      requireItem(catalog, kind.data, id);
      return stream(request, reply, itemSource(topic, request.visitorId));
    },
  );

  async function stream(request: FastifyRequest, reply: FastifyReply, source: Source) {
    const release = slots.take(request.ip, source.visitorId);

    // Subscribe before reading the position, so nothing falls in between;
    // events arriving during the replay wait and are deduplicated by id.
    let live = false;
    let sentUpTo = 0;
    const waiting: LiveEvent[] = [];
    // Events go straight to the socket, framed as the response's chunks would
    // be: through the response, each write cost about twice the CPU (a size
    // line and two CRLFs written apart, the socket corked until the next tick,
    // so no stream got its bytes before the whole fan-out had run). The
    // response writes the head and the opening line first (below), which
    // tells the framing; after that the socket's order is the response's.
    // A response still queued behind another on its connection (pipelining)
    // has no socket yet, and an answer to HEAD has no body: both write through
    // the response, which knows.
    let socket: Socket | null = null;
    let chunked = true;
    const send = (event: LiveEvent) => {
      if (event.id <= sentUpTo) return;
      if (reply.raw.writableLength > maxBufferedBytes) {
        // Closed, not only ended: an ended response would leave its socket
        // open and silent (no idle timeout, no heartbeat) and out of the
        // slots' count, and the browser would not know to reconnect. A replay
        // never gets here (over 512 KB it is a resync).
        reply.raw.destroy();
        return;
      }
      if (!socket) reply.raw.write(frame(event, false));
      else if (socket.writable) socket.write(frame(event, chunked));
      sentUpTo = event.id;
    };
    const unsubscribe = source.subscribe((event) => {
      if (live) send(event);
      else waiting.push(event);
    });
    let checking: NodeJS.Timeout | undefined;
    const leave = () => {
      clearInterval(checking);
      unsubscribe();
      release();
    };
    // Everything this instance delivers from here on is sent: an event committed
    // just before the stream opened may come too (its notification was still on
    // its way), which a client takes as one more reload, never as a loss.
    const position = bus.lastEventId;

    let replay: LiveEvent[] | "resync" = [];
    const lastEventId = parseLastEventId(request.headers["last-event-id"]);
    try {
      if (lastEventId !== null) replay = await source.missed(lastEventId);
    } catch (error) {
      leave();
      throw error;
    }

    if (!reply.sse.isConnected) {
      // The client left while the replay was read.
      leave();
      return;
    }
    // A stream may be silent for longer than the server's idle timeout
    // between heartbeats; it ends when the client or the server closes it.
    request.raw.socket.setTimeout(0);
    open.add(reply);
    reply.sse.onClose(() => {
      leave();
      open.delete(reply);
    });
    const { stillAllowed } = source;
    if (stillAllowed) {
      checking = setInterval(() => {
        stillAllowed().then(
          (allowed) => {
            if (!allowed) reply.sse.close();
          },
          () => {},
        );
      }, sessionRecheckMs);
    }
    reply.sse.keepAlive();
    reply.sse.sendHeaders();
    reply.raw.write("retry: 3000\n\n");
    if (request.method === "GET" && reply.raw.socket?.writable) {
      socket = reply.raw.socket;
      chunked = reply.raw.chunkedEncoding;
    }
    if (replay === "resync") reply.raw.write(message("resync"));
    else {
      // The client has seen everything up to its Last-Event-ID.
      if (lastEventId !== null) sentUpTo = lastEventId;
      for (const event of replay) send(event);
    }
    sentUpTo = Math.max(position, sentUpTo);
    reply.raw.write(message("ready", sentUpTo));
    for (const event of waiting) send(event);
    waiting.length = 0;
    live = true;
  }
};
