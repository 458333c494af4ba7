import type { FastifyInstance, FastifyRequest } from "fastify";
import { addressScope, networkOf } from "./address-scope.ts";

/**
 * How many addresses' allowance one IPv6 network (its /48) has, from all its
 * addresses together: a home's or an office's few people never reach it, while
 * a /48's 65,536 /64s (or a /56's 256), each counted as an address, cannot
 * take the allowance of thousands.
 */
export const networkFactor = 10;

/** Whose count ran out: the address's own or its network's. */
export type Refusal = { retryAfter: number; from: "your address" | "your network" };

/**
 * One request counted against its address and its network: the refusal when
 * either ran out. With `{ increment: false }` it only asks, counting nothing.
 */
export type AddressCount = (
  request: FastifyRequest,
  options?: { increment: false },
) => Promise<Refusal | null>;

/**
 * Counts requests under `name` by address (`addressScope`) and by network
 * (`networkOf`, `networkFactor` times the address's `max`), each over
 * `timeWindow` milliseconds; the address's comes first, so an IPv4 address,
 * its own network, is refused as an address.
 */
export function countByAddress(
  app: FastifyInstance,
  { name, max, timeWindow }: { name: string; max: number; timeWindow: number },
): AddressCount {
  const counts = [
    [
      app.createRateLimit({
        max,
        timeWindow,
        keyGenerator: (request) => `${name}:${addressScope(request.ip)}`,
      }),
      "your address",
    ],
    [
      app.createRateLimit({
        max: max * networkFactor,
        timeWindow,
        keyGenerator: (request) => `${name} network:${networkOf(request.ip)}`,
      }),
      "your network",
    ],
  ] as const;
  return async (request, options) => {
    for (const [count, from] of counts) {
      const allowance = await count(request, options);
      if (!allowance.isAllowed && allowance.isExceeded) {
        return { retryAfter: Math.max(1, allowance.ttlInSeconds), from };
      }
    }
    return null;
  };
}
