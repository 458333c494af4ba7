import type { IncomingMessage } from "node:http";
import proxyAddr from "@fastify/proxy-addr";
import type { FastifyInstance, FastifyServerOptions } from "fastify";
import pino from "pino";
import type { Env } from "./config.ts";

/**
 * Query parameters whose values are not the log's to keep: credentials (the
 * unsubscribe page's link carries a token, the newsletter's second step a
 * sealed ticket, and anyone holding one can act with it), the words a
 * reader searched for on the search page, which the privacy page promises the
 * logs do not hold, and the page the readers' beacon says a reader came from
 * (`r`), which is the address of the page before, token and all
 * (`/unsubscribe?token=…`), a `message` (the assistant's enquiry link once
 * carried the reader's question so, and old links and bookmarks still may), and
 * the place in a long console list a page starts after (`after`), which names
 * a follower's account.
 */
const secretParameters = new Set(["token", "ticket", "q", "r", "message", "after"]);

/** The owner's calendar feed is read at a secret path, `/book/feed/<token>.ics`. */
const secretPath = /^\/book\/feed\//;

/**
 * A parameter's name as a server might read it: decoded, in lower case,
 * without an array's `[]` or `[0]`, and without what no name holds (a NUL,
 * spaces, punctuation), so `token[]=`, `token%00=` and `to ken=` are `token`.
 */
