import type { ErrorCode } from "../../contract/api.ts";

/** A non-2xx answer of the API, with its stable error code. */
export class ApiError extends Error {
  override name = "ApiError";
  readonly status: number;
  readonly code: ErrorCode | "network_error";
  constructor(status: number, code: ApiError["code"], message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** JSON in, JSON out, same origin; the visitor cookie travels by itself. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/api${path}`, {
      method,
      headers: body === undefined ? undefined : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError(0, "network_error", (error as Error).message);
  }
  if (response.status === 204) return undefined as T;
  const payload = await response.json().catch(() => null);
  if (!response.ok) {
    const error = payload?.error;
    throw new ApiError(
      response.status,
      error?.code ?? "internal_error",
      error?.message ?? response.statusText,
    );
  }
  return payload as T;
}
