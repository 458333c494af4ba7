import type { FastifyPluginAsync } from "fastify";
import { unsubscribeTokenSchema } from "../../../contract/newsletter.ts";
import { isOneClickBody } from "../../lib/action-page.ts";
import { ApiError } from "../errors.ts";
import type { RouteDeps } from "./deps.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Accepted from anywhere: the request carries its own authority (a mailbox provider's POST). */
    crossSite?: boolean;
  }
}

/**
 * The address of every edition's `List-Unsubscribe` header (RFC 8058). A POST
 * unsubscribes at once, with no page and no cookie; it comes from the
 * recipient's mail provider, so it is exempt from the same-origin check, and
 * the token is its authority. A GET (a person or a scanner opening the link)
 * changes nothing and leads to the unsubscribe page, which asks first.
 */
export const oneClickRoutes: FastifyPluginAsync<RouteDeps> = async (app, { engagement }) => {
  for (const type of ["application/x-www-form-urlencoded", "multipart/form-data"]) {
    app.addContentTypeParser(type, { parseAs: "string" }, (_request, body, done) =>
      done(null, body),
    );
  }

  const tokenOf = (query: unknown): string => {
    const parsed = unsubscribeTokenSchema.safeParse((query as { token?: unknown }).token);
    if (!parsed.success) {
      throw new ApiError(
        400,
        "validation_failed",
        "query.token: This is not an unsubscribe token.",
      );
    }
    return parsed.data;
  };

  app.post(
    "/newsletter/one-click",
    { schema: { hide: true }, config: { crossSite: true } },
    async (request) => {
      const token = tokenOf(request.query);
      const body = typeof request.body === "string" ? request.body : "";
      if (!isOneClickBody(request.headers["content-type"], body)) {
        throw new ApiError(
          400,
          "validation_failed",
          "body: a one-click unsubscribe posts List-Unsubscribe=One-Click (RFC 8058).",
        );
      }
      const outcome = await engagement.subscribers.unsubscribe(token);
      if (outcome === "unknown") {
        throw new ApiError(404, "unknown_token", "This unsubscribe link is not known.");
      }
      return { unsubscribed: true as const };
    },
  );

  app.get("/newsletter/one-click", { schema: { hide: true } }, async (request, reply) =>
    // A path of our own, never a URL from the request: no open redirect.
    reply.redirect(`/unsubscribe?token=${tokenOf(request.query)}`, 303),
  );
};
