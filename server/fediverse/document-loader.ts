import { signRequest } from "@fedify/fedify";
import {
  createActivityPubRequest,
  type DocumentLoader,
  getRemoteDocument,
  type RemoteDocument,
} from "@fedify/fedify/runtime";
import { jsonIn, tooHeavyJsonLd } from "./activity-json.ts";
import { type RemoteFetch, RemoteFetchError, responseOf } from "./safe-fetch.ts";
import { linkedHref } from "./webmention-pages.ts";

/** An `<a>` or `<link>` naming the ActivityPub document of the page it is on. */
const namesDocument = (attribute: (name: string) => string) =>
  attribute("rel").toLowerCase().split(/\s+/).includes("alternate") &&
  /^application\/(activity\+json|ld\+json)\s*(;|$)/i.test(attribute("type"));

/**
 * The types a document is read as: JSON (ActivityPub's, JSON-LD's, or plain, as
 * some servers give their contexts), or a page naming its document. Fedify
 * reads any answer as JSON, whatever its type (none, text, an image), so a file
 * uploaded to a site that keeps uploads at its own address (a forum's, a small
 * server's media) could pose as an account there, `@admin@that.site`: Mastodon
 * refuses such answers too.
 */
const readable = /^(application\/([\w.-]+\+)?json|text\/html|application\/xhtml\+xml)\s*(;|$)/i;

/**
 * A page (HTML) reaches Fedify as the one tag naming its document, or empty:
 * Fedify finds that tag with a pattern whose time grows with the cube of a run
 * of spaces after `<a` (4 kB of them held the event loop 13 s; a page of 1 MB,
 * for ever). The tag is found here in linear time (webmention-pages.ts).
 */
function bodyForFedify(body: Buffer, headers: Headers): BodyInit {
  if (!/^(text\/html|application\/xhtml\+xml)\s*(;|$)/i.test(headers.get("content-type") ?? "")) {
    return new Uint8Array(body);
  }
  const href = linkedHref(body.toString(), namesDocument);
  // Fedify reads `href` as written, and only a double-quoted one without `"` whole.
  return href === null || /["<>]/.test(href)
    ? ""
    : `<link rel="alternate" type="application/activity+json" href="${href}">`;
}

/**
 * Remote documents as Fedify reads them (accounts, their keys, posts), through
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
  signedBy?: { keyId: URL; privateKey: CryptoKey },
): DocumentLoader {
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
    if (answer.status >= 200 && answer.status < 300 && !readable.test(type))
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
