import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import { enquiryRequestSchema, type ValidEnquiry } from "../../contract/enquiries.ts";
import { isServiceChoice } from "../../contract/enquiry-choices.ts";
import { escapeHtml } from "../../contract/html.ts";
import { limits } from "../../contract/limits.ts";
import { storeFailureOf } from "../db/errors.ts";
import type { OwnerActor } from "../db/owner-actor.ts";
import {
  acceptForms,
  databaseFailed,
  errorPages,
  formFields,
  fromElsewhere,
  fromSite,
  hidden,
  lostAsItSaved,
  paragraph,
  problemList,
  queryToken,
  renderActionPage,
  sendPage as send,
  tryAgainIn,
} from "../lib/action-page.ts";
import { countByAddress } from "../lib/address-limit.ts";
import {
  contactFieldsHtml,
  fieldProblems,
  formFieldsHtml,
  honeypotHtml,
  keptAddressHtml,
  keptAddressOf,
  type Mistyped,
  mistypedAddress,
} from "../lib/form-html.ts";
import { formTokenRefusal } from "../lib/form-token.ts";
import { isToken } from "../lib/tokens.ts";
import { enquiryDetails } from "./mails.ts";
import type { Enquiries } from "./service.ts";

/**
 * The enquiry pages the server writes (docs/product.md, "Enquiries"), plain
 * HTML with no script:
 *
 * - `POST /services/enquiry`: the form on /services without JavaScript. A
 *   static page cannot carry the form's signed time, so it takes two steps,
 *   as the newsletter's does: the first shows the enquiry back with a signed
 *   time, the second, sent no sooner than a person could read it, goes
 *   through every check of the API and leads to the thank-you page. A
 *   refusal at either step shows the form again, as typed, each message
 *   beside its field (the booking form's fields, server/lib/form-html.ts).
 *   The assistant's answer page posts a draft here (`draft`, the question as
 *   the message), which comes back as the form filled in.
 *   Opened with a GET (a restored tab, a bookmark), it leads to the form on /services.
 * - `GET|POST /enquiries/delete?token=`: the sender's deletion link from the
 *   acknowledgement. Opening it changes nothing (mail scanners open links);
 *   only the button's POST, from this site's page, deletes.
 */

/**
 * The form's posts one address may make in a minute: a person needs a few, each
 * step and each change. Ten times as many from one network (`countByAddress`).
 * The API's writes are counted in its own plugin; without this, a program could
 * post here as fast as it can, each second step spending a form token in the database.
 */
const postsPerMinute = 60;

/** The built page a sent enquiry leads to (app/pages/services/enquiry-sent.astro). */
const sentPath = "/services/enquiry-sent";
const formPath = "/services/enquiry";
const note = "Engage with Engineer · enquiries";
const page = (title: string, body: string) => renderActionPage({ note, title, body });

const backLine = paragraph(
  "Go back with your browser's Back button: what you typed is still in the form.",
  "note",
);

/** A refusal whose form was not read (too large, or not from this site): its messages alone. */
function problemPage(problems: string[]): string {
  return page(
    "Your enquiry was not sent",
    `${problemList(problems)}
${backLine}`,
  );
}

/** The form's fields, in order, as the island has them. */
const enquiryFields = ["name", "email", "service", "organisation", "timeline", "message"] as const;
/** What the reader typed, and the address they were asked about and kept (`keptAddressOf`). */
type Typed = Partial<Record<(typeof enquiryFields)[number], string>> & { kept?: string };
const typedIn = (form: URLSearchParams): Typed => ({
  ...Object.fromEntries(enquiryFields.map((name) => [name, form.get(name) ?? ""])),
  kept: keptAddressOf(form),
});

/**
 * A refused enquiry (or one to change, from its review): the form again, as it was typed, each
 * message beside its field and all of them listed above it, so that nothing sends the reader
 * Back to a page that no longer matches. Sent again, it is shown back for review.
 */
