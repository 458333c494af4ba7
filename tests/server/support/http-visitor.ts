import { resolveCookieSecret } from "../../../server/engagement/visitor.ts";
import { createFormTokens } from "../../../server/newsletter/form-token.ts";
import { processSiteUrl } from "../../support/server-process.ts";

// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON.
type AnyJson = any;

/**
 * A browser talking to a server over real HTTP: keeps the visitor cookie it is
 * given and sends same-origin JSON writes. Its Origin is the site's (SITE_URL),
 * whichever instance it connects to, as behind a proxy.
 */
export class HttpVisitor {
  cookie: string | undefined;
  readonly #origin: string;

  constructor(origin = processSiteUrl) {
    this.#origin = origin;
  }

  async request(
    baseUrl: string,
    method: string,
    pathname: string,
    body?: unknown,
  ): Promise<{ status: number; json: AnyJson }> {
    const response = await fetch(`${baseUrl}${pathname}`, {
      method,
      headers: {
        origin: this.#origin,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const setCookie = response.headers.get("set-cookie");
    if (setCookie?.startsWith("ewe_visitor=")) this.cookie = setCookie.split(";")[0];
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : null };
  }

  comment(baseUrl: string, postId: string, content: string, userName = "Alex") {
    return this.request(baseUrl, "POST", `/api/items/science/${postId}/comments`, {
      content,
      userName,
    });
  }

  react(baseUrl: string, kind: string, id: string, type: string, userName = "Alex") {
    return this.request(baseUrl, "POST", `/api/items/${kind}/${id}/reactions`, { type, userName });
  }

  /** `formToken`: see `formTokenFor`; a test cannot wait the form's minimum time per address. */
  subscribe(baseUrl: string, email: string, formToken: string) {
    return this.request(baseUrl, "POST", "/api/subscribers", { email, formToken });
  }
}

/** Polls `check` until it holds; for states that change without an event to wait on. */
export async function waitFor(
  check: () => Promise<boolean>,
  { timeoutMs = 10_000, what = "condition" } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A newsletter form token, old enough to pass, for a server with this secret or DATA_DIR. */
export function formTokenFor(settings: { COOKIE_SECRET?: string; DATA_DIR: string }): string {
  return createFormTokens(resolveCookieSecret(settings)).issue(Date.now() - 5000);
}
