import { signRequest } from "@fedify/fedify";

/**
 * A remote account's key pair as Mastodon makes one: RSA of 2048 bits. The
 * site's own keys are fedify's RSA of 4096 bits, made by the server itself;
 * a test's Fediverse server needs no more than Mastodon's, and a key of 2048
 * bits takes about a fifteenth of the CPU to make (0.04 s against 0.6).
 * Given with its public key as an account shows it (PEM), and what signs an
 * activity as its accounts' (`${actor}#main-key`) for a site's shared inbox.
 */
export async function remoteAccountKeys() {
  const keys = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  );
  const spki = Buffer.from(await crypto.subtle.exportKey("spki", keys.publicKey));
  const lines = spki
    .toString("base64")
    .match(/.{1,64}/g)
    ?.join("\n");
  return {
    publicKeyPem: `-----BEGIN PUBLIC KEY-----\n${lines}\n-----END PUBLIC KEY-----\n`,
    /** `activity`, by `actor`, as a signed post to an inbox (the shared one) of the site at `site`. */
    signed: (
      site: string,
      actor: string,
      activity: Record<string, unknown>,
      inbox = "/fediverse/inbox",
    ) =>
      signRequest(
        new Request(`${site}${inbox}`, {
          method: "POST",
          headers: { "content-type": "application/activity+json" },
          body: JSON.stringify({
            "@context": "https://www.w3.org/ns/activitystreams",
            ...activity,
          }),
        }),
        keys.privateKey,
        new URL(`${actor}#main-key`),
      ),
  };
}

/**
 * Keys for a stand-in server's accounts (`newKey`): eight pairs a worker, each made at its first
 * use and then handed out in turn, so an account's next key is never its last. Made afresh, the
 * Fediverse files' 110 accounts a run took about 5 CPU-seconds; a forger's key
 * (`remoteAccountKeys` itself) is still made for each forgery.
 */
const inTurn: ReturnType<typeof remoteAccountKeys>[] = [];
let handedOut = 0;
export function accountKeysInTurn(): ReturnType<typeof remoteAccountKeys> {
  const at = handedOut++ % 8;
  const keys = inTurn[at] ?? remoteAccountKeys();
  inTurn[at] = keys;
  return keys;
}

/** A request as inject takes it. */
export const injected = async (request: Request) => ({
  method: "POST" as const,
  url: new URL(request.url).pathname,
  headers: Object.fromEntries(request.headers),
  payload: await request.text(),
});
