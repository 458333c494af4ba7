import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { keyFor } from "../lib/tokens.ts";
import { challengeLifetimeMs } from "./passkey-repository.ts";

/**
 * The challenges a passkey signs in with (docs/decisions/012-owner-console.md).
 * None is stored as it is handed out: each carries its deadline and the site
 * key's signature of both, so any instance checks it, and asking for one costs
 * no row and uses up no address's turn (a stranger behind the owner's address
 * asking on keeps no passkey out). One is written down only once a passkey's
 * answer to it verified (`spendChallenge`), so that it signs in once.
 */
export type SignInChallenges = ReturnType<typeof signInChallenges>;

/** Challenges signed with a key of the site's secret (`cookieSecret`), the same on every instance. */
export function signInChallenges(cookieSecret: string, now: () => Date) {
  const key = keyFor(cookieSecret, "passkey sign-in challenges");
  const signature = (body: Uint8Array) =>
    createHmac("sha256", key).update(body).digest().subarray(0, 16);
  return {
    /** A new challenge: 16 random bytes, its deadline, and their signature. */
    issue(): Uint8Array<ArrayBuffer> {
      const body = Buffer.alloc(24);
      randomBytes(16).copy(body);
      body.writeBigUInt64BE(BigInt(now().getTime() + challengeLifetimeMs), 16);
      return new Uint8Array(Buffer.concat([body, signature(body)]));
    },
    /** The deadline of `challenge` (base64url, as an answer carries it) when it is ours and alive; null otherwise. */
    deadline(challenge: string): Date | null {
      const bytes = Buffer.from(challenge, "base64url");
      if (bytes.length !== 40) return null;
      const body = bytes.subarray(0, 24);
      if (!timingSafeEqual(signature(body), bytes.subarray(24))) return null;
      const at = Number(body.readBigUInt64BE(16));
      return at > now().getTime() ? new Date(at) : null;
    },
  };
}