function formPage(
  typed: Typed,
  problems: [field: unknown, message: string][],
  enquiries: Pick<Enquiries, "services" | "retentionDays">,
  draft = false,
  mistyped: Mistyped | null = null,
  since = "",
): string {
  const form = formFieldsHtml({
    id: "enquiry",
    order: enquiryFields,
    filled: typed,
    problems: fieldProblems(enquiryFields, problems),
    look: { label: "field-label", control: "field", problem: "problems" },
  });
  const optional = (label: string) => `${label} <span class="note">(optional)</span>`;
  return page(
    problems.length
      ? "Your enquiry was not sent"
      : draft
        ? "Send an enquiry"
        : "Change your enquiry",
    `${problems.length ? problemList([...new Set(problems.map(([, message]) => message))]) : ""}
<form method="post" action="${formPath}">
${honeypotHtml("honeypot")}${since ? hidden("since", since) : ""}
${contactFieldsHtml(form, enquiries.services, typed.service ?? "", mistyped, typed.kept)}
${form.text("organisation", optional("Organisation"), ` maxlength="${limits.enquiryDetailMax}" autocomplete="organization"`)}
${form.text("timeline", optional("Timeline"), ` maxlength="${limits.enquiryDetailMax}" placeholder="e.g. a first draft by June"`)}
${form.area("message", "Message", ` required rows="7" minlength="${limits.enquiryMessageMin}" maxlength="${limits.enquiryMessageMax}"`, "enquiry-message-hint")}
<p id="enquiry-message-hint" class="note">What you need and for what: ${limits.enquiryMessageMin} to ${limits.enquiryMessageMax.toLocaleString("en")} characters. Links and a phone number are welcome.</p>
<p class="note">What you send is used only to answer you: it is mailed to the engineer, deleted after ${enquiries.retentionDays} days unless it becomes a project, and never shown on the site. The <a href="/privacy#enquiries">privacy policy</a> says more.</p>
<button type="submit">Send enquiry</button>
</form>`,
  );
}

