import { addressScope, networkOf } from "../lib/address-scope.ts";
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
