import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { AssistantResponse } from "../../contract/assistant.ts";
import { questionSchema } from "../../contract/assistant.ts";
import { citedParts } from "../../contract/citations.ts";
import { escapeHtml } from "../../contract/html.ts";
import { limits } from "../../contract/limits.ts";
import { storeFailureOf } from "../db/errors.ts";
import {
  acceptForms,
  errorPages,
  formFields,
  fromSite,
  hidden,
  paragraph,
  renderActionPage,
  sendPage as send,
} from "../lib/action-page.ts";
import type { AddressCount } from "../lib/address-limit.ts";
import { type Assistant, tooManyQuestions, whileReaderWaits } from "./service.ts";

/**
 * "Chat with Me" without JavaScript (docs/product.md, "Chat with Me"): the
 * area on /services and on each service's page holds a plain form that posts
 * here (from a service's page, with its id, to lead back to it), and the answer comes
 * back as a page of its own, with its sources, the links the site offers and
 * the form again for the next question (which keeps this one, for a
 * follow-up). Every word the reader typed is escaped; links are the site's.
 */
const askPath = "/services/assistant";
const note = "Engage with Engineer · Chat with Me";

/** The service page the question was asked on, when the form says so and the site offers it. */
type AskedFrom = { id: string; title: string } | null;

/**
 * The form for the next question: `previous` kept for a follow-up, and, on a refusal, what
 * the reader typed back in the box with the message beside it, as the booking form has it.
 */
function questionForm(
  previous: string | null,
  from: AskedFrom,
  refused?: { question: string; problem: string },
): string {
  const marks = refused
    ? ` value="${escapeHtml(refused.question)}" aria-invalid="true" aria-describedby="question-problem" autofocus`
    : "";
  return `<form method="post" action="${askPath}">
${from ? hidden("from", from.id) : ""}
<label for="question">Ask a question</label>
<input id="question" name="question" type="text" required minlength="${limits.questionMin}" maxlength="${limits.questionMax}" autocomplete="off"${marks}>
${refused ? `<p class="problems" id="question-problem" role="alert">${escapeHtml(refused.problem)}</p>` : ""}
${previous ? hidden("previous", previous) : ""}
<button type="submit">Ask</button>
</form>`;
}

/** A written answer as text, each citation a link to its source. */
function writtenAnswer(response: AssistantResponse): string {
  return citedParts(response.answer, response.sources.length)
    .map((part) => {
      if ("text" in part) return escapeHtml(part.text).replaceAll("\n", "<br>");
      const source = response.sources[part.source - 1] as AssistantResponse["sources"][number];
      return `<a href="${escapeHtml(source.url)}" aria-label="[${part.source}] ${escapeHtml(source.title)}">[${part.source}]</a>`;
    })
    .join("");
}

function answerPage(question: string, response: AssistantResponse, from: AskedFrom): string {
  const sources = response.sources
    .map(
      (source, at) =>
        `<li>${response.written ? "" : at === 0 ? "From " : "See also "}<a href="${escapeHtml(source.url)}">${escapeHtml(source.title)}</a></li>`,
    )
    .join("");
  const includes = response.service
    ? `<p>${escapeHtml(response.service.title)} includes:</p><ul>${response.service.includes.map((item) => `<li>${escapeHtml(item)}</li>`).join("")}</ul>`
    : "";
  const links = response.actions
    .filter((action) => action.kind !== "enquiry")
    .map((action) => `<a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a>`)
    .join(" · ");
  const enquiry = response.actions.find((action) => action.kind === "enquiry");
  return renderActionPage({
    note,
    title: "Chat with Me",
    body: `<p class="meta">You asked:</p>
<blockquote>${escapeHtml(question)}</blockquote>
<p class="meta">${response.written ? "Written from the site's pages:" : response.known ? "The site says:" : "The assistant answers:"}</p>
${response.written ? `<p>${writtenAnswer(response)}</p>` : `<blockquote>${escapeHtml(response.answer)}</blockquote>`}
${includes}
${sources ? (response.written ? `<ol>${sources}</ol>` : `<ul>${sources}</ul>`) : ""}
${enquiry ? enquiryForm(question, response.service?.id ?? from?.id ?? null, enquiry.label) : ""}
${links ? `<p>${links}</p>` : ""}
${questionForm(question, from)}
<p>${from ? backTo(from) : `<a href="/services">Back to the services</a>`}</p>`,
  });
}