function reviewPage(
  enquiry: ValidEnquiry,
  serviceTitle: string,
  formToken: string,
  problem?: string,
): string {
  const rows = enquiryDetails(enquiry, serviceTitle);
  return page(
    "Check your enquiry",
    `${problem ? problemList([problem]) : ""}
${paragraph("This is what will be sent. Press Send enquiry to send it.")}
<dl>${rows.map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`).join("")}</dl>
<blockquote>${escapeHtml(enquiry.message)}</blockquote>
<form method="post" action="${formPath}">
${hidden("name", enquiry.name)}${hidden("email", enquiry.email)}${hidden("service", enquiry.service)}
${hidden("organisation", enquiry.organisation ?? "")}${hidden("timeline", enquiry.timeline ?? "")}
${hidden("message", enquiry.message)}${hidden("formToken", formToken)}${keptAddressHtml(enquiry.email)}
<button type="submit">Send enquiry</button>
<button type="submit" name="change" value="yes" class="secondary">Change the enquiry</button>
</form>
${paragraph("Nothing is sent until you press Send enquiry.", "note")}`,
  );
}

/**
 * Why the review is shown again. A press too quick is told to read first; a page sent
 * again (Back from the thank-you page, or a reload) is told it went, so that only a
 * reader who means a second copy sends one.
 */
function reviewProblem({ code, message }: { code: string; message: string }): string {
  if (code === "too_fast") {
    return "That was quicker than a person reads; please check the enquiry and press Send enquiry again.";
  }
  if (message === formTokenRefusal("used").message) {
    return "This enquiry was sent already: the engineer has it. Press Send enquiry only to send a second copy.";
  }
  return message;
}

export const enquiryPages: FastifyPluginAsync<{
  enquiries: Enquiries;
  siteUrl: string;
  /** Writes a sender's deletion in the audit trail, in its transaction. */
  trail: OwnerActor;
  /** Attributes the enquiry to the reader's visit (server/readers/): the composition root plugs it in. */
  attribute: (request: FastifyRequest, kind: "enquiry") => Promise<void>;
}> = async (app, { enquiries, siteUrl, trail, attribute }) => {
  const siteOrigin = new URL(siteUrl).origin;
  const tokens = enquiries.formTokens;

  acceptForms(app);
  const limit = countByAddress(app, {
    name: "enquiry form",
    max: postsPerMinute,
    timeWindow: 60_000,
  });

  errorPages(app, "enquiry page failed", storeFailureOf, (status, known, request) => {
    const problem =
      status === 413
        ? "The form was too large to read. Shorten the message and send it again."
        : status < 500
          ? "The form could not be read. Go back and send it again."
          : known?.lostAtCommit
            ? `${lostAsItSaved(known.lostAtCommit)} your enquiry, so it may or may not have been sent. Please wait a few minutes before you send it again.`
            : `${databaseFailed(known)}; nothing was sent or changed. Please try again in ${tryAgainIn(known)}.`;
    // A form it read (the second step, when the database failed) comes back as it was typed.
    return request.body instanceof URLSearchParams
      ? formPage(typedIn(request.body), [[null, problem]], enquiries)
      : problemPage([problem]);
  });

  // Opened rather than posted (a restored tab, a bookmark): the form on /services.
  app.get(formPath, async (_request, reply) => reply.redirect("/services#send-enquiry", 303));

  app.post(formPath, async (request, reply) => {
    if (!fromSite(request, siteOrigin)) {
      return send(reply, 403, problemPage(["The form must be sent from this site's own page."]));
    }
    const form = formFields(request);
    const typed = typedIn(form);
    // What it answers holds only what the reader sent: their browser may keep it for Back.
    const answer = (status: number, html: string) => send(reply, status, html, { forBack: true });
    const refused = await limit(request);
    if (refused) {
      reply.header("retry-after", String(refused.retryAfter));
      const problem = `The form was sent too often from ${refused.from} in the last minute; wait a minute, then send it again.`;
      return answer(429, formPage(typed, [[null, problem]], enquiries));
    }
    // A draft (the assistant's answer page, without JavaScript) or a review to change: the form, filled in.
    // Its review's time goes with a change, so the review after it counts from the first.
    if (form.has("change") || form.has("draft")) {
      const since = form.has("draft") ? "" : tokens.carried(form.get("formToken"));
      return answer(200, formPage(typed, [], enquiries, form.has("draft"), null, since));
    }
    const { kept: _kept, ...sent } = typed;
    const parsed = enquiryRequestSchema.safeParse({
      ...sent,
      website: form.get("website") ?? "",
      formToken: form.get("formToken") || undefined,
    });
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue): [unknown, string] => [
        issue.path[0],
        issue.message,
      ]);
      return answer(400, formPage(typed, problems, enquiries));
    }
    const enquiry = parsed.data;
    const title = enquiries.serviceTitle(enquiry.service);
    if (enquiry.formToken === undefined && !enquiry.website) {
      if (!isServiceChoice(enquiries.services, enquiry.service)) {
        const problem: [string, string] = ["service", "Choose a service from the list."];
        return answer(400, formPage(typed, [problem], enquiries));
      }
      // An address that looks mistyped is asked about once, in the form, before the review.
      const mistyped = mistypedAddress(form);
      // The time of the first post, carried through "Did you mean …?" to the review.
      const since = tokens.carried(form.get("since"));
      if (mistyped) return answer(200, formPage(typed, [], enquiries, false, mistyped, since));
      return answer(200, reviewPage(enquiry, title, since));
    }
    const outcome = await enquiries.submit(enquiry, { ip: request.ip, visitorId: null });
    if (outcome.outcome === "received") {
      if (outcome.id !== null) await attribute(request, "enquiry");
      return reply.redirect(sentPath, 303);
    }
    const { refusal } = outcome;
    // A quick second step is shown the enquiry again with its time (not spent, so pressed
    // again it goes); a stale or spent one with a new time.
    if (refusal.code === "too_fast" || refusal.code === "form_token_invalid") {
      const token =
        refusal.code === "too_fast" ? tokens.carried(enquiry.formToken) : tokens.issue();
      return answer(refusal.status, reviewPage(enquiry, title, token, reviewProblem(refusal)));
    }
    if (refusal.retryAfterSeconds) reply.header("retry-after", String(refusal.retryAfterSeconds));
    return answer(refusal.status, formPage(typed, [[refusal.field, refusal.message]], enquiries));
  });

  const unknownLink = page(
    "Nothing to delete",
    paragraph(
      "This link is not known: the enquiry it came with has been deleted already, or the link was copied incompletely.",
    ),
  );

  app.get("/enquiries/delete", async (request, reply) => {
    const token = queryToken(request);
    if (!isToken(token) || !(await enquiries.repository.senderTokenKnown(token))) {
      return send(reply, 404, unknownLink);
    }
    return send(
      reply,
      200,
      page(
        "Delete your enquiry?",
        `${paragraph("This deletes every enquiry sent from the address this link was mailed to, with the answers and mails about them. It cannot be undone.")}
<form method="post" action="/enquiries/delete">
${hidden("token", token)}
<button type="submit" class="danger">Delete my enquiry</button>
</form>
${paragraph("Nothing happens until you press the button.", "note")}`,
      ),
    );
  });

  app.post("/enquiries/delete", async (request, reply) => {
    if (!fromSite(request, siteOrigin)) {
      return send(reply, 403, page("Nothing was deleted", fromElsewhere(siteOrigin)));
    }
    const form = formFields(request);
    const token = form.get("token") ?? "";
    const deleted = isToken(token)
      ? await trail.act(
          (trx) => enquiries.deleteBySender(token, trx),
          // A press that found them gone (another's, at the same moment) writes none.
          (count) => !!count && ["enquiry deleted by its sender", `${count} deleted`],
        )
      : null;
    if (deleted === null) return send(reply, 404, unknownLink);
    return send(
      reply,
      200,
      page(
        "Your enquiry is deleted",
        paragraph(
          "It is gone from this site, with everything stored about it. No further mail about it will be sent.",
        ),
      ),
    );
  });
};
