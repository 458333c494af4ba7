import { hasZodFastifySchemaValidationErrors } from "@fastify/type-provider-zod";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { type ErrorCode, type ErrorResponse, errorResponseSchema } from "../../contract/api.ts";
import { storeFailureOf } from "../db/errors.ts";
import { leftBy, leftSaid, storeFailureSaid } from "../db/owner-actor.ts";
import {
  lostAsItSaved,
  paragraph,
  renderActionPage,
  type StoreFailure,
  sendPage,
} from "../lib/action-page.ts";

/** An answer the API gives on purpose, with its stable code. */
export class ApiError extends Error {
  override name = "ApiError";
  readonly statusCode: number;
  readonly code: ErrorCode;
  /** Sent as Retry-After: when the client may try again. */
  readonly retryAfterSeconds: number | undefined;
  constructor(statusCode: number, code: ErrorCode, message: string, retryAfterSeconds?: number) {
    super(message);
    this.statusCode = statusCode;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * A refusal of one field's value that its schema could not judge (a 400, or
 * `status`), naming the field as a schema's refusal does (`path`: "body.target").
 */
export class FieldRefusal extends ApiError {
  readonly issues: { path: string; message: string }[];
  constructor(path: string, message: string, status = 400) {
    super(status, "validation_failed", message);
    this.issues = [{ path, message }];
  }
}

/** What every route's schema says of its refusals and failures: one shape for each 4xx and 5xx. */
export const errorResponses = { "4xx": errorResponseSchema, "5xx": errorResponseSchema };

/** What a route answers when it succeeds: a 200's schema, or schemas by status. */
export type Answers = z.ZodType | { [status: number]: z.ZodType };

/** The answer of a route that answers with no body. */
export const noContent = { 204: z.null() };
const answerNoContent = async (_request: FastifyRequest, reply: FastifyReply) => {
  reply.code(204);
};

/**
 * How the routes under `tag` in the OpenAPI document declare themselves: a
 * route's summary, its request's parts (params, querystring, body,
 * description; they may tag it otherwise) and its answers beside the API's
 * errors. A route that answers `noContent` answers 204 once its handler returns.
 */
export const routesTagged =
  (tag: string) =>
  <const A extends Answers, const P extends object = Record<never, never>>(
    summary: string,
    answers: A,
    parts?: P,
  ) => {
    const response = (
      answers instanceof z.ZodType ? { 200: answers } : answers
    ) as A extends z.ZodType ? { 200: A } : A;
    return {
      ...((answers as Answers) === noContent ? { preHandler: answerNoContent } : {}),
      schema: {
        tags: [tag],
        summary,
        ...(parts as P),
        response: { ...response, ...errorResponses },
      },
    };
  };

export const notFound = (message: string) => new ApiError(404, "not_found", message);

/** Fastify's own errors for what a client sent, by Fastify error code. */
const fastifyClientErrors: Record<string, [number, ErrorCode, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    415,
    "unsupported_media_type",
    "Send JSON (Content-Type: application/json).",
  ],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, "payload_too_large", "The request body is too large."],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    400,
    "invalid_json",
    "Content-Length does not match the body.",
  ],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, "invalid_json", "The request body is not valid JSON."],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, "invalid_json", "The request body is empty."],
};

/**
 * What a request answers while the database cannot serve it
 * (server/db/errors.ts): 503 with Retry-After, and a message that says so
 * plainly (`storeFailureSaid`, which the command line says too): the
 * database cannot be reached, or answered too late (a timeout), or cannot
 * write (its disk is full, or it is read-only), so nothing was saved; a
 * person must act first, hence the longer wait. An owner action that commits
 * in parts, or whose COMMIT was lost, says what it may have left; any other
 * write whose COMMIT was lost (`lostAtCommit`), a visitor's, that it may or
 * may not have been saved, so that its reader looks before sending it again
 * (`lostAtCommitSaid`).
 */
const lostAtCommitSaid = (why: NonNullable<StoreFailure["lostAtCommit"]>) =>
  `${lostAsItSaved(why)}, so this may or may not have been saved. Reload the page (or check your inbox) before you send it again.`;

/**
 * A request the server failed, with its stack; one refused because too many
 * like it waited for their turn (the database is well), a line worth a warning.
 */
function logFailure(request: FastifyRequest, error: unknown, failure: StoreFailure | undefined) {
  if (failure?.busy) request.log.warn({ code: "busy" }, "request refused: too many waiting");
  else request.log.error({ err: error }, "request failed");
}

