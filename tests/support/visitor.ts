import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { processSiteUrl } from "./server-process.ts";

/*
 * A browser as the API sees it, for the server tests and the benchmark: it
 * keeps the visitor cookie it is given and sends same-origin JSON requests.
 * One class whatever carries the requests: Fastify's inject (`injectVisitor`,
 * no port) or real HTTP to a listening server (`httpVisitor`).
 */

/** What a request gets back: the parts of inject's answer that the tests read. */
export type VisitorResponse = {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
};

/** Inject's answer, without its `json()`: bodies are read with the contract's schemas (`json` in tests/server/support/test-app.ts). */
export type InjectResponse = Omit<LightMyRequestResponse, "json">;

type Body = Record<string, unknown> | string;
type Method = NonNullable<InjectOptions["method"]>;

/** Sends one request and says which cookies the answer set (`name=value`, attributes dropped). */
type Send<R> = (request: {
  method: Method;
  url: string;
  headers: Record<string, string>;
  body: Body | undefined;
}) => Promise<{ response: R; setCookies: string[] }>;

export class Visitor<R extends VisitorResponse = VisitorResponse> {
  cookie: string | undefined;
  readonly #send: Send<R>;
  readonly #origin: string;
  readonly #commentToken: (() => string) | undefined;

  constructor(
    send: Send<R>,
    {
      origin,
      commentToken,
    }: {
      /** The site's origin (SITE_URL), which same-origin writes must carry. */
      origin: string;
      /** The comment form's token, when the server checks the form's timing. */
      commentToken?: () => string;
    },
  ) {
    this.#send = send;
    this.#origin = origin;
    this.#commentToken = commentToken;
  }

  async request(
    method: Method,
    url: string,
    body?: Body,
    headers: Record<string, string> = {},
  ): Promise<R> {
    const { response, setCookies } = await this.#send({
      method,
      url,
      headers: {
        origin: this.#origin,
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(typeof body === "string" ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      body,
    });
    // Its name over http, or over https (`__Host-`); not the old name's removal (empty).
    const visitorCookie = setCookies.find((cookie) => /^(__Host-)?ewe_visitor=[^;]/.test(cookie));
    if (visitorCookie) this.cookie = visitorCookie;
    return response;
  }

  get = (url: string) => this.request("GET", url);
  post = (url: string, body?: Body) => this.request("POST", url, body);
  patch = (url: string, body?: Body) => this.request("PATCH", url, body);
  delete = (url: string) => this.request("DELETE", url);

  react(kind: string, id: string, type: string, userName = "Alex") {
    return this.post(`/api/items/${kind}/${id}/reactions`, { type, userName });
  }

  /** Posts through the form as a person would: its token, when needed, is old enough. */
  comment(postId: string, content: string, userName = "Alex") {
    return this.post(`/api/items/science/${postId}/comments`, {
      content,
      userName,
      ...(this.#commentToken ? { formToken: this.#commentToken() } : {}),
    });
  }

  /** A reply to comment `parentId`, through the same form. */
  reply(postId: string, parentId: number, content: string, userName = "Alex") {
    return this.post(`/api/items/science/${postId}/comments`, {
      content,
      userName,
      parentId,
      ...(this.#commentToken ? { formToken: this.#commentToken() } : {}),
    });
  }

  /** `formToken`: a newsletter form token (`formTokenFor`); a test cannot wait the form's minimum time per address. */
  subscribe(email: string, formToken: string) {
    return this.post("/api/subscribers", { email, formToken });
  }
}

const cookiePair = (header: string) => header.split(";")[0] ?? "";

/** A visitor of an app in this process, through inject; `ip` is the address it writes from. */
export function injectVisitor(
  app: FastifyInstance,
  options: { origin: string; commentToken?: () => string; ip?: string },
): Visitor<InjectResponse> {
  const send: Send<InjectResponse> = async ({ method, url, headers, body }) => {
    const response = await app.inject({
      method,
      url,
      headers,
      ...(body === undefined ? {} : { payload: body }),
      ...(options.ip ? { remoteAddress: options.ip } : {}),
    });
    const set = response.headers["set-cookie"] ?? [];
    return { response, setCookies: (Array.isArray(set) ? set : [set]).map(cookiePair) };
  };
  return new Visitor(send, options);
}

/**
 * A visitor of a listening server over real HTTP. Paths are relative to
 * `baseUrl`; an absolute URL reaches another instance with the same cookie,
 * as a browser behind a load balancer would. Its Origin is the site's
 * (`origin`, SITE_URL; a server process's by default), whichever instance it
 * connects to.
 */
export function httpVisitor(
  baseUrl: string,
  { origin = processSiteUrl, commentToken }: { origin?: string; commentToken?: () => string } = {},
): Visitor {
  const send: Send<VisitorResponse> = async ({ method, url, headers, body }) => {
    const response = await fetch(new URL(url, baseUrl), {
      method,
      headers: {
        ...(typeof body === "object" ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      ...(body === undefined
        ? {}
        : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      response: {
        statusCode: response.status,
        headers: Object.fromEntries(response.headers),
        body: text,
      },
      setCookies: response.headers.getSetCookie().map(cookiePair),
    };
  };
  return new Visitor(send, { origin, ...(commentToken ? { commentToken } : {}) });
}