/**
 * "Send an enquiry" as a button that posts the question (and the service) to the
 * enquiry form, which comes back filled in: the question is never put in an address.
 */
const enquiryForm = (question: string, service: string | null, label: string) =>
  `<form method="post" action="/services/enquiry">
${hidden("message", question)}${service ? hidden("service", service) : ""}
<button type="submit" name="draft" value="yes">${escapeHtml(label)}</button>
</form>`;

const backTo = ({ id, title }: NonNullable<AskedFrom>) =>
  `<a href="/services/${escapeHtml(id)}">Back to ${escapeHtml(title)}</a>`;

/**
 * A refused question: the form again with it in the box (empty when the form was not
 * read), the message beside it, and the question before it kept for the follow-up.
 */
function problemPage(problem: string, request: FastifyRequest, from: AskedFrom): string {
  const form = request.body instanceof URLSearchParams ? formFields(request) : null;
  const previous = questionSchema.safeParse(form?.get("previous") ?? "");
  return renderActionPage({
    note,
    title: "Chat with Me",
    body: `${questionForm(previous.success ? previous.data : null, from, { question: form?.get("question") ?? "", problem })}
${from ? `<p>${backTo(from)}</p>` : paragraph("Or go back with your browser's Back button.", "note")}`,
  });
}

export const assistantPages: FastifyPluginAsync<{
  assistant: Assistant;
  siteUrl: string;
  /** The questions one IP address and its network ask, here and through the API together. */
  limit: AddressCount;
}> = async (app, { assistant, siteUrl, limit }) => {
  const siteOrigin = new URL(siteUrl).origin;

  // The question and the one before it, each of up to questionMax characters
  // that may take 9 bytes once the form encodes them (a 3-byte character,
  // percent-encoded), and the page asked from.
  acceptForms(app, 2 * limits.questionMax * 9 + 1024);

  /**
   * The service page the question was asked on, when the site offers it: the form's
   * `from`, or, when the body was not read (too large), the page the Referer names
   * if it is this site's /services/<id>.
   */
  const askedFrom = (request: FastifyRequest): AskedFrom => {
    const referer = URL.parse(request.headers.referer ?? "");
    const id =
      request.body instanceof URLSearchParams
        ? formFields(request).get("from")
        : referer?.origin === siteOrigin && /^\/services\/([^/]+)$/.exec(referer.pathname)?.[1];
    const title = id ? assistant.serviceTitle(id) : null;
    return title && id ? { id, title } : null;
  };

  errorPages(app, "assistant page failed", storeFailureOf, (status, _known, request) =>
    problemPage(
      status === 413
        ? "The question was too long to read. Ask a shorter one."
        : status < 500
          ? "The form could not be read. Go back and ask again."
          : "The assistant could not answer just now. Please try again in a moment.",
      request,
      askedFrom(request),
    ),
  );

  // Opened rather than posted (a restored tab, a bookmark): the question's area on /services.
  app.get(askPath, async (_request, reply) => reply.redirect("/services#chat-heading", 303));

  app.post(askPath, async (request, reply) => {
    const from = askedFrom(request);
    if (!fromSite(request, siteOrigin)) {
      return send(
        reply,
        403,
        problemPage("The question must be asked from this site's own page.", request, from),
      );
    }
    const limited = await limit(request);
    if (limited) {
      const { retryAfter } = limited;
      reply.header("retry-after", String(retryAfter));
      return send(
        reply,
        429,
        problemPage(tooManyQuestions(retryAfter, limited.from), request, from),
      );
    }
    const form = formFields(request);
    const parsed = questionSchema.safeParse(form.get("question") ?? "");
    if (!parsed.success) {
      return send(
        reply,
        400,
        problemPage(parsed.error.issues[0]?.message ?? "Type a question.", request, from),
        // What the reader asked, and the answer: their browser may keep it for Back.
        { forBack: true },
      );
    }
    const previous = questionSchema.safeParse(form.get("previous") ?? "");
    const answer = await assistant.ask(
      parsed.data,
      previous.success ? previous.data : undefined,
      request,
      { signal: whileReaderWaits(reply.raw).signal },
      from?.id,
    );
    if (!answer) {
      return send(
        reply,
        503,
        problemPage("The assistant is not available just now.", request, from),
      );
    }
    return send(reply, 200, answerPage(parsed.data, answer, from), { forBack: true });
  });
};
