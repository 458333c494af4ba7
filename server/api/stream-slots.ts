import { addressScope, networkOf } from "../lib/address-scope.ts";
import { perMinute } from "../lib/per-minute.ts";
import { ApiError } from "./errors.ts";

type StreamLimits = {
  /** Open streams one instance serves, from everyone. */
  max: number;
  /** Open streams from one IP address (an IPv6 address by its /64). */
  perIp: number;
  /**
   * Open streams from one IPv6 network (its /48, which holds 65,536 /64s, each
   * counted as an address): without it, one network could take every stream.
   */
  perNetwork: number;
  /** Open streams of one visitor (a browser with the visitor cookie). */
  perVisitor: number;
};

/** What a refused client is asked to wait before trying again. */
const retryAfterSeconds = 30;

/**
 * Each opening reads up to 512 KB of replay from the journal, so openings are
 * counted too: per address and per network, in a minute, this many times the
 * streams it may hold open (120 for an address by default). A stream that
 * reconnects every 10 seconds, each of its 20 tabs at once, is never refused;
 * a browser's reconnections are 3 seconds apart only while the server keeps
 * failing, and a deploy or restart reconnects each stream once.
 */
const openingsPerOpenSlot = 6;
/**
 * Addresses and networks whose openings are counted at once: only a flood of
 * more within one minute starts the counts afresh.
 */
const openersKept = 100_000;

export type StreamSlots = ReturnType<typeof createStreamSlots>;

declare module "fastify" {
  interface FastifyInstance {
    /** The live-event streams this instance holds open. */
    eventStreams: StreamSlots;
  }
}

/**
 * Counts open event streams, in all and per client, so that one client
 * cannot take every stream an instance serves and lock the other readers out.
 */
export function createStreamSlots(limits: StreamLimits) {
  let open = 0;
  const byIp = new Map<string, number>();
  const byNetwork = new Map<string, number>();
  const byVisitor = new Map<string, number>();
  // Openings in the current minute of each address and network, from its first.
  const networkOpenings = perMinute(limits.perNetwork * openingsPerOpenSlot, openersKept);
  const addressOpenings = perMinute(limits.perIp * openingsPerOpenSlot, openersKept);

  const add = (counts: Map<string, number>, key: string, delta: number) => {
    const count = (counts.get(key) ?? 0) + delta;
    if (count > 0) counts.set(key, count);
    else counts.delete(key);
  };

  return {
    get open() {
      return open;
    },

    /**
     * Takes a slot for a client, or throws the refusal: 429 when the client
     * holds its share, 503 when the instance is full. The function returned
     * gives the slot back; calling it again does nothing.
     */
    take(ip: string, visitorId: string | null): () => void {
      const address = addressScope(ip);
      // An IPv4 address is its own network: it is counted once, as an address.
      const network = networkOf(ip) === address ? null : networkOf(ip);
      const tooMany = (from: string) =>
        new ApiError(
          429,
          "rate_limited",
          `Too many live-update streams open ${from}; close some pages and try again.`,
          retryAfterSeconds,
        );
      const tooOften = (from: string, seconds: number) =>
        new ApiError(
          429,
          "rate_limited",
          `Too many live-update streams opened ${from} in the last minute; try again in ${seconds} s.`,
          seconds,
        );
      if ((byIp.get(address) ?? 0) >= limits.perIp) throw tooMany("from this address");
      if (network !== null && (byNetwork.get(network) ?? 0) >= limits.perNetwork) {
        throw tooMany("from this network");
      }
      if (visitorId !== null && (byVisitor.get(visitorId) ?? 0) >= limits.perVisitor) {
        throw tooMany("in this browser");
      }
      if (open >= limits.max) {
        throw new ApiError(
          503,
          "service_unavailable",
          "Too many open event streams; try again later.",
          retryAfterSeconds,
        );
      }
      // Counted only once the stream may open; the network's before the
      // address's, so a refused network spends none of the address's share,
      // and a refused address gives its network's back.
      const networkOpening = network === null ? null : networkOpenings.take(network);
      if (networkOpening && "retryAfter" in networkOpening) {
        throw tooOften("from this network", networkOpening.retryAfter);
      }
      const addressOpening = addressOpenings.take(address);
      if ("retryAfter" in addressOpening) {
        networkOpening?.giveBack();
        throw tooOften("from this address", addressOpening.retryAfter);
      }
      open += 1;
      add(byIp, address, 1);
      if (network !== null) add(byNetwork, network, 1);
      if (visitorId !== null) add(byVisitor, visitorId, 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        open -= 1;
        add(byIp, address, -1);
        if (network !== null) add(byNetwork, network, -1);
        if (visitorId !== null) add(byVisitor, visitorId, -1);
      };
    },
  };
}
