import { type KeyCache, type KvStore, verifyRequestDetailed } from "@fedify/fedify";
import type { DocumentLoader } from "@fedify/fedify/runtime";
import { CryptographicKey, Multikey } from "@fedify/fedify/vocab";
import { Temporal } from "@js-temporal/polyfill";
import { perMinute } from "../lib/per-minute.ts";
import type { RemoteFetch } from "../lib/safe-fetch.ts";
import { cachedLoaders, documentLoader } from "./document-loader.ts";

/*
 * Whether an inbox post's HTTP signature holds (draft-cavage's `Signature`, or
 * RFC 9421's), checked before anything reads the post as JSON-LD: Fedify reads
 * the whole activity so before it checks the signature itself, a third of a
 * second of CPU for a post within the limits (activity-json.ts), so only a
 * post signed by a key that verifies reaches it. The key is read through the
 * site's guarded loader and kept in Fedify's own key cache, where Fedify's
 * check of the same post then finds it.
 *
 * A key that changed on its server (rotated) fails against the copy cached:
 * it is fetched once more, past both caches, and the post checked again. Only
 * once per key and instance every five minutes, so that forged posts naming
 * an honest server's key cannot make the site fetch it for each of them.
 *
 * A key id is the sender's to choose (`…/actor?n=1#key`, `?n=2`, …), each a
 * key never seen: a fetch of a key whose post is then refused counts against
 * the key's host, for the network that sent it (a few a minute); past that,
 * that network's posts naming a key there that needs fetching are answered
 * "busy" (429) unread. A post that holds gives back what its fetch counted, so
 * an honest server's new account or rotated key is never held back by its own.
 *
 * A post whose key names a blocked account or server is stopped as its key is
 * about to be read (from the cache or its server): every check before that
 * (the headers, the algorithm, the date, the digest) is the one any post gets,
 * so a blocked sender is answered as anyone else for a post ill-formed.
 */

/** How often a cached key may be fetched again because a signature failed against it. */
const refetchEveryMs = 5 * 60_000;
/** Where Fedify's inbox caches public keys (its `kvPrefixes.publicKey`), in its format. */
const keyPrefix = ["_fedify", "publicKey"] as const;
/**
 * How long a key read is kept: a day, then read again. Fedify keeps one for
 * ever; a key id is the sender's to choose (`…/users/alice?1`, `?2`), and each
 * refused post may leave one behind (ten a minute an address).
 */
const keptFor = Temporal.Duration.from({ hours: 24 }) as unknown as globalThis.Temporal.Duration;
/** How long a key that could not be read is remembered so, as Fedify does. */
const unavailableFor = Temporal.Duration.from({
  minutes: 10,
}) as unknown as globalThis.Temporal.Duration;

/** Fetches of keys at one host whose posts were refused, a minute, from one network. */
const refusedFetchesPerHostPerMinute = 5;
/** draft-cavage's `algorithm` values Fedify knows (its `DRAFT_KNOWN_ALGORITHMS`). */
const draftAlgorithms = new Set([
  "ecdsa-sha256",
  "ecdsa-sha384",
  "ecdsa-sha512",
  "ed25519",
  "hs2019",
  "rsa-sha1",
  "rsa-sha256",
  "rsa-sha512",
]);
/** RFC 9421's `alg` values Fedify verifies with. */
const rfc9421Algorithms = new Set([
  "rsa-v1_5-sha256",
  "rsa-v1_5-sha512",
  "rsa-pss-sha512",
  "ecdsa-p256-sha256",
  "ecdsa-p384-sha384",
  "ed25519",
]);

/** Who signed a post whose signature holds: the key's id and, as the key says, its owner's. */
export type Signer = { keyId: string; ownerId: string | null };
/**
 * The check's answer: who signed; null when the signature does not hold;
 * "blocked" when its key names a blocked sender (nothing of it read); "busy"
 * when its key would need fetching and its host's fetches for the sender's
 * network are spent this minute; `gone` when its key's server answered that
 * the key is gone for good (410), as an account deleted there.
 */
export type SignatureCheck = Signer | null | "blocked" | "busy" | { gone: string };

/**
 * Whether the signature names an algorithm Fedify does not verify with: it
 * would check a draft-cavage one as RSA whatever it says, and refuse an RFC
 * 9421 one only once its key is read.
 */
function unknownAlgorithm(headers: Headers): boolean {
  const input = headers.get("signature-input");
  if (input !== null) {
    const named = [...input.matchAll(/;\s*alg="([^"]*)"/g)].map(([, alg = ""]) => alg);
    return named.some((alg) => !rfc9421Algorithms.has(alg.toLowerCase()));
  }
  // Read as Fedify reads the header.
  for (const pair of headers.get("signature")?.split(",") ?? []) {
    const [, name, value] = /^\s*([A-Za-z]+)="([^"]*)"\s*$/.exec(pair) ?? [];
    if (name === "algorithm" && !draftAlgorithms.has(String(value).toLowerCase())) return true;
  }
  return false;
}

/** What a post is checked with beside itself. */
export type CheckOptions = {
  /** The loader Fedify reads keys with for a post to the site's own inbox. */
  loader?: DocumentLoader;
  /** Whether a key id names a blocked account or server (blocks.ts). */
  blocked?: (keyId: string) => Promise<boolean>;
  /** The sender's network, whose refused fetches of a host's keys are counted. */
  network?: string;
};