function decodedName(raw: string): string {
  let name = raw;
  try {
    name = decodeURIComponent(raw.replaceAll("+", " "));
  } catch {}
  return name
    .toLowerCase()
    .replace(/\[.*$/s, "")
    .replace(/[^\p{L}\p{N}_-]/gu, "");
}

/** A path as the router reads it: `/book/%66eed/…` is the feed's. */
function decodedPath(path: string): string {
  if (!path.includes("%")) return path;
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/**
 * The URL with the values of secret parameters, and the calendar feed's
 * token in its path, replaced. Names are compared
 * once decoded, as the page's script and the server read them: `?%74oken=` is
 * `?token=`.
 */
export function redactUrl(url: string): string {
  const pathEnd = url.search(/[?#]|$/);
  if (secretPath.test(decodedPath(url.slice(0, pathEnd)))) {
    return `/book/feed/[redacted]${redactUrl(url.slice(pathEnd))}`;
  }
  const start = url.indexOf("?");
  if (start === -1) return url;
  const end = url.indexOf("#", start);
  const query = url.slice(start + 1, end === -1 ? undefined : end);
  const redacted = query
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      const name = equals === -1 ? pair : pair.slice(0, equals);
      return secretParameters.has(decodedName(name)) ? `${name}=[redacted]` : pair;
    })
    .join("&");
  return `${url.slice(0, start + 1)}${redacted}${end === -1 ? "" : url.slice(end)}`;
}

/**
 * Structured JSON logs, one object per line, with the request id on every
 * line of a request. Request bodies are never logged (they hold emails), and
 * Fastify's request serializer below logs no headers at all; the redaction
 * paths are a second line of defence should a header or a database error's
 * detail (PostgreSQL quotes the offending row's values in it) reach a log call.
 */
export function loggerOptions(
  level: Env["LOG_LEVEL"],
): NonNullable<FastifyServerOptions["logger"]> {
  return {
    level,
    // Written by a background write rather than one blocking write per line,
    // and still at once (no buffer held back); pino flushes what is pending
    // when the process exits.
    stream: pino.destination({ dest: 1, sync: false }),
    redact: {
      paths: [
        "req.headers.cookie",
        "req.headers.authorization",
        'req.headers["proxy-authorization"]',
        'res.headers["set-cookie"]',
        "headers.cookie",
        "headers.authorization",
        "err.detail",
        "error.detail",
      ],
      censor: "[redacted]",
    },
    serializers: {
      req(request: { method: string; url: string; host?: string; ip?: string }) {
        return {
          method: request.method,
          url: redactUrl(request.url),
          host: request.host,
          remoteAddress: request.ip,
        };
      },
    },
  };
}

/** A read answered before Fastify, for its line in the access log. */
type FastAnswer = {
  id: string;
  /** The route Fastify would have answered it by. */
  route: string;
  status: number;
  bytes?: number;
  /** `performance.now()` when it was taken in. */
  started: number;
};

/** The access log of reads answered before Fastify (the built pages, the readers' beacon). */
export type AccessLog = {
  /** At `debug` and `trace`: every request goes through Fastify, which logs its arrival too. */
  debug: boolean;
  /** Whether this read is the one in `every` to write down: then `write` it once answered. */
  sample(): boolean;
  /** The line Fastify would write for the read. */
  write(request: IncomingMessage, answer: FastAnswer): void;
};

/**
 * The access log: one line per request, when it is answered, with what an
 * operator needs (method, route, URL, status, time, bytes, request id), and
 * no "incoming request" line (Fastify's own request logging is off, see
 * app.ts). Errors (4xx, 5xx) and writes are always logged; successful reads,
 * which at full speed are almost every request, one in `sampleReads` at the
 * info level, and every one at debug or trace.
 */
export function accessLog(
  app: FastifyInstance,
  {
    sampleReads,
    trusted,
  }: {
    sampleReads: number;
    /** The proxies Fastify's `trustProxy` trusts (false: none). */
    trusted: false | ((address: string, hop: number) => boolean);
  },
): AccessLog {
  // pino numbers its levels (debug 20, info 30); a logger that is off has none of them.
  const level = pino.levels.values[app.log.level] ?? Number.POSITIVE_INFINITY;
  const at = (name: "debug" | "info") => level <= (pino.levels.values[name] ?? 0);
  if (!at("info")) return { debug: false, sample: () => false, write() {} };
  const debug = at("debug");
  const every = debug ? 1 : sampleReads;
  const sampled = every > 1 ? { sampled: every } : {};
  let reads = 0;
  if (debug) {
    // Debugging a request that hangs needs to see it arrive.
    app.addHook("onRequest", (request, _reply, done) => {
      request.log.debug({ req: request }, "incoming request");
      done();
    });
  }
  // Fastify's own report of a failure is off with its request logging; the
  // API's error handler reports its own (server/api/errors.ts).
  app.addHook("onError", (request, _reply, error, done) => {
    if ((error.statusCode ?? 500) >= 500 && !request.url.startsWith("/api/")) {
      request.log.error({ err: error }, "request failed");
    }
    done();
  });
  app.addHook("onResponse", (request, reply, done) => {
    const status = reply.statusCode;
    // The readers' beacon is sampled as the reads are: a line per page view
    // would cost more than counting it.
    const read =
      (request.method === "GET" ||
        request.method === "HEAD" ||
        request.routeOptions.config.beacon === true) &&
      status < 400;
    if (!read || every === 1 || ++reads % every === 0) {
      const bytes = reply.getHeader("content-length");
      request.log.info(
        {
          req: request,
          route: request.routeOptions.url,
          res: { statusCode: status },
          responseTime: Math.round(reply.elapsedTime * 10) / 10,
          ...(bytes === undefined ? {} : { bytes: Number(bytes) }),
          ...(read ? sampled : {}),
        },
        "request completed",
      );
    }
    done();
  });
  return {
    debug,
    sample: () => every === 1 || ++reads % every === 0,
    // The line above, with Fastify's request.ip and request.host, its reqId first.
    write(request, { id, route, status, bytes, started }) {
      const { headers, socket } = request;
      const forwarded = trusted && socket.remoteAddress && trusted(socket.remoteAddress, 0);
      app.log.info(
        {
          reqId: id,
          req: {
            method: request.method,
            url: request.url,
            host:
              forwarded && headers["x-forwarded-host"]
                ? (String(headers["x-forwarded-host"]).split(",").at(-1) ?? "").trim()
                : headers.host,
            ip: trusted ? proxyAddr(request, trusted) : socket.remoteAddress,
          },
          route,
          res: { statusCode: status },
          responseTime: Math.round((performance.now() - started) * 10) / 10,
          ...(bytes === undefined ? {} : { bytes }),
          ...sampled,
        },
        "request completed",
      );
    },
  };
}
