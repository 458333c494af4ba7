import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import type { FastifyReply } from "fastify";
import { z } from "zod";
import { errorResponseSchema, itemKindSchema } from "../../../contract/api.ts";
import {
  type ItemEventName,
  type LiveEventName,
  liveEventNames,
} from "../../../contract/event-names.ts";
import type { LiveEvent } from "../../events/bus.ts";
import { ApiError } from "../errors.ts";
import type { StreamSlots } from "../stream-slots.ts";
import { type RouteDeps, requireItem } from "./deps.ts";

export type StreamOptions = {
  /** The open streams, counted against their limits. */
  slots: StreamSlots;
};

/** How many missed events a reconnecting client is replayed before being told to resync. */
const replayLimit = 500;
/** A client that lets this much go unread is dropped; it will reconnect and catch up. */
const maxBufferedBytes = 1024 * 1024;

const topicPattern = /^([a-z]+):(.+)$/;

// One event goes to every stream of its topic (thousands on a popular post):
// it is framed and encoded once, and the same bytes are written to each.
const frames = new WeakMap<LiveEvent, Buffer>();

function frame(event: LiveEvent): Buffer {
  let bytes = frames.get(event);
  if (!bytes) {
    bytes = Buffer.from(`id: ${event.id}\nevent: ${event.type}\ndata: ${event.data}\n\n`);
    frames.set(event, bytes);
  }
  return bytes;
}

/** The stream's own events, which carry nothing but their name (and `ready` its position). */
function message(name: Exclude<LiveEventName, ItemEventName>, id?: number): string {
  return `${id === undefined ? "" : `id: ${id}\n`}event: ${name}\ndata: {}\n\n`;
}

function parseLastEventId(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : null;
}

export const eventRoutes: FastifyPluginAsyncZod<RouteDeps & StreamOptions> = async (
  app,
  { engagement, catalog, bus, slots },
) => {
  const open = new Set<FastifyReply>();

  // Streams never end by themselves; without this, closing the server would
  // wait for every reader to leave.
  app.addHook("preClose", async () => {
    for (const reply of open) reply.sse.close();
  });

  /**
   * What a client that last saw `afterId` has missed on `topic`, or "resync"
   * when that cannot be told exactly: events were pruned, there are too many,
   * or the id is from the future (another database).
   */
  async function missed(topic: string, afterId: number): Promise<LiveEvent[] | "resync"> {
    // The database is the authority, not this instance's listener: a replay may
    // already have handed out an id whose notification is still on its way here.
    const latest = Math.max(bus.lastEventId, await engagement.events.latestId());
    if (afterId > latest) return "resync";
    const oldest = await engagement.events.oldestId();
    if (oldest === null ? afterId < latest : afterId + 1 < oldest) return "resync";
    const events = await engagement.events.since(topic, afterId, replayLimit + 1);
    return events.length > replayLimit ? "resync" : events;
  }

  app.get(
    "/events",
    {
      sse: { kind: "manual" },
      schema: {
        summary: "Live reactions and comments of one item (Server-Sent Events)",
        description: `Events: ${liveEventNames.map((name) => `\`${name}\``).join(", ")} (docs/architecture.md, "Live updates"). Send Last-Event-ID to replay missed events.`,
        tags: ["live"],
        querystring: z.object({
          topic: z
            .string()
            .max(200)
            .regex(topicPattern, "Use <kind>:<id>, e.g. science:wifi.")
            .describe("`mythology:<story id>` or `science:<post id>`"),
        }),
        response: { "4xx": errorResponseSchema, "5xx": errorResponseSchema },
      },
    },
    async (request, reply) => {
      const { topic } = request.query;
      const [, kindText = "", id = ""] = topicPattern.exec(topic) ?? [];
      const kind = itemKindSchema.safeParse(kindText);
      if (!kind.success)
        throw new ApiError(400, "validation_failed", `Unknown kind "${kindText}".`);
      requireItem(catalog, kind.data, id);
      const release = slots.take(request.ip, request.visitorId);

      // Subscribe before reading the position, so nothing falls in between;
      // events arriving during the replay wait and are deduplicated by id.
      let live = false;
      let sentUpTo = 0;
      const waiting: LiveEvent[] = [];
      const send = (event: LiveEvent) => {
        if (event.id <= sentUpTo) return;
        if (reply.raw.writableLength > maxBufferedBytes) {
          reply.sse.close();
          return;
        }
        reply.raw.write(frame(event));
        sentUpTo = event.id;
      };
      const unsubscribe = bus.subscribe(topic, (event) => {
        if (live) send(event);
        else waiting.push(event);
      });
      const leave = () => {
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
        if (lastEventId !== null) replay = await missed(topic, lastEventId);
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
      reply.sse.keepAlive();
      reply.sse.sendHeaders();
      reply.raw.write("retry: 3000\n\n");
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
    },
  );
};
