import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import proxyAddr from "@fastify/proxy-addr";
import { serializerCompiler, validatorCompiler } from "@fastify/type-provider-zod";
import {
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerOptions,
  LogController,
} from "fastify";
import type { ErrorCode, ErrorResponse } from "../../contract/api.ts";
import { limits } from "../../contract/limits.ts";
import type { Config } from "../config.ts";
import { wantsActivityPub } from "../fediverse/activity-json.ts";

/*
 * The HTTP server under Fastify: the one Fastify would make, with the built
 * site's fast path in front of it; Fastify's settings (timeouts, proxies,
 * compilers); each request's id; and the answer to a connection that breaks
 * before a request is read.
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
 * Fastify's own hop count trusts no hop at all (it cannot tell a proxy from a
 * client that sends enough of them), so the count is applied here: the peer
 * and the N - 1 hops before it are proxies, the hop they name is the client.
 * docs/proxy.md, "The client's address": only when the server is reachable through
 * the proxy alone.
 */
export function trustedProxies(
  setting: Config["TRUST_PROXY"],
): false | ((address: string, hop: number) => boolean) {
  if (setting === false) return false;
  if (typeof setting !== "number") return proxyAddr.compile(setting);
  return (_address: string, hop: number) => hop < setting;
}

/**
 * Fastify's compiler factories, giving zod's compilers: Fastify's types name
 * Ajv's and fast-json-stringify's signatures, which zod's do not share.
 */
const zodCompilers = {
  buildValidator: () => validatorCompiler,
  buildSerializer: () => serializerCompiler,
} as unknown as NonNullable<
  NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]
>;

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The site's Fastify settings: `fast` is asked first for each request, with
 * Fastify's own handler to hand it on to (it answers and returns true, or
 * leaves the request to Fastify).
 */
export function fastifyOptions(
  config: Config,
  logger: FastifyServerOptions["logger"],
  fast: (request: IncomingMessage, response: ServerResponse, handler: Handler) => boolean,
): FastifyHttpOptions<Server> {
  const headersTimeout = config.HEADERS_TIMEOUT_SECONDS * 1000;
  const timeouts = {
    requestTimeout: config.REQUEST_TIMEOUT_SECONDS * 1000,
    connectionTimeout: config.IDLE_TIMEOUT_SECONDS * 1000,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
  };
  // A client that sends its request slowly, or stops half-way, would hold a
  // connection forever (Fastify's defaults are no timeouts). Node checks the
  // headers and request deadlines on an interval, 30 s by default: make it
  // short enough that they hold to about a second. The event stream's own
  // socket is exempted from the idle timeout in its route.
  const serverOptions = {
    headersTimeout,
    connectionsCheckingInterval: Math.min(
      1000,
      Math.min(headersTimeout, timeouts.requestTimeout) / 2,
    ),
  };
  return {
    logger,
    // One line per request, at its end (server/logging.ts).
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: trustedProxies(config.TRUST_PROXY),
    // A passkey's id in its removal's path: WebAuthn allows 1,023 bytes, 1,364 in base64url,
    // where the router's default of 100 answered "No such endpoint" past 75 bytes.
    routerOptions: { maxParamLength: 1364 },
    bodyLimit: limits.bodyBytesMax,
    http: serverOptions,
    ...timeouts,
    clientErrorHandler,
    genReqId: requestIdOf,
    // Every schema is zod's, compiled as the API compiles it: Fastify then
    // builds none of its JSON Schema compilers (Ajv, fast-json-stringify),
    // and a start does not load them (docs/decisions/038-start-and-idle.md).
    schemaController: { compilersFactory: zodCompilers },
    // The HTTP/1.1 server Fastify makes by default, with the same settings, and
    // the built site's fast path in front of it (server/web/fast-pages.ts).
    serverFactory: (handler) => {
      const server = createServer(serverOptions, (request, response) => {
        // A page asked for as ActivityPub JSON is the Fediverse's (server/fediverse/routes.ts).
        if (wantsActivityPub(request.headers.accept) || !fast(request, response, handler)) {
          handler(request, response);
        }
      });
      server.keepAliveTimeout = timeouts.keepAliveTimeout;
      server.requestTimeout = timeouts.requestTimeout;
      server.setTimeout(timeouts.connectionTimeout);
      return server;
    },
    // A URL that cannot be decoded never reaches a route or its error handler.
    frameworkErrors: (_error, _request, reply) => {
      (reply as FastifyReply)
        .code(400)
        .send({ error: { code: "validation_failed", message: "The URL is malformed." } });
    },
  };
}

/**
 * Connections that break before a request is read (timeouts, a client that
 * leaves, malformed HTTP) are the client's doing, not ours: a debug line, no
 * stack. The answer is Fastify's default one.
 */
function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
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
