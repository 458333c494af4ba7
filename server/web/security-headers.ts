import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";
import helmet from "helmet";
import { redactUrl } from "../logging.ts";

type Header = readonly [name: string, value: string];

declare module "fastify" {
  interface FastifyContextConfig {
    /** Answered without a body (a 204) unless refused: `securityHeaders` leaves out the body's. */
    emptyAnswer?: boolean;
  }
}

/**
 * The headers a Helmet middleware sets, read by running it once against a
 * response that only records them. It is synchronous and, with no directive
 * given as a function, reads nothing of the request.
 */
function headersOf(middleware: ReturnType<typeof helmet>): Header[] {
  const headers: Header[] = [];
  const recorder = {
    setHeader: (name: string, value: string | number) => headers.push([name, String(value)]),
    removeHeader: () => {},
  };
  let done = false;
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
    done = true;
  });
  if (!done) throw new Error("Helmet did not finish setting its headers at once");
  return headers;
}

/**
 * Powerful browser features no page of the site uses, switched off for the
 * pages and anything they frame (the chatbot), so that an injected script or
 * a compromised embed cannot ask the reader for them. Passkeys
 * (publickey-credentials-*) keep their default, this origin only, for the
 * console's sign-in. Only features Chromium knows are named: an unknown one is
 * a console error on every page.
 */
const permissionsPolicy = [
  "accelerometer",
  "camera",
  "display-capture",
  "geolocation",
  "gyroscope",
  "hid",
  "magnetometer",
  "microphone",
  "midi",
  "payment",
  "serial",
  "usb",
  "xr-spatial-tracking",
]
  .map((feature) => `${feature}=()`)
  .join(", ");

type HeaderOptions = {
  inlineScriptHashes: string[];
  chatbotOrigin?: string;
  https: boolean;
  /** A Link header every page carries (the webmention endpoint, docs/fediverse.md). */
  link: string;
};

/**
 * A strict Content-Security-Policy. The prerendered pages carry small inline
 * scripts (the `js` class and a stored name's mark, the islands' loader, the
 * readers' beacon, the speculation rules), so their hashes are allowed
 * (computed from the built HTML at start-up); the optional chatbot's origin is
 * allowed for scripts, frames and connections on every page.
 *
 * When the site is served over https (SITE_URL), browsers are told to use https
 * only, for a year (Strict-Transport-Security). The header goes out whatever the
 * protocol of the request, since a proxy that ends TLS forwards plain http; the
 * subdomains are left out, because they may be other people's sites.
 *
 * The API's answers (JSON, event streams, redirects and the console's CSV) are
 * never rendered as pages, so they carry a policy that allows nothing and only
 * the headers that still matter for them: no framing, no MIME sniffing, no
 * cross-origin reads, the referrer rule and HSTS. The page policy, with its list
 * of script hashes, is 2 KB: on every API answer that was most of the bytes,
 * and work for both ends (docs/decisions/020-api-headers-and-cheap-hooks.md).
 *
 * Helmet writes the headers, once, at start-up: none of them depends on the
 * request, so each request only sets the list Helmet produced. Running
 * Helmet's middleware chain on every request cost about a twentieth of a
 * page's CPU; its Fastify wrapper, which rebuilt the chain per request, a
 * tenth of a cached read's (docs/decisions/020-api-headers-and-cheap-hooks.md).
 * The built pages' check reads the page policy from here too (scripts/page-loads.ts).
 */
