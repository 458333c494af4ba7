import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerOptions, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import type { ErrorCode, ErrorResponse } from "../../contract/api.ts";
import { wantsActivityPub } from "../fediverse/activity-json.ts";

/*
 * The HTTP server under Fastify: the one Fastify would make, with the built
 * site's fast path in front of it; each request's id; and the answer to a
 * connection that breaks before a request is read.
 */

// Not `import … from "node:http"`: Node's ES module view of node:http reads every
// export, and one loads its whole fetch implementation (docs/benchmarks.md, "Start and idle").
const { STATUS_CODES, createServer } = process.getBuiltinModule("node:http");

/** A request id from the proxy in front is kept if it looks like one; otherwise a new one. */
const acceptableRequestId = /^[\w.:-]{1,64}$/;

export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers["x-request-id"];
  return typeof given === "string" && acceptableRequestId.test(given) ? given : randomUUID();
}

/**
 * Fastify's `serverFactory`: its own HTTP/1.1 server and settings, with
 * `fast` asked first for each request (it answers and returns true, or
 * leaves the request to Fastify).
 */
export function httpServer(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  fast: (request: IncomingMessage, response: ServerResponse) => boolean,
  settings: {
    serverOptions: ServerOptions;
    keepAliveTimeout: number;
    requestTimeout: number;
    connectionTimeout: number;
  },
) {
  const server = createServer(settings.serverOptions, (request, response) => {
    // A page asked for as ActivityPub JSON is the Fediverse's (server/fediverse/routes.ts).
    if (wantsActivityPub(request.headers.accept)) handler(request, response);
    else if (!fast(request, response)) handler(request, response);
  });
  server.keepAliveTimeout = settings.keepAliveTimeout;
  server.requestTimeout = settings.requestTimeout;
  server.setTimeout(settings.connectionTimeout);
  return server;
}

/**
 * Connections that break before a request is read (timeouts, a client that
 * leaves, malformed HTTP) are the client's doing, not ours: a debug line, no
 * stack. The answer is Fastify's default one.
 */
export function clientErrorHandler(
  this: FastifyInstance,
  error: NodeJS.ErrnoException,
  socket: Socket,
) {
  this.log.debug({ code: error.code }, "client connection ended before a request was read");
  if (socket.destroyed) return;
  const [status, code, message]: [number, ErrorCode, string] =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, "request_timeout", "The request took too long to arrive."]
      : error.code === "HPE_HEADER_OVERFLOW"
        ? [431, "payload_too_large", "The request headers are too large."]
        : [400, "validation_failed", "The request is malformed."];
  if (socket.writable) {
    const body = JSON.stringify({ error: { code, message } } satisfies ErrorResponse);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