/** Thrown from the key cache's read when the key names a blocked sender. */
const blockedKey = new Error("the key names a blocked account or server");

export function createSignatureCheck(kv: KvStore, remoteFetch: RemoteFetch) {
  const fresh = documentLoader(remoteFetch);
  // Fedify's loaders (federation.ts).
  const loaders = cachedLoaders(remoteFetch, kv);
  const cached = loaders.documentLoader;
  /** When each key was last fetched again after a failure, by its id. */
  const refetched = new Map<string, number>();
  /** Fetches of keys by host and network this minute, given back when their post holds. */
  const fetches = perMinute(refusedFetchesPerHostPerMinute);

  /** Fedify's key cache (its `KvKeyCache`, which it does not export), on the same entries. */
  const keys: KeyCache = {
    async get(keyId) {
      const stored = await kv.get([...keyPrefix, keyId.href]);
      if (stored === undefined || stored === null) return stored;
      for (const kind of [CryptographicKey, Multikey]) {
        try {
          return await kind.fromJsonLd(stored, loaders);
        } catch {}
      }
      return undefined;
    },
    async set(keyId, key) {
      const entry = [...keyPrefix, keyId.href] as const;
      if (key === null) await kv.set(entry, null, { ttl: unavailableFor });
      else await kv.set(entry, await key.toJsonLd(loaders), { ttl: keptFor });
    },
  };

  /** Whether a key that failed may be fetched again now. */
  const mayRefetch = (keyId: string) => Date.now() - (refetched.get(keyId) ?? 0) >= refetchEveryMs;
  /** Records that a key that failed is fetched again now. */
  function refetching(keyId: string) {
    if (refetched.size >= 10_000) refetched.clear();
    refetched.set(keyId, Date.now());
  }

  /**
   * Who signed the request (SignatureCheck). Fedify verifies against the cached
   * key and, failing, fetches the key again itself, each time: that second
   * fetch is let through only as `mayRefetch` says, past the document cache
   * (a rotated key's account would be read from it unchanged).
   */
  return async function signed(
    request: Request,
    { loader: signedLoader, blocked, network = "" }: CheckOptions = {},
  ): Promise<SignatureCheck> {
    if (unknownAlgorithm(request.headers)) return null;
    // The site's own inbox reads keys signed as the site, uncached, as Fedify's does there.
    const [first, again] = signedLoader ? [signedLoader, signedLoader] : [cached, fresh];
    /** Keys this check found cached: a fetch of one is Fedify's second try. */
    const fromCache = new Set<string>();
    /**
     * Keys whose second fetch was not let through, or failed: their cached copy
     * stays, so that a forgery naming a key while its server is down does not
     * have the server's own posts refused for ten minutes.
     */
    const held = new Set<string>();
    /** What this check's fetches counted, given back if the post holds. */
    const counted: (() => void)[] = [];
    /** Whether a fetch was not made, its host's fetches for this network spent. */
    let busy = false;
    /**
     * Keys whose server answered that they are gone (410): not remembered as
     * unavailable, so that the account's own Delete, should it come next, is
     * answered as `gone` too (each such fetch counts as any refused post's).
     */
    const gone = new Set<string>();
    const documentLoader: DocumentLoader = async (url, options) => {
      const refetch = fromCache.has(url);
      if (refetch) {
        held.add(url);
        if (!mayRefetch(url))
          throw new Error(`the key ${url} was fetched again within five minutes`);
      }
      const taken = fetches.take(`${new URL(url).host} ${network}`);
      if ("retryAfter" in taken) {
        busy = true;
        held.add(url);
        throw new Error(`the keys at ${new URL(url).host} were fetched too often`);
      }
      counted.push(taken.giveBack);
      if (refetch) refetching(url);
      try {
        const loaded = await (refetch ? again : first)(url, options);
        held.delete(url);
        return loaded;
      } catch (error) {
        // Fedify's FetchError carries the answer that refused the document.
        if ((error as { response?: Response }).response?.status === 410) gone.add(url);
        throw error;
      }
    };
    let result: Awaited<ReturnType<typeof verifyRequestDetailed>>;
    try {
      result = await verifyRequestDetailed(request, {
        ...loaders,
        documentLoader,
        keyCache: {
          async get(keyId) {
            // Before the key is read from anywhere: every cheaper check has been made.
            if (await blocked?.(keyId.href)) throw blockedKey;
            const key = await keys.get(keyId);
            if (key) fromCache.add(keyId.href);
            return key;
          },
          set: async (keyId, key) => {
            if (!held.has(keyId.href) && !(key === null && gone.has(keyId.href)))
              await keys.set(keyId, key);
          },
        },
      });
    } catch (error) {
      if (error === blockedKey) return "blocked";
      throw error;
    }
    if (!result.verified) {
      if (busy) return "busy";
      const { reason } = result;
      return reason.type === "keyFetchError" && gone.has(reason.keyId.href)
        ? { gone: reason.keyId.href }
        : null;
    }
    for (const giveBack of counted) giveBack();
    const { id, ownerId } = result.key;
    return id ? { keyId: id.href, ownerId: ownerId?.href ?? null } : null;
  };
}
