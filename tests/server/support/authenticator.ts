import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";
import { siteUrl } from "./test-app.ts";

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

/** Where a ceremony is answered from: the page's origin and the relying party it names. */
export type Ceremony = { origin?: string; rpId?: string };

/**
 * A passkey in software, as a browser's authenticator answers: an ES256 key
 * pair, its credential id and its signature counter. It answers the console's
 * options with the JSON `@simplewebauthn/browser` posts, for any origin and
 * relying party a test names, so the server's checks meet real signatures.
 */
export class SoftPasskey {
  readonly #id: Buffer;
  readonly #keys = generateKeyPairSync("ec", { namedCurve: "P-256" });
  /** The count the next answer carries; a key that keeps none stays at 0. */
  counter: number;
  /** Whether it checks who holds it (a PIN, a fingerprint): its answers say so (the UV flag). */
  verifiesUser: boolean;
  /** `idBytes`: its credential id's length, up to WebAuthn's 1,023 bytes. */
  constructor({
    counter = 1,
    idBytes = 16,
    verifiesUser = true,
  }: { counter?: number; idBytes?: number; verifiesUser?: boolean } = {}) {
    this.counter = counter;
    this.verifiesUser = verifiesUser;
    this.#id = randomBytes(idBytes);
  }

  /** User present (0x01), verified (0x04) when it checks who holds it, and `more`. */
  #flags(more = 0) {
    return 0x01 | (this.verifiesUser ? 0x04 : 0) | more;
  }

  get id(): string {
    return base64url(this.#id);
  }

  #clientData(type: string, challenge: string, origin: string) {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  #authData(rpId: string, flags: number, counter: number, attested?: Uint8Array) {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, attested ?? Buffer.alloc(0)]);
  }

  /** The answer to registration options (`challenge`). */
  register(
    challenge: string,
    { origin = siteUrl, rpId = new URL(siteUrl).hostname }: Ceremony = {},
  ) {
    const jwk = this.#keys.publicKey.export({ format: "jwk" });
    const coseKey = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x ?? "", "base64url")],
      [-3, Buffer.from(jwk.y ?? "", "base64url")],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.#id.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.#id, isoCBOR.encode(coseKey)]);
    // With attested credential data (0x40).
    const authData = this.#authData(rpId, this.#flags(0x40), this.counter, attested);
    const attestation = new Map<string, string | Uint8Array | Map<string, string>>();
    attestation.set("fmt", "none");
    attestation.set("attStmt", new Map());
    attestation.set("authData", authData);
    const attestationObject = isoCBOR.encode(attestation);
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: base64url(this.#clientData("webauthn.create", challenge, origin)),
        attestationObject: base64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
    };
  }

  /** The answer to sign-in options (`challenge`), signed with the key; `counter` moves on when kept. */
  assert(
    challenge: string,
    {
      origin = siteUrl,
      rpId = new URL(siteUrl).hostname,
      counter,
    }: Ceremony & { counter?: number } = {},
  ) {
    if (counter !== undefined) this.counter = counter;
    else if (this.counter > 0) this.counter += 1;
    const clientData = this.#clientData("webauthn.get", challenge, origin);
    const authData = this.#authData(rpId, this.#flags(), this.counter);
    const signature = sign(
      "sha256",
      Buffer.concat([authData, sha256(clientData)]),
      this.#keys.privateKey,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: base64url(clientData),
        authenticatorData: base64url(authData),
        signature: base64url(signature),
      },
      clientExtensionResults: {},
    };
  }
}
