import type { FastifyServerOptions } from "fastify";
import type { Env } from "./config.ts";

/**
 * Query parameters whose values are credentials: the unsubscribe page's link
 * carries one, and anyone holding it can remove that address.
 */
const secretParameters = new Set(["token"]);

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll("+", " ")).trim().toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/**
 * The URL with the values of secret parameters replaced. Names are compared
 * once decoded, as the page's script and the server read them: `?%74oken=` is
 * `?token=`.
 */
export function redactUrl(url: string): string {
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
