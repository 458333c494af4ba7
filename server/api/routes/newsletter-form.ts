import type { FastifyError, FastifyPluginAsync } from "fastify";
import { emailSchema } from "../../../contract/api.ts";
import { escapeHtml } from "../../../contract/html.ts";
import { acceptForms, hidden, renderActionPage, sendPage } from "../../lib/action-page.ts";
import { type Mistyped, mistypedAddress, mistypedHtml } from "../../lib/form-html.ts";
import { ApiError, apiErrorHandler, sendDatabaseFailurePage } from "../errors.ts";
import { assertNoHoneypot, requestSubscription, timingRefusal } from "../newsletter-rules.ts";
import type { RouteDeps } from "./deps.ts";

/** The built pages the form's answers lead to (app/pages/newsletter/). */
const resultPage = {
  thanks: "/newsletter/thanks",
  invalid: "/newsletter/invalid",
  later: "/newsletter/later",
  refused: "/newsletter/refused",
  tooFast: "/newsletter/too-fast",
  expired: "/newsletter/expired",
} as const;

const pageOf: Partial<Record<ApiError["code"], string>> = {
  rate_limited: resultPage.later,
  honeypot_filled: resultPage.refused,
  too_fast: resultPage.tooFast,
  form_token_invalid: resultPage.expired,
};

/**
 * The form again, with the address typed, when it looks mistyped: "Did you mean …?", with
 * the first press's time sealed (`ticket`), so "One more step" counts from that press.
 */
const checkAddressPage = (mistyped: Mistyped, ticket: string) =>
  renderActionPage({
    note: "Engage with Engineer · newsletter",
    title: "Check your address",
    body: `<form method="post" action="/api/newsletter">
<label for="newsletter-email" class="field-label">Email address</label>
<input id="newsletter-email" name="email" type="email" required class="field" value="${escapeHtml(mistyped.typed)}">
${mistypedHtml(mistyped, "note")}${hidden("ticket", ticket)}
<button type="submit">Subscribe</button>
</form>`,
  });

/**
 * The footer's newsletter form as an ordinary HTML form, for readers without
 * JavaScript (docs/product.md, "Without JavaScript"). It takes the one
 * urlencoded body the site accepts, runs through the API's same-origin check
 * and write limits like any other write, and answers with a redirect to a page
 * that says what happened, so reloading it does not post again.
 *
 * A static page cannot carry the signed time the island fetches, so the form
 * takes two steps: the first seals the address into the link of a page that
 * asks the reader to press Subscribe once more, and the second, no sooner
 * than a person could, subscribes under the same rules as the API.
 */
export const newsletterFormRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  const { newsletter } = deps;
  acceptForms(app);

  // Refusals a person can cause become a page; a cross-site post stays a bare 403.
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    const page = error instanceof ApiError ? pageOf[error.code] : undefined;
    if (page) return reply.redirect(page, 303);
    const status = error instanceof ApiError ? error.statusCode : (error.statusCode ?? 500);
    if (status === 429) return reply.redirect(resultPage.later, 303);
    if (status === 400 || status === 413 || status === 415) {
      return reply.redirect(resultPage.invalid, 303);
    }
    // The database cannot take the address now: a page that says so, 503.
    return sendDatabaseFailurePage(request, reply, error) ?? apiErrorHandler(error, request, reply);
  });

  const formOf = (body: unknown): URLSearchParams => {
    if (body instanceof URLSearchParams) return body;
    throw new ApiError(415, "unsupported_media_type", "Send the form as a form.");
  };

  app.post("/newsletter", { schema: { hide: true } }, async (request, reply) => {
    const form = formOf(request.body);
    assertNoHoneypot(form.get("website"));
    const email = emailSchema.safeParse(form.get("email") ?? "");
    if (!email.success) return reply.redirect(resultPage.invalid, 303);
    // An address that looks mistyped is asked about once before the second step.
    const mistyped = mistypedAddress(form);
    const { formTickets } = newsletter;
    const firstPress = formTickets.firstPress(form.get("ticket"));
    if (mistyped) {
      const page = checkAddressPage(mistyped, formTickets.seal(email.data, firstPress));
      return sendPage(reply, 200, page, { forBack: true });
    }
    const ticket = formTickets.seal(email.data, firstPress);
    return reply.redirect(`/newsletter/continue?ticket=${ticket}`, 303);
  });

  app.post("/newsletter/continue", { schema: { hide: true } }, async (request, reply) => {
    formOf(request.body ?? new URLSearchParams());
    const { ticket } = request.query as { ticket?: unknown };
    const opened = newsletter.formTickets.open(typeof ticket === "string" ? ticket : "");
    if (opened.check !== "ok") throw timingRefusal(opened.check);
    await requestSubscription(deps, opened.email, request.ip, reply);
    return reply.redirect(resultPage.thanks, 303);
  });
};
