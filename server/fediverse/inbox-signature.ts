import { type KeyCache, type KvStore, kvCache, verifyRequestDetailed } from "@fedify/fedify";
import type { DocumentLoader } from "@fedify/fedify/runtime";
import { CryptographicKey, Multikey } from "@fedify/fedify/vocab";
import { Temporal } from "@js-temporal/polyfill";
import { documentLoader } from "./document-loader.ts";
import type { RemoteFetch } from "./safe-fetch.ts";

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

/** Who signed a post whose signature holds: the key's id and, as the key says, its owner's. */
export type Signer = { keyId: string; ownerId: string | null };

export function createSignatureCheck(kv: KvStore, remoteFetch: RemoteFetch) {
  const fresh = documentLoader(remoteFetch);
  // Fedify's document loader: documents kept 5 minutes (federation.ts).
  const cached = kvCache({ loader: fresh, kv });
  const loaders = { documentLoader: cached, contextLoader: cached };
  /** When each key was last fetched again after a failure, by its id. */
  const refetched = new Map<string, number>();

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

  /** Whether a key that failed may be fetched again now; if so, it counts as fetched. */
  function mayRefetch(keyId: string): boolean {
    const now = Date.now();
    if (now - (refetched.get(keyId) ?? 0) < refetchEveryMs) return false;
    if (refetched.size >= 10_000) refetched.clear();
    refetched.set(keyId, now);
    return true;
  }

  /**
   * Who signed the request, or null when its signature does not hold. Fedify verifies against the cached
   * key and, failing, fetches the key again itself, each time: that second
   * fetch is let through only as `mayRefetch` says, past the document cache
   * (a rotated key's account would be read from it unchanged). `signedLoader`:
   * the loader Fedify reads keys with for a post to the site's own inbox.
   */
  return async function signed(
    request: Request,
    signedLoader?: DocumentLoader,
  ): Promise<Signer | null> {
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
    const documentLoader: DocumentLoader = async (url, options) => {
      if (!fromCache.has(url)) return first(url, options);
      held.add(url);
      if (!mayRefetch(url)) throw new Error(`the key ${url} was fetched again within five minutes`);
      const loaded = await again(url, options);
      held.delete(url);
      return loaded;
    };
    const result = await verifyRequestDetailed(request, {
      ...loaders,
      documentLoader,
      keyCache: {
        async get(keyId) {
          const key = await keys.get(keyId);
          if (key) fromCache.add(keyId.href);
          return key;
        },
        set: async (keyId, key) => {
          if (!held.has(keyId.href)) await keys.set(keyId, key);
        },
      },
    });
    if (!result.verified) return null;
    const { id, ownerId } = result.key;
    return id ? { keyId: id.href, ownerId: ownerId?.href ?? null } : null;
  };
}
