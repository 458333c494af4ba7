import type { FastifyError, FastifyPluginAsync } from "fastify";
import { emailSchema } from "../../../contract/api.ts";
import { ApiError, apiErrorHandler } from "../errors.ts";
import type { RouteDeps } from "./deps.ts";

/** The built pages the form's answers lead to (app/pages/newsletter/[result].astro). */
const resultPage = {
  thanks: "/newsletter/thanks",
  already: "/newsletter/already",
  invalid: "/newsletter/invalid",
  later: "/newsletter/later",
} as const;

/**
 * The footer's newsletter form as an ordinary HTML form, for readers without
 * JavaScript (docs/product.md, "Without JavaScript"). It takes the one
 * urlencoded body the site accepts, runs through the API's same-origin check
 * and write limits like any other write, and answers with a redirect to a page
 * that says what happened, so reloading it does not post again.
 */
export const newsletterFormRoutes: FastifyPluginAsync<RouteDeps> = async (app, { engagement }) => {
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string" },
    (_request, body, done) => done(null, new URLSearchParams(body as string)),
  );

  // Refusals a person can cause become a page; a cross-site post stays a bare 403.
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    const status = error instanceof ApiError ? error.statusCode : (error.statusCode ?? 500);
    if (status === 429) return reply.redirect(resultPage.later, 303);
    if (status === 400 || status === 413 || status === 415) {
      return reply.redirect(resultPage.invalid, 303);
    }
    return apiErrorHandler(error, request, reply);
  });

  app.post("/newsletter", { schema: { hide: true } }, async (request, reply) => {
    const form = request.body instanceof URLSearchParams ? request.body : null;
    if (!form) throw new ApiError(415, "unsupported_media_type", "Send the form as a form.");
    const email = emailSchema.safeParse(form.get("email") ?? "");
    if (!email.success) return reply.redirect(resultPage.invalid, 303);
    const outcome = await engagement.subscribers.add(email.data);
    return reply.redirect(
      outcome === "already_subscribed" ? resultPage.already : resultPage.thanks,
      303,
    );
  });
};
