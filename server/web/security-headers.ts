import type { FastifyInstance } from "fastify";
import helmet from "helmet";

/**
 * A strict Content-Security-Policy. The prerendered pages carry small inline
 * scripts (the `js` class, the islands' loader), so their hashes are allowed
 * (computed from the built HTML at start-up); the optional chatbot's origin is
 * allowed for scripts, frames and connections on every page.
 *
 * When the site is served over https (SITE_URL), browsers are told to use https
 * only, for a year (Strict-Transport-Security). The header goes out whatever the
 * protocol of the request, since a proxy that ends TLS forwards plain http; the
 * subdomains are left out, because they may be other people's sites.
 *
 * Helmet's middleware is built once here and run on every request: the Fastify
 * wrapper rebuilt it (and re-parsed the policy) per request, a tenth of the CPU
 * of a cached read.
 */
export async function securityHeaders(
  app: FastifyInstance,
  {
    inlineScriptHashes,
    chatbotOrigin,
    https,
  }: { inlineScriptHashes: string[]; chatbotOrigin?: string; https: boolean },
) {
  const extra = chatbotOrigin ? [chatbotOrigin] : [];
  const apply = helmet({
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
    // Helmet's default, no-referrer, makes a browser send `Origin: null` with a
    // plain form post, which the same-origin check then refuses: the
    // newsletter form without JavaScript needs the page's own origin.
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    crossOriginEmbedderPolicy: false,
    strictTransportSecurity: https
      ? { maxAge: 365 * 24 * 60 * 60, includeSubDomains: false }
      : false,
  });
  app.addHook("onRequest", (request, reply, done) => {
    apply(request.raw, reply.raw, (error) => done(error as Error | undefined));
  });
}
