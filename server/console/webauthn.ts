import { onFirstUse } from "../lib/on-first-use.ts";

/**
 * @simplewebauthn/server and the certificate parsers it brings took a quarter
 * of the server's start-up time; only the owner's passkey ceremonies need it.
 */
export const webauthn = onFirstUse(() => import("@simplewebauthn/server"));

/**
 * A passkey alone signs the owner in, so it must check who holds it, by a PIN, a fingerprint
 * or a face (docs/decisions/076-passkeys-verify-the-owner.md): one that only felt a touch is refused.
 */
export const unverifiedPasskey =
  "This passkey did not check that it is you (by a PIN, a fingerprint or a face): the console takes only passkeys that do.";
