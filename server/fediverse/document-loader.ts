import { type KvStore, kvCache, signRequest } from "@fedify/fedify";
import {
  createActivityPubRequest,
  type DocumentLoader,
  getRemoteDocument,
  type RemoteDocument,
} from "@fedify/fedify/runtime";
import { type RemoteFetch, RemoteFetchError, responseOf } from "../lib/safe-fetch.ts";
import { jsonIn, tooHeavyJsonLd } from "./activity-json.ts";
import { isPage, linkedHref } from "./webmention-pages.ts";

/** An `<a>` or `<link>` naming the ActivityPub document of the page it is on. */
const namesDocument = (attribute: (name: string) => string) =>
  attribute("rel").toLowerCase().split(/\s+/).includes("alternate") &&
  /^application\/(activity\+json|ld\+json)\s*(;|$)/i.test(attribute("type"));

/** ActivityStreams' namespace, the profile that makes JSON-LD an ActivityPub document. */
const activityStreams = "https://www.w3.org/ns/activitystreams";

/**
 * Whether an answer of this Content-Type is an ActivityPub document, as Mastodon
 * reads one (its JSON-LD helper's `valid_activitypub_content_type?`):
 * `application/activity+json`, or `application/ld+json` whose quoted `profile`
 * names ActivityStreams among its addresses. Not plain JSON, nor JSON-LD of
 * another profile, nor none: a site that keeps uploads at its own address (a
 * forum's, a small server's media, an API that answers JSON) could otherwise
 * serve a file posing as an account there, `@admin@that.site`.
 */
function isActivityPubType(contentType: string): boolean {
  const [type = "", ...parameters] = contentType.split(";").map((part) => part.trim());
  if (type.toLowerCase() === "application/activity+json") return true;
  if (type.toLowerCase() !== "application/ld+json") return false;
  return parameters.some((parameter) => {
    const profile = /^profile="([^"]*)"$/i.exec(parameter)?.[1];
    return profile?.split(/\s+/).includes(activityStreams) ?? false;
  });
}

/**
 * What a JSON-LD context may come as: any JSON. Mastodon asks `application/ld+json`
 * of the few it fetches, but Fedify expands every document it reads with its
 * contexts, and some servers give theirs as plain JSON; a context says what the
 * words of a document mean, and is never taken for an account or a post.
 */
const isJson = (type: string) => /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(type);

/**
 * A page (HTML) reaches Fedify as the one tag naming its document, or empty:
 * Fedify finds that tag with a pattern whose time grows with the cube of a run
 * of spaces after `<a` (4 kB of them held the event loop 13 s; a page of 1 MB,
 * for ever). The tag is found here in linear time (webmention-pages.ts).
 */
function bodyForFedify(body: Buffer, headers: Headers): BodyInit {
  if (!isPage(headers.get("content-type") ?? "")) {
    return new Uint8Array(body);
  }
  const href = linkedHref(body.toString(), namesDocument);
  // Fedify reads `href` as written, and only a double-quoted one without `"` whole.
  return href === null || /["<>]/.test(href)
    ? ""
    : `<link rel="alternate" type="application/activity+json" href="${href}">`;
}

/**
 * Remote documents as Fedify reads them (accounts, their keys, posts; with
 * `contexts`, the JSON-LD contexts they name, kept apart), through
 * the site's guarded fetch instead of Fedify's own, which reads a whole answer
 * however large and waits for it however long: a post's signature names the
 * address of its key, so anyone could make the site read gigabytes. Mastodon
 * reads at most 1 MB of such a document; so does the site, within 10 seconds.
 * `signedBy` signs each request as the site's actor, as Fedify's own loader
 * for servers that answer only signed requests does (draft-cavage, as Mastodon
 * signs), each address of a redirect anew: a signature names its address.
 */
export function documentLoader(
  remoteFetch: RemoteFetch,
  {
    signedBy,
    contexts = false,
  }: { signedBy?: { keyId: URL; privateKey: CryptoKey }; contexts?: boolean } = {},
): DocumentLoader {
  const readable = contexts ? isJson : (type: string) => isActivityPubType(type) || isPage(type);
  const headersFor = async (target: URL) => {
    const request = createActivityPubRequest(target.href);
    // The guarded fetch sends the site's own user agent.
    request.headers.delete("user-agent");
    const headers: Record<string, string> = { accept: request.headers.get("accept") ?? "" };
    if (signedBy) {
      const signed = await signRequest(request, signedBy.privateKey, signedBy.keyId);
      // Node sets Host from the address it connects to, as signed.
      for (const name of ["date", "signature"]) headers[name] = signed.headers.get(name) ?? "";
    }
    return headers;
  };
  /** A page may name its document (`rel="alternate"`): that link is followed once, never round a ring. */
  const load = async (url: string, alternates = 1): Promise<RemoteDocument> => {
    const answer = await remoteFetch(url, {
      headers: headersFor,
      timeoutMs: 10_000,
      maxBytes: 1_000_000,
    });
    const type = [answer.headers["content-type"]].flat()[0] ?? "";
    if (answer.status >= 200 && answer.status < 300 && !readable(type))
      throw new RemoteFetchError(`${url} is not a document (${type.slice(0, 100) || "no type"})`);
    // Too deep, or defining too many terms, it would hold the server (activity-json.ts).
    if (tooHeavyJsonLd(jsonIn(answer.body.toString())))
      throw new RemoteFetchError(`${url} is too heavy`);
    return getRemoteDocument(answer.url, responseOf(answer, bodyForFedify), async (next) => {
      if (alternates === 0) throw new RemoteFetchError(`${url} names yet another document`);
      return load(next, alternates - 1);
    });
  };
  return (url) => load(url);
}

/**
 * The loaders Fedify reads documents and contexts with, each kept 5 minutes in
 * its store, as its own loader's are; contexts apart, so that a file read as a
 * context is never found there as an account.
 */
export function cachedLoaders(remoteFetch: RemoteFetch, kv: KvStore) {
  return {
    documentLoader: kvCache({ loader: documentLoader(remoteFetch), kv }),
    contextLoader: kvCache({
      loader: documentLoader(remoteFetch, { contexts: true }),
      kv,
      prefix: ["_fedify", "remoteContext"],
    }),
  };
}
