import { networkFactor } from "../lib/address-limit.ts";
import { addressScope, networkOf } from "../lib/address-scope.ts";

/** Addresses held in one minute's counts, at most. */
const addressesHeld = 100_000;

/**
 * Views and reads counted from one address in the current minute (an IPv6
 * address by its /64), and from its network (an IPv6 address's /48, whose
 * 65,536 /64s have `networkFactor` addresses' allowance together). A flood
 * stops being counted at either limit; the addresses held are bounded too,
 * and a new address beyond that bound waits for the next minute. Nothing of
 * this is written anywhere.
 */
export function addressWindow(perMinutePerAddress: number) {
  let window = { minute: -1, counts: new Map<string, number>() };
  return function withinLimit(ip: string, now: number): boolean {
    const minute = Math.floor(now / 60_000);
    if (window.minute !== minute) window = { minute, counts: new Map() };
    const key = addressScope(ip);
    const count = (window.counts.get(key) ?? 0) + 1;
    if (count > perMinutePerAddress) return false;
    // An IPv4 address is its own network: counted once.
    const network = key.endsWith("/64") ? networkOf(ip) : null;
    const fromNetwork = network === null ? 0 : (window.counts.get(network) ?? 0) + 1;
    if (fromNetwork > perMinutePerAddress * networkFactor) return false;
    if (count === 1 && window.counts.size >= addressesHeld) return false;
    window.counts.set(key, count);
    if (network !== null) window.counts.set(network, fromNetwork);
    return true;
  };
}
