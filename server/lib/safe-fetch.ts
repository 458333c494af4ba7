import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/*
 * Every fetch of a remote address the site makes (the owner's busy calendar,
 * webmention sources and endpoints, the pictures of people who reply from the
 * Fediverse, the documents Fedify reads: accounts, keys, posts, and Fedify's
 * deliveries, which deadlines.ts sends through here) goes through here: http and https
 * only; the address a name resolves to is
 * checked as the connection is made, so a name cannot point at the site's
 * own network (loopback, private, link-local, carrier-grade NAT, multicast,
 * reserved) between a check and the connection; a public address on the
 * web's own port only (the scheme's: 80 or 443), so that no one can have the
 * site knock on another's mail or database port; a time limit for the whole
 * exchange, a size limit on the body and few redirects, each checked again;
 * each fetch on a connection of its own, never one kept from an earlier
 * fetch: when the two sides' idle times ran out at once (Node's agent and
 * Node's servers both keep one five seconds) the next fetch failed at once,
 * and a webmention's source was forgotten as unreachable.
 * `allowPrivate` lifts the address check: only the tests set it
 * (ALLOW_PRIVATE_ADDRESSES_IN_TESTS). The inboxes handed to Fedify
 * are also checked before (`createInboxCheck`), so that a follower on a
 * private address is dropped rather than tried for three days.
 */

// HTTPS (and TLS with it) is loaded at the first fetch of an https address, not at start.
const http = process.getBuiltinModule("node:http");
const dns = process.getBuiltinModule("node:dns");

/** IPv4-compatible IPv6 (::/96, deprecated): ::127.0.0.1 is this host where a 6in4 tunnel is up. */
const ipv4Compatible: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse("::"), 96];

/**
 * Whether an address is one a remote fetch must never reach: any but an
 * ordinary unicast one (loopback, private, link-local, carrier-grade NAT,
 * multicast, documentation, reserved, and the tunnels that embed another
 * address), an IPv4 address mapped into IPv6 judged as itself.
 */
export function isPrivateAddress(address: string): boolean {
  if (!isIP(address)) return true;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv6" && parsed.match(ipv4Compatible)) return true;
  return parsed.range() !== "unicast";
}

/**
 * Whether a site at `hostname` can be reached from elsewhere: not a private
 * or loopback address, nor a name that never resolves on the internet
 * (localhost, and the reserved .test, .local, .localhost, .invalid,
 * .example, .internal, .home.arpa).
 */
export function isPublicHost(hostname: string): boolean {
  const name = hostname
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.$/, "");
  if (isIP(name)) return !isPrivateAddress(name);
  if (!name.includes(".")) return false;
  return !/(^|\.)(localhost|test|local|invalid|example|internal|home\.arpa)$/.test(name);
}

/** The tests' exception: every private address, or those this names. */
type AllowPrivate = boolean | ((address: string) => boolean);

/** Whether `address` may be reached, on the scheme's own port or (`usualPort` false) another. */
const allowedBy =
  (allowPrivate: AllowPrivate) =>
  (address: string, usualPort = true): boolean =>
    isPrivateAddress(address)
      ? typeof allowPrivate === "function"
        ? allowPrivate(address)
        : allowPrivate
      : usualPort;

/** Whether a URL names the scheme's own port (the URL parser leaves that one out). */
const onUsualPort = (url: URL) => url.port === "";

/**
 * What an inbox's check found: it may be posted to; refused for good (not
 * http or https, or its host resolves, now, to any address not allowed);
 * or its host not found now (a lookup failure, perhaps passing), so it is
 * skipped this time only.
 */
export type InboxVerdict = "allowed" | "refused" | "unresolved";

/** One send's lookups by host, shared by its inboxes' checks: each host is looked up once. */
export type HostLookups = Map<string, Promise<InboxVerdict>>;

/**
 * Whether an inbox may be posted to now: its post is checked again as it
 * connects (deadlines.ts), should its name resolve elsewhere by then.
 */
export function createInboxCheck(allowPrivate: AllowPrivate) {
  const allowed = allowedBy(allowPrivate);
  const verdictOf = async (host: string, usualPort: boolean): Promise<InboxVerdict> => {
    const addresses = isIP(host)
      ? [{ address: host }]
      : await dns.promises.lookup(host, { all: true }).catch(() => []);
    if (addresses.length === 0) return "unresolved";
    return addresses.every(({ address }) => allowed(address, usualPort)) ? "allowed" : "refused";
  };
  return async (inbox: URL, lookups: HostLookups = new Map()): Promise<InboxVerdict> => {
    if (inbox.protocol !== "http:" && inbox.protocol !== "https:") return "refused";
    if (allowPrivate === true) return "allowed";
    const host = inbox.hostname.replace(/^\[|\]$/g, "");
    const place = `${host} ${inbox.port}`;
    const verdict = lookups.get(place) ?? verdictOf(host, onUsualPort(inbox));
    lookups.set(place, verdict);
    return verdict;
  };
}

/** Which of the fetch's own bounds an answer ran into, when it was one of them. */
export type RemoteFetchBound = "too_large" | "timeout" | "redirects";

export class RemoteFetchError extends Error {
  override name = "RemoteFetchError";
  readonly bound: RemoteFetchBound | undefined;
  constructor(message: string, bound?: RemoteFetchBound) {
    super(message);
    this.bound = bound;
  }
}

