import { createHmac, createSecretKey } from "node:crypto";
import { addressScope, networkOf } from "../lib/address-scope.ts";
import { remembered } from "../lib/remembered.ts";

/**
 * Keys derived from the cookie secret, which every instance shares
 * (docs/decisions/004-visitor-ownership.md), one per use so that no value
 * computed for one purpose can stand for another.
 */
export function createWriterKeys(cookieSecret: string) {
  // Key objects, made once: handing createHmac raw bytes makes it build and
  // check a key on every call, which was most of the work of a returning
  // visitor's comment read.
  const derive = (purpose: string) =>
    createSecretKey(createHmac("sha256", cookieSecret).update(purpose).digest());
  const avatarKey = derive("comment avatar");
  const addressKey = derive("comment writer address");
  const digest = (scope: string) =>
    createHmac("sha256", addressKey).update(scope).digest("base64url");
  const addressHash = (ip: string): string => digest(addressScope(ip));
  const networkHash = (ip: string): string => digest(networkOf(ip));
  return {
    /**
     * The seed of a visitor's avatar: an HMAC of the visitor credential, so two
     * people who type the same name look different, and nothing in it leads
     * back to the credential (docs/decisions/010-moderation-and-spam.md).
     */
    // Every comment read computes the avatar of each comment its reader wrote:
    // each visitor's is kept, up to a bound.
    avatarOf: remembered(
      (visitorId: string) =>
        createHmac("sha256", avatarKey).update(visitorId).digest("hex").slice(0, 16),
      10_000,
    ),
    /** What is stored of the address a comment came from: enough to ban it, not to read it. */
    addressHash,
    /**
     * What is stored of the network an address sends from, for the limits counted by
     * network: the same HMAC of `networkOf`, so an IPv4 address's is its address's.
     */
    networkHash,
    /** What the limits per address and network count a request from `ip` by. */
    senderOf: (ip: string) => ({ ip: addressHash(ip), network: networkHash(ip) }),
  };
}

export type WriterKeys = ReturnType<typeof createWriterKeys>;