export function headerSets({ inlineScriptHashes, chatbotOrigin, https, link }: HeaderOptions) {
  const extra = chatbotOrigin ? [chatbotOrigin] : [];
  const hsts = https ? { maxAge: 365 * 24 * 60 * 60, includeSubDomains: false } : false;
  // Helmet's default, no-referrer, makes a browser send `Origin: null` with a
  // plain form post, which the same-origin check then refuses: the
  // newsletter form without JavaScript needs the page's own origin.
  const referrerPolicy = { policy: "strict-origin-when-cross-origin" } as const;
  const page = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        // 'wasm-unsafe-eval' lets the site's search (Pagefind) compile its own
        // WebAssembly, served from this origin; it allows no eval() of JavaScript
        // (docs/decisions/014-search-and-your-data.md).
        scriptSrc: [
          "'self'",
          "'wasm-unsafe-eval'",
          ...inlineScriptHashes.map((hash) => `'${hash}'`),
          ...extra,
        ],
        // The confetti (docs/product.md, "Motion") draws off the main thread,
        // in a worker its library makes from a blob: URL of its own code.
        // Without this the worker falls under script-src, is refused, and
        // nothing is drawn. blob: URLs can only be made by script already
        // running on the page, which script-src governs.
        workerSrc: ["'self'", "blob:"],
        styleSrc: ["'self'", "'unsafe-inline'", ...extra],
        imgSrc: ["'self'", "data:", ...extra],
        connectSrc: ["'self'", ...extra],
        frameSrc: extra.length ? extra : ["'none'"],
        fontSrc: ["'self'", "data:", ...extra],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: null,
      },
    },
    referrerPolicy,
    crossOriginEmbedderPolicy: false,
    strictTransportSecurity: hsts,
    // The same as frame-ancestors 'none', for browsers that know only this header.
    xFrameOptions: { action: "deny" },
  });
  const api = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
    },
    crossOriginResourcePolicy: { policy: "same-origin" },
    xContentTypeOptions: true,
    referrerPolicy,
    strictTransportSecurity: hsts,
    // Page-only headers: what a browser does with a document it renders.
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xFrameOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  });
  const pageHeaders: Header[] = [
    ["permissions-policy", permissionsPolicy],
    ["link", link],
    ...headersOf(page),
  ];
  return { pageHeaders, apiHeaders: headersOf(api) };
}

/**
 * The API headers that govern a body or the document a browser would make of
 * it: nothing to govern on an answer without one, such as the beacon's 204
 * (docs/decisions/079-an-empty-answer-carries-few-headers.md). HSTS is about the
 * host, not the answer, and stays; so does the request's id.
 */
const bodyOnly = new Set([
  "content-security-policy",
  "cross-origin-resource-policy",
  "referrer-policy",
  "x-content-type-options",
]);

/** `apiHeaders` (by lower-case name) less those an answer without a body has no use for. */
export const emptyAnswerHeaders = (apiHeaders: Record<string, string>) =>
  Object.fromEntries(Object.entries(apiHeaders).filter(([name]) => !bodyOnly.has(name)));

/**
 * Sends `headerSets`' headers with every answer; returns them by lower-case name.
 * A route whose answer has no body (`config.emptyAnswer`, the beacon's 204) is
 * given the API's headers less the body's, and those only if it answers an error
 * after all (a refusal has a body).
 */
export async function securityHeaders(app: FastifyInstance, options: HeaderOptions) {
  const { pageHeaders, apiHeaders } = headerSets(options);
  const ofBody = ([name]: Header) => bodyOnly.has(name.toLowerCase());
  const apiEmptyAnswer = apiHeaders.filter((header) => !ofBody(header));
  const apiBodyOnly = apiHeaders.filter(ofBody);
  app.addHook("onRequest", (request, reply, done) => {
    const raw = reply.raw;
    const { url } = request;
    const isApi = url.startsWith("/api/");
    const headers = !isApi
      ? pageHeaders
      : request.routeOptions.config.emptyAnswer
        ? apiEmptyAnswer
        : apiHeaders;
    for (const [name, value] of headers) raw.setHeader(name, value);
    // A page opened by a mail's link holds its token in its address (what the logs redact):
    // the requests it makes and the pages it leads to, the site's own, name its origin alone,
    // so no proxy's log or other reader of Referer learns the token. Not `no-referrer`,
    // which would send its button's POST with `Origin: null` (see above).
    if (!isApi && url.includes("?") && redactUrl(url) !== url) {
      raw.setHeader("referrer-policy", "strict-origin");
    }
    done();
  });
  app.addHook("onError", (request, reply, _error, done) => {
    if (request.routeOptions.config.emptyAnswer) {
      for (const [name, value] of apiBodyOnly) reply.raw.setHeader(name, value);
    }
    done();
  });
  // What every page and API answer goes out with, by lower-case name as a response holds them.
  const byName = (headers: Header[]) =>
    Object.fromEntries(headers.map(([name, value]) => [name.toLowerCase(), value]));
  return { page: byName(pageHeaders), api: byName(apiHeaders) };
}
