import type { IncomingHttpHeaders } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { doctype, escapeHtml } from "../../contract/html.ts";
import { preferredEncoding } from "./accept-encoding.ts";
import { compressAbove, encoded } from "./representation.ts";

/**
 * The small page behind the owner's action links: plain HTML from the
 * server, no script, so it works in any mail program's browser and with
 * JavaScript off (docs/decisions/011-owner-notifications.md). Everything a
 * visitor wrote is escaped.
 */
export type ActionPage = {
  title: string;
  /** The line above the title: whose page this is. */
  note?: string;
  /** Trusted HTML: built here from escaped parts. */
  body: string;
};

/** The site's name where a page's note begins with it: a link home, every plain page's way back to the site. */
const site = "Engage with Engineer";

export function renderActionPage({
  title,
  body,
  note = "Engage with Engineer · owner",
}: ActionPage): string {
  return `${doctype}
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="color-scheme" content="dark">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${escapeHtml(title)} · Engage with Engineer</title>
<style>
body{margin:0;background:#0b0f14;color:#e2e8f0;font:16px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:40rem;margin:0 auto;padding:3rem 1.25rem;overflow-wrap:anywhere}
h1{font-size:1.5rem;line-height:1.3;color:#f8fafc;margin:0 0 1rem}
p{margin:0 0 1rem}
blockquote{margin:0 0 1.5rem;padding:.75rem 1rem;border-left:3px solid #22c55e;background:#111821;white-space:pre-wrap}
.meta{color:#cbd5e1}
.note{color:#94a3b8;font-size:.9rem}
button{font:inherit;font-weight:600;border:0;border-radius:.5rem;padding:.6rem 1.2rem;cursor:pointer;background:#22c55e;color:#0b0f14}
button.danger{background:#fca5a5;color:#450a0a}
button:focus-visible,a:focus-visible{outline:3px solid #f8fafc;outline-offset:2px}
a{color:#4ade80}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 1rem}
dt{color:#94a3b8}
dd{margin:0}
/* A problem beside its field is a paragraph; a page's several, a list. */
.problems{margin:0 0 1rem;padding:.75rem 1rem;border-left:3px solid #fca5a5;background:#111821}
ul.problems{padding-left:2rem}
.field-label{display:block;margin:1rem 0 .25rem;font-weight:600}
.field{box-sizing:border-box;width:100%;font:inherit;color:#f8fafc;background:#111821;border:1px solid #64748b;border-radius:.5rem;padding:.5rem .75rem}
.field:focus-visible{outline:3px solid #f8fafc;outline-offset:2px}
.field+.problems{margin:.5rem 0 0}
form .note{margin:.25rem 0 1rem}
button.secondary{background:#1e293b;color:#f8fafc;margin-left:.5rem}
.honeypot{position:absolute;left:-9999px;width:1px;height:1px;overflow:hidden}
/* A choice of many (the move page's times): each radio on one line with its words, and a target a thumb finds. */
label:has(>input[type=radio]){display:inline-block;white-space:nowrap;padding:.25rem .5rem;margin:0 .25rem .25rem 0}
</style>
</head>
<body>
<main>
<p class="note">${note.startsWith(site) ? `<a href="/">${site}</a>${escapeHtml(note.slice(site.length))}` : escapeHtml(note)}</p>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

export const hidden = (name: string, value: string) =>
  `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;

/**
 * A page's problems, read out as it opens: the alert holds the list, since a list
 * that is itself the alert is no list to a screen reader (its items, orphans).
 */
export const problemList = (problems: string[]) =>
  `<div role="alert"><ul class="problems">${problems.map((problem) => `<li>${escapeHtml(problem)}</li>`).join("")}</ul></div>`;

export const paragraph = (text: string, className?: string) =>
  `<p${className ? ` class="${className}"` : ""}>${escapeHtml(text)}</p>`;

/**
 * Answers with one of these pages: never kept by a cache, and never indexed
 * unless `indexed` (a public page a search may lead to, such as /book's form).
 * A form's answer to its POST that holds only what the reader sent (the form
 * again with what to change, an enquiry to check, "You're booked") is
 * `forBack`: the reader's browser alone may keep it (`private, no-cache`), so
 * Back from the next page shows it again, as it was, where `no-store` gave
 * Chromium's "Confirm Form Resubmission" (ERR_CACHE_MISS) and a post sent again.
 * Compressed when the client accepts it: /book's page is made for each request
 * (its signed time) and is mostly its list of times and zones, so it goes out in
 * about a tenth of its bytes, which is its first paint on a slow connection.
 */
export function sendPage(
  reply: FastifyReply,
  status: number,
  html: string,
  { indexed = false, forBack = false }: { indexed?: boolean; forBack?: boolean } = {},
) {
  if (!indexed) reply.header("x-robots-tag", "noindex");
  reply
    .code(status)
    .header("cache-control", forBack ? "private, no-cache" : "no-store")
    .header("vary", "accept-encoding")
    .type("text/html; charset=utf-8");
  const coding =
    html.length > compressAbove
      ? preferredEncoding(reply.request.headers["accept-encoding"])
      : null;
  if (!coding) return reply.send(html);
  return reply.header("content-encoding", coding).send(encoded(html, coding, 4));
}

/**
 * Whether this site's own pages sent this POST (a page's button, the JSON API,
 * a reader's beacon): its Origin must be SITE_URL's, or without an Origin
 * (older browsers) its Referer. An Origin sent decides: "null" (a sandboxed
 * frame, a cross-site redirect) is refused whatever the Referer says
 * (docs/decisions/007-hardening-against-abuse.md, "Same origin").
 */
export function fromSite({ headers }: { headers: IncomingHttpHeaders }, siteOrigin: string) {
  // The site's origin as a browser sends it: no URL to parse (a beacon's fast path).
  if (headers.origin === siteOrigin) return true;
  try {
    return new URL(headers.origin ?? headers.referer ?? "").origin === siteOrigin;
  } catch {
    return false;
  }
}

/** Why a POST that did not come from the page's button was refused. */
export const fromElsewhere = (siteOrigin: string) =>
  paragraph(
    `Press the button on the page the link opens, at ${siteOrigin}; requests from elsewhere are refused.`,
  );

/** The `token` of a mailed link's query, or "" when it has none. */
export function queryToken(request: FastifyRequest): string {
  const { token } = request.query as { token?: unknown };
  return typeof token === "string" ? token : "";
}

/** Reads the forms posted to `app` (`application/x-www-form-urlencoded`) for `formFields`. */
export function acceptForms(app: FastifyInstance, bodyLimit?: number) {
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", ...(bodyLimit === undefined ? {} : { bodyLimit }) },
    (_request, body, done) => done(null, new URLSearchParams(body as string)),
  );
}

