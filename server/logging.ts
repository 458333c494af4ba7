import type { FastifyServerOptions } from "fastify";
import type { Env } from "./config.ts";

/**
 * Query parameters whose values are credentials: the unsubscribe page's link
 * carries one, and anyone holding it can remove that address.
 */
const secretParameters = /([?&](?:token)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(secretParameters, "$1[redacted]");
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
