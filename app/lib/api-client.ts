import type { ErrorCode } from "../../contract/api.ts";
import type { CallOf, Endpoints, Route } from "../../contract/endpoints.ts";

/** A non-2xx answer of the API, with its stable error code. */
export class ApiError extends Error {
  override name = "ApiError";
  readonly status: number;
  readonly code: ErrorCode | "network_error";
  /** The answer's whole `error` object: what some refusals carry besides the message. */
  readonly detail: Readonly<Record<string, unknown>>;
  constructor(
    status: number,
    code: ApiError["code"],
    message: string,
    detail: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.detail = detail;
  }

  /** A non-2xx answer as the API writes it: `{ error: { code, message, … } }`, or none. */
  static of(response: Response, payload: unknown): ApiError {
    const error = (payload as { error?: { code?: ErrorCode; message?: string } } | null)?.error;
    return new ApiError(
      response.status,
      error?.code ?? "internal_error",
      error?.message ?? response.statusText,
      typeof error === "object" && error !== null ? error : {},
    );
  }
}

type Params = Record<string, string | number>;
type Query = Record<string, string | number | undefined>;

/**
 * One call of the contract's endpoints (contract/endpoints.ts): the route
 * names the method and path, and its parts and body are checked against the
 * contract's types, as is what the caller does with the answer. JSON in, JSON
 * out, same origin; the visitor cookie travels by itself.
 */
export async function api<R extends Route>(
  route: R,
  ...[call]: keyof CallOf<R> extends never ? [] : [CallOf<R>]
): Promise<Endpoints[R]["response"]> {
  const [method = "GET", template = ""] = route.split(" ");
  const { params, query, body } = (call ?? {}) as {
    params?: Params;
    query?: Query;
    body?: unknown;
  };
  const path = template.replace(/:([a-z]+)/gi, (_, name: string) =>
    encodeURIComponent(String(params?.[name] ?? "")),
  );
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) search.set(name, String(value));
  }
  let response: Response;
  try {
    response = await fetch(`/api${path}${search.size > 0 ? `?${search}` : ""}`, {
      method,
      headers: body === undefined ? undefined : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError(0, "network_error", (error as Error).message);
  }
  if (response.status === 204) return undefined as Endpoints[R]["response"];
  const payload = await response.json().catch(() => null);
  if (!response.ok) throw ApiError.of(response, payload);
  return payload;
}

/**
 * A refusal's problems by the form's `fields` it names, in its own words
 * without the path ("body.email: Enter an address" beside Email), and what it
 * says of nothing among them (`rest`, words alone, or null); a field may be
 * named deeper in the path ("body.weekly.mon" is the field "mon"). Its `issues`
 * name the fields: the API gives them with every refusal that names one
 * (server/api/errors.ts); without them the message is said whole.
 */
export function fieldProblems<F extends string>(error: ApiError, fields: readonly F[]) {
  const issues = (error.detail.issues ?? []) as { path: string; message: string }[];
  const problems: Partial<Record<F, string>> = {};
  const rest: string[] = [];
  for (const { path, message } of issues) {
    // The field is the path's first part the form has: a day's hours are "body.weekly.mon".
    const parts = path.startsWith("body.") ? path.split(".").slice(1) : [];
    const name = parts.find((part): part is F => fields.includes(part as F));
    if (name) problems[name] ??= message;
    else rest.push(message);
  }
  return { problems, rest: issues.length === 0 ? error.message : rest.join(" ") || null };
}

/**
 * What a form shows for a refusal: each of its `fields` that the validation
 * answer names ("body.email: …; body.note: …") gets its message beside it, and
 * above the form either "Please correct…" or the answer's own message
 * (`offline` when the site did not answer).
 */
export function formRefusal<F extends string>(
  error: unknown,
  fields: readonly F[],
  offline: string,
) {
  if (!(error instanceof ApiError) || error.code === "network_error") {
    return { problems: {} as Partial<Record<F, string>>, problem: offline };
  }
  const { problems } = fieldProblems(error, fields);
  const marked = Object.keys(problems).length > 0;
  return { problems, problem: marked ? "Please correct the fields marked below." : error.message };
}
