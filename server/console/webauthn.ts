import { onFirstUse } from "../lib/on-first-use.ts";

/**
 * @simplewebauthn/server and the certificate parsers it brings took a quarter
 * of the server's start-up time; only the owner's passkey ceremonies need it.
 */
export const webauthn = onFirstUse(() => import("@simplewebauthn/server"));
