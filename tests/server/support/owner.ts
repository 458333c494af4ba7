import type { InjectOptions } from "fastify";
import { expect } from "vitest";
import type { InjectResponse } from "../../support/visitor.ts";
import { admin, adminEnv } from "./admin.ts";
import { siteUrl, type TestApp } from "./test-app.ts";

/** The token of the sign-in link `npm run admin -- login` prints. */
export function linkToken(stdout: string): string {
  const match = /\/admin\/sign-in#token=([A-Za-z0-9_-]{43})\n$/.exec(stdout);
  if (!match?.[1]) throw new Error(`no sign-in link in: ${stdout}`);
  return match[1];
}

/** The owner's browser: keeps the session cookie and sends same-origin requests. */
export class Owner {
  cookie: string | undefined;
  readonly #t: TestApp;
  constructor(t: TestApp) {
    this.#t = t;
  }
  async request(
    method: InjectOptions["method"],
    url: string,
    body?: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<InjectResponse> {
    const response = await this.#t.app.inject({
      method,
      url,
      headers: {
        origin: siteUrl,
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: body }),
    });
    const set = response.cookies.find((c) => c.name.endsWith("ewe_owner"));
    if (set) this.cookie = set.value ? `${set.name}=${set.value}` : undefined;
    return response;
  }
  get = (url: string) => this.request("GET", url);
  post = (url: string, body?: Record<string, unknown>) => this.request("POST", url, body ?? {});
  patch = (url: string, body?: Record<string, unknown>) => this.request("PATCH", url, body ?? {});
  delete = (url: string) => this.request("DELETE", url);

  /** `npm run admin -- login`, then the page's "Sign in" button. */
  async signIn(): Promise<InjectResponse> {
    const login = await admin(adminEnv(this.#t), "login");
    expect(login.code).toBe(0);
    return this.post("/api/admin/sign-in", { token: linkToken(login.stdout) });
  }
}