/** The database's failure behind `error`, with what to answer, or undefined when it is none. */
function databaseFailureOf(error: unknown): (StoreFailure & { message: string }) | undefined {
  const failure = storeFailureOf(error);
  if (!failure) return undefined;
  if (!leftBy(error) && failure.lostAtCommit)
    return { ...failure, message: lostAtCommitSaid(failure.lostAtCommit) };
  return { ...failure, message: storeFailureSaid(failure, error) };
}

/**
 * The same answer as a page, for the API's forms that work without
 * JavaScript: 503 with Retry-After, never kept by a cache; undefined when
 * `error` is no failure of the database. The failure is logged, as the API's
 * error handler logs its own.
 */
export function sendDatabaseFailurePage(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
) {
  const failure = databaseFailureOf(error);
  if (!failure) return undefined;
  logFailure(request, error, failure);
  reply.header("retry-after", String(failure.retryAfterSeconds));
  return sendPage(
    reply,
    503,
    renderActionPage({
      note: "Engage with Engineer",
      title: failure.lostAtCommit
        ? "It may or may not have been saved"
        : failure.kind === "unwritable" && !leftBy(error)
          ? "Nothing was saved"
          : "Please try again shortly",
      body: paragraph(failure.message),
    }),
  );
}

/** What a failure of ours answers: never the error's own text (an address, SQL, a driver's message). */
const ourFailure = {
  code: "internal_error",
  message: "Something went wrong on our side.",
} as const;

function classify(error: FastifyError): ErrorResponse["error"] & { status: number } {
  if (error instanceof ApiError) {
    const issues = error instanceof FieldRefusal ? { issues: error.issues } : {};
    return { status: error.statusCode, code: error.code, message: error.message, ...issues };
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? "body";
    const issues = error.validation.map((issue) => ({
      path: [where, ...issue.instancePath.split("/").filter(Boolean)].join("."),
      message: issue.message ?? "is invalid",
    }));
    return {
      status: 400,
      code: "validation_failed",
      message: issues.map((issue) => `${issue.path}: ${issue.message}`).join("; "),
      issues,
    };
  }
  const known = error.code ? fastifyClientErrors[error.code] : undefined;
  if (known) return { status: known[0], code: known[1], message: known[2] };
  const failure = databaseFailureOf(error);
  if (failure) return { status: 503, code: "service_unavailable", message: failure.message };
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    // Any other client error Fastify raises: keep its status, never its internals.
    return {
      status: error.statusCode,
      code: "validation_failed",
      message: "The request is malformed.",
    };
  }
  // An owner action's failure says what it left (server/db/owner-actor.ts).
  const left = leftBy(error);
  if (left)
    return {
      status: 500,
      ...ourFailure,
      message: `${ourFailure.message} ${leftSaid(left, error)}`,
    };
  return { status: 500, ...ourFailure };
}

/** Every failure of the API becomes `{error: {code, message}}`; only our own bugs are 500s. */
export function apiErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (request.socket?.destroyed === true) {
    // The client left (or timed out) while its request was read: nobody to answer.
    request.log.debug({ code: error.code }, "client left before its request was read");
    return;
  }
  const { status, ...body } = classify(error);
  const failure = databaseFailureOf(error);
  if (error instanceof ApiError) {
    // Refused on purpose (a limit, a missing item): worth a line, not a stack.
    if (error.retryAfterSeconds !== undefined) {
      reply.header("retry-after", String(error.retryAfterSeconds));
    }
    request.log[status >= 500 ? "warn" : "info"]({ code: body.code, status }, "request refused");
  } else if (status >= 500) logFailure(request, error, failure);
  else request.log.info({ code: body.code, status }, "request refused");
  if (failure) reply.header("retry-after", String(failure.retryAfterSeconds));
  return reply.code(status).send({ error: body } satisfies ErrorResponse);
}

/**
 * The site's own error handler, for every route outside the API and the
 * pages with handlers of their own: the reading pages, the console's guard…
 * A client's error keeps Fastify's answer, as before; a failure of ours
 * answers in the API's shape and never with the error's text, which names
 * addresses and queries: 503 with Retry-After while the database cannot be
 * reached or cannot write, else 500. The failure itself is logged by the access log's
 * onError hook (server/logging.ts).
 */
export function siteErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const status = error.statusCode ?? (error as { status?: number }).status;
  // Fastify's default handler, the next one up, answers it as it always has.
  if (status !== undefined && status >= 400 && status < 500) throw error;
  if (request.socket?.destroyed === true) return;
  const failure = databaseFailureOf(error);
  if (failure) {
    return reply
      .code(503)
      .header("retry-after", String(failure.retryAfterSeconds))
      .send({
        error: { code: "service_unavailable", message: failure.message },
      } satisfies ErrorResponse);
  }
  return reply.code(500).send({ error: ourFailure } satisfies ErrorResponse);
}