/** A connection refused for its address: a private one, or a public one on another port. */
export class AddressRefused extends RemoteFetchError {
  readonly why: "private" | "port";
  constructor(address: string, why: "private" | "port", resolved = true) {
    const refused = resolved ? "resolves to a private address" : "is a private address";
    super(`${address} ${why === "port" ? "is not reached on another port" : refused}`);
    this.why = why;
  }
}

export type RemoteAnswer = {
  status: number;
  /** The address answered, after redirects. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
};

type RemoteFetchOptions = {
  /** Only a GET is redirected; any other's redirect is the answer. */
  method?: string;
  /** Or the headers for each address asked, a redirect's too (a signature names its address). */
  headers?: Record<string, string> | ((target: URL) => Promise<Record<string, string>>);
  body?: string | Uint8Array;
  timeoutMs?: number;
  /** Cuts the exchange short, as its time limit does. */
  signal?: AbortSignal;
  maxBytes?: number;
  maxRedirects?: number;
};

export type RemoteFetch = (url: string, options?: RemoteFetchOptions) => Promise<RemoteAnswer>;

/** Headers as Node gives them (a request's, an answer's), as the fetch API takes them. */
export function headersOf(given: RemoteAnswer["headers"]): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(given)) {
    for (const one of [value ?? []].flat()) headers.append(name, one);
  }
  return headers;
}

/** An answer as a fetch API Response for Fedify, its body as `bodyOf` gives it. */
export function responseOf(
  answer: RemoteAnswer,
  bodyOf = (body: Buffer, _headers: Headers): BodyInit => new Uint8Array(body),
): Response {
  const headers = headersOf(answer.headers);
  const empty = [204, 205, 304].includes(answer.status) || answer.body.length === 0;
  return new Response(empty ? null : bodyOf(answer.body, headers), {
    status: answer.status,
    headers,
  });
}

export function createRemoteFetch({
  allowPrivate,
  userAgent,
}: {
  allowPrivate: AllowPrivate;
  userAgent: string;
}): RemoteFetch {
  const allowed = allowedBy(allowPrivate);
  const lookupFor =
    (usualPort: boolean): LookupFunction =>
    (hostname, options, callback) => {
      dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, "", 4);
        const list = addresses as unknown as { address: string; family: number }[];
        const usable = list.filter(({ address }) => allowed(address, usualPort));
        if (usable.length === 0) {
          const why = list.some(({ address }) => allowed(address)) ? "port" : "private";
          return callback(new AddressRefused(hostname, why), "", 4);
        }
        if (options.all) return callback(null, usable as never, 4);
        const [first] = usable as [{ address: string; family: number }];
        callback(null, first.address, first.family);
      });
    };

  function once(
    target: URL,
    options: RemoteFetchOptions & { headers?: Record<string, string> },
    signal: AbortSignal,
    maxBytes: number,
  ): Promise<RemoteAnswer> {
    return new Promise((resolve, reject) => {
      if (target.protocol !== "http:" && target.protocol !== "https:") {
        return reject(new RemoteFetchError(`${target.protocol} addresses are not fetched`));
      }
      const literal = target.hostname.replace(/^\[|\]$/g, "");
      const usualPort = onUsualPort(target);
      if (isIP(literal) && !allowed(literal, usualPort)) {
        return reject(new AddressRefused(literal, allowed(literal) ? "port" : "private", false));
      }
      const client = target.protocol === "https:" ? process.getBuiltinModule("node:https") : http;
      const request = client.request(
        target,
        {
          method: options.method ?? "GET",
          headers: { "user-agent": userAgent, ...options.headers },
          lookup: lookupFor(usualPort),
          signal,
          // A connection of its own, closed with the answer (above).
          agent: false,
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) {
              response.destroy();
              reject(
                new RemoteFetchError(`the answer is larger than ${maxBytes} bytes`, "too_large"),
              );
              return;
            }
            chunks.push(chunk);
          });
          response.on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              url: target.href,
              headers: response.headers,
              body: Buffer.concat(chunks),
            }),
          );
          response.on("error", reject);
        },
      );
      request.on("error", (error) =>
        reject(error instanceof RemoteFetchError ? error : new RemoteFetchError(error.message)),
      );
      request.end(options.body);
    });
  }

  return async (url, options = {}) => {
    const { timeoutMs = 5000, maxBytes = 1_000_000, maxRedirects = 3 } = options;
    const limit = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([limit, options.signal]) : limit;
    const parsed = URL.parse(url);
    if (!parsed) throw new RemoteFetchError("not an address");
    let target: URL = parsed;
    for (let hop = 0; ; hop += 1) {
      const { headers } = options;
      const asked = {
        ...options,
        headers: typeof headers === "function" ? await headers(target) : headers,
      };
      const answer = await once(target, asked, signal, maxBytes).catch((error: unknown) => {
        if (limit.aborted)
          throw new RemoteFetchError(`no answer within ${timeoutMs} ms`, "timeout");
        throw error;
      });
      const location = answer.headers.location;
      const redirected = [301, 302, 303, 307, 308].includes(answer.status);
      if (!redirected || typeof location !== "string" || (options.method ?? "GET") !== "GET") {
        return answer;
      }
      if (hop >= maxRedirects) throw new RemoteFetchError("too many redirects", "redirects");
      target = new URL(location, target);
    }
  };
}