/**
 * RFC 8058: whether a mailbox provider posted List-Unsubscribe=One-Click, as a
 * form or as multipart form data.
 */
export function isOneClickBody(contentType: string | undefined, body: string): boolean {
  if (contentType?.startsWith("multipart/form-data")) {
    return /name="?List-Unsubscribe"?\r?\n(?:[^\r\n]+\r?\n)*\r?\nOne-Click\r?\n/.test(body);
  }
  return new URLSearchParams(body).get("List-Unsubscribe") === "One-Click";
}

/** The fields the page's form posted, or none when its body was not a form. */
export function formFields(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

/**
 * Why a write's outcome is unknown (server/db/errors.ts, `isLostAtCommit`): its
 * connection was lost under it, or the driver gave up waiting for its answer.
 */
export type LostAtCommit = "connection" | "timeout";

/**
 * What a failure of the database means for the one who asked
 * (`storeFailureOf`, server/db/errors.ts): `unwritable`, the store cannot save
 * anything now (a person must free space or make it writable, so try again in
 * minutes); `unreachable`, it cannot be reached or answered too late (`late`;
 * try again in a minute), or too many requests wait for their turn (`busy`,
 * seconds). Both answer 503 with Retry-After.
 */
export type StoreFailure = {
  kind: "unwritable" | "unreachable";
  retryAfterSeconds: number;
  /** It was reached, and answered too late (a timeout): it is slow, not away. */
  late?: true;
  /** Refused before it waited for its turn (`TurnsFull`): the database is well, and busy. */
  busy?: true;
  /** A COMMIT got no answer (`lostAtCommitBy`), and why: it may or may not have been saved. */
  lostAtCommit?: LostAtCommit;
};

/**
 * The site's database that failed, for a person: it cannot save (`unwritable`),
 * it answered too late (`late`, a timeout), or it cannot be reached; or the
 * database is well and too many requests like this one wait for it (`busy`). Every answer and the command line say it so.
 */
export const databaseFailed = (why: Partial<StoreFailure> | undefined) =>
  why?.kind === "unwritable"
    ? "The site cannot save anything right now"
    : why?.busy
      ? "Too many requests like this one are waiting"
      : why?.late
        ? "The site's database did not answer in time"
        : "The site's database cannot be reached right now";

/** When a reader should try again: a store that cannot save waits for a person. */
export const tryAgainIn = (why: Partial<StoreFailure> | undefined) =>
  why?.kind === "unwritable" ? "a few minutes" : "a moment";

/** What happened to a save whose COMMIT got no answer, for a reader: "…as it saved". */
export const lostAsItSaved = (why: NonNullable<StoreFailure["lostAtCommit"]>) =>
  why === "timeout"
    ? `${databaseFailed({ late: true })} as it saved`
    : "The site lost its database as it saved";

/**
 * Answers what the pages on `app` fail to serve with `page`, never Fastify's
 * JSON: under the status of a request they could not read, or under 503 for a
 * failure (logged as `failure`), with Retry-After when `failureOf` reads it
 * as the database's (`known`).
 */
export function errorPages(
  app: FastifyInstance,
  failure: string,
  failureOf: ((error: unknown) => StoreFailure | undefined) | undefined,
  page: (status: number, known: StoreFailure | undefined, request: FastifyRequest) => string,
) {
  app.setErrorHandler(async (error, request, reply) => {
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    if (status < 500) return sendPage(reply, status, page(status, undefined, request));
    request.log.error({ err: error }, failure);
    const known = failureOf?.(error);
    if (known) reply.header("retry-after", String(known.retryAfterSeconds));
    return sendPage(reply, 503, page(503, known, request));
  });
}

/**
 * The pages behind a mail's links, on `app`: returns how they answer (each
 * under `note`, when given), and answers what they fail to serve with a page
 * of their own (`errorPages`): a request they could not read is told to open
 * the link from `mail` again, and a failure that nothing was changed, or,
 * when the connection was lost at its COMMIT, that it may have been.
 */
export function linkPages(
  app: FastifyInstance,
  {
    note,
    mail,
    failure,
    failureOf,
  }: {
    note?: string;
    mail: string;
    failure: string;
    failureOf?: (error: unknown) => StoreFailure | undefined;
  },
) {
  const send = (
    reply: FastifyReply,
    status: number,
    page: ActionPage,
    options?: Parameters<typeof sendPage>[3],
  ) => sendPage(reply, status, renderActionPage({ note, ...page }), options);
  errorPages(app, failure, failureOf, (status, known) =>
    renderActionPage({
      note,
      ...(status < 500
        ? {
            title: "This request could not be read",
            body: paragraph(`Open the link from ${mail} and press the button again.`),
          }
        : known?.lostAtCommit
          ? {
              title: "It may or may not have been done",
              body: paragraph(
                `${lostAsItSaved(known.lostAtCommit)}. Open the link again in a moment to see where it stands.`,
              ),
            }
          : {
              title: "Nothing was changed",
              body: paragraph(
                `${databaseFailed(known)}. Try the link again in ${tryAgainIn(known)}.`,
              ),
            }),
    }),
  );
  return send;
}
