import path from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { inlineScriptHashes } from "../web/inline-scripts.ts";
import { htmlPages, type SiteFile } from "../web/site-files.ts";
import type { OwnerRepository } from "./owner-repository.ts";
import { clearOwnerCookie, ownerCookieName } from "./owner-session.ts";

const consolePath = /^\/admin(?:\/|$)/;
const signInPath = /^\/admin\/sign-in\/?$/;

/**
 * Whether a request's raw URL may be one of the console's pages: the reading
 * pages' requests are told apart with one test, before any decoding.
 */
export function concernsConsole(url: string): boolean {
  return url.includes("admin") || url.includes("%");
}

/**
 * The path a request's URL names once decoded and normalised, as static
 * serving reads it: `/%61dmin/`, `//admin/` and `/x/../admin/` are the
 * console's pages too, and must not slip past the checks below.
 */
function servedPath(url: string): string {
  const raw = url.split(/[?#]/, 1)[0] ?? "";
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // Not a path any file is served under; matched as it came.
  }
  return path.posix.normalize(decoded.replaceAll("\\", "/"));
}

function cookieValue(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

/**
 * The console's pages (/admin…, docs/decisions/012-owner-console.md). They are
 * static shells that read everything through the console API, which needs the
 * session; still, without a session every page but the sign-in page sends the
 * browser to sign in. They are never cached or indexed, and get a CSP of their
 * own: scripts only from the site and the console pages' own inline hashes, no
 * third-party origin (the reading pages allow the chatbot's), no frames.
 */
export async function consolePages(
  app: FastifyInstance,
  {
    files,
    owner,
    siteUrl,
  }: {
    /** The built site's table (server/web/site-files.ts), whose admin/ pages these are. */
    files: Map<string, SiteFile>;
    owner: OwnerRepository;
    siteUrl: string;
  },
) {
  const cookieName = ownerCookieName(siteUrl);
  /**
   * To sign in, and back to the screen asked for (a mail's "Open in the console" link)
   * once signed in; an ended session's cookies go (the reading pages stop showing the
   * owner's name).
   */
  const toSignIn = (request: FastifyRequest, reply: FastifyReply, served: string) => {
    if (request.headers.cookie?.includes("ewe_owner")) clearOwnerCookie(reply, siteUrl);
    const screen = /^\/admin\/[a-z]+(?=\/?$)/.exec(served)?.[0];
    reply.redirect(`/admin/sign-in${screen ? `?then=${encodeURIComponent(screen)}` : ""}`, 303);
  };
  const hashes = inlineScriptHashes(htmlPages(files, "/admin/"));
  const policy = [
    "default-src 'self'",
    `script-src 'self'${hashes.map((hash) => ` '${hash}'`).join("")}`,
    // Recharts and the edition preview set style attributes.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self' data:",
    "frame-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");

  // These hooks see every request of the site; for any other page they return
  // at once, without a promise (a measurable share of a cached read's work).
  app.addHook("onRequest", (request, reply, done) => {
    // The raw URL is tried first: the reading pages' requests pass with one test.
    if (!concernsConsole(request.url)) return done();
    const served = servedPath(request.url);
    if (!consolePath.test(served) || signInPath.test(served)) return done();
    if (request.method !== "GET" && request.method !== "HEAD") return done();
    const token = cookieValue(request, cookieName);
    if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return toSignIn(request, reply, served);
    owner.checkSession(token).then((session) => {
      if (session) done();
      else toSignIn(request, reply, served);
    }, done);
  });

  app.addHook("onSend", (request, reply, payload, done) => {
    if (concernsConsole(request.url) && consolePath.test(servedPath(request.url))) {
      reply.header("content-security-policy", policy);
      reply.header("cache-control", "no-store");
      reply.header("x-robots-tag", "noindex, nofollow");
    }
    done(null, payload);
  });
}
