import type { FastifyPluginAsync } from "fastify";
import { storeFailureOf } from "../db/errors.ts";
import {
  type ActionPage,
  acceptForms,
  formFields,
  fromElsewhere,
  fromSite,
  hidden,
  isOneClickBody,
  linkPages,
  paragraph,
  queryToken,
} from "../lib/action-page.ts";
import { isToken } from "../lib/tokens.ts";
import type { ReplyWatches } from "./reply-watches.ts";

/**
 * The pages behind the links of reply mails (docs/product.md, "Reply mails"):
 * opening a link changes nothing (mail scanners open links); a button on the
 * page posts, from this site only. The one-click address (RFC 8058) acts on a
 * POST from the reader's mail provider, with the token as its authority.
 * Every answer is a page of our own: no address from the request is followed.
 */
type ReplyRouteDeps = { watches: ReplyWatches; siteUrl: string };

const note = "Engage with Engineer · reply mails";

const unknownLink: ActionPage = {
  note,
  title: "This link is not known",
  body: paragraph(
    "It may have been copied incompletely, or the mails it belonged to were already stopped. Use the link exactly as it is in the mail.",
  ),
};

export const replyMailRoutes: FastifyPluginAsync<ReplyRouteDeps> = async (
  app,
  { watches, siteUrl },
) => {
  const siteOrigin = new URL(siteUrl).origin;

  // The pages' forms; of a multipart body, only the one-click unsubscribe (RFC 8058).
  acceptForms(app, 2048);
  app.addContentTypeParser(
    "multipart/form-data",
    { parseAs: "string", bodyLimit: 2048 },
    (request, body, done) => {
      const oneClick = isOneClickBody(request.headers["content-type"], body as string);
      done(null, new URLSearchParams(oneClick ? { "List-Unsubscribe": "One-Click" } : {}));
    },
  );

  const send = linkPages(app, {
    note,
    mail: "the mail",
    failure: "reply mail link failed",
    failureOf: storeFailureOf,
  });

  const elsewhere: ActionPage = { title: "Nothing was changed", body: fromElsewhere(siteOrigin) };

  app.get("/replies/confirm", async (request, reply) => {
    const token = queryToken(request);
    return send(reply, 200, {
      title: "Confirm reply notifications",
      body: `${paragraph("Press Confirm to be mailed when someone replies in the conversations you wrote in with this address. Each mail has a link to stop them.")}
<form method="post" action="/replies/confirm">
${hidden("token", token)}
<button type="submit">Confirm</button>
</form>
${paragraph("Nothing happens until you press the button.", "note")}`,
    });
  });

  app.post("/replies/confirm", async (request, reply) => {
    if (!fromSite(request, siteOrigin)) return send(reply, 403, elsewhere);
    const outcome = await watches.confirm(formFields(request).get("token") ?? "");
    if (outcome === "unknown") return send(reply, 404, unknownLink);
    if (outcome === "expired") {
      return send(reply, 410, {
        title: "This link has expired",
        body: paragraph(
          "Confirmation links work for 48 hours. Tick “Email me when someone replies” under your next comment to get a new one.",
        ),
      });
    }
    if (outcome === "already") {
      return send(reply, 200, {
        title: "Already confirmed",
        body: paragraph(
          "This link has been used already, so this address is confirmed: replies in your conversations are mailed to it. Nothing more to do.",
        ),
      });
    }
    return send(reply, 200, {
      title: "Reply notifications confirmed",
      body: paragraph(
        "Thank you. From now on, when someone replies in a conversation you wrote in with this address, you get a mail.",
      ),
    });
  });

  app.get("/replies/unsubscribe", async (request, reply) => {
    const token = queryToken(request);
    const target = await watches.unsubscribeTarget(token);
    if (!target) return send(reply, 404, unknownLink);
    const form = (
      scope: "thread" | "all",
      label: string,
    ) => `<form method="post" action="/replies/unsubscribe">
${hidden("token", token)}
${hidden("scope", scope)}
<p><button type="submit">${label}</button></p>
</form>`;
    return send(reply, 200, {
      title: "Stop reply mails",
      body: `${paragraph("Which mails should stop?")}
${target.watchId === null ? "" : form("thread", "Stop mails for this thread")}
${form("all", "Stop all reply mails")}
${paragraph("Stopping all of them also forgets this address.", "note")}`,
    });
  });

  app.post("/replies/unsubscribe", async (request, reply) => {
    if (!fromSite(request, siteOrigin)) return send(reply, 403, elsewhere);
    const body = formFields(request);
    const scope = body.get("scope") === "all" ? "all" : "thread";
    const outcome = await watches.unsubscribe(body.get("token") ?? "", scope);
    if (outcome === "unknown") return send(reply, 404, unknownLink);
    return send(reply, 200, {
      title: "Unsubscribed",
      body: paragraph(
        scope === "all"
          ? "No more reply mails will be sent to this address, and the site has forgotten it, keeping only a fingerprint so that nobody can have confirmation mails sent to it again."
          : "No more mails will be sent for replies in this thread.",
      ),
    });
  });

  // RFC 8058: the mail provider's POST stops the mails at once, from anywhere.
  app.post("/replies/one-click", async (request, reply) => {
    // RFC 8058: the body a mailbox provider posts.
    if (formFields(request).get("List-Unsubscribe") !== "One-Click") {
      return send(reply, 400, {
        title: "This request could not be read",
        body: paragraph("A one-click unsubscribe posts List-Unsubscribe=One-Click (RFC 8058)."),
      });
    }
    const outcome = await watches.unsubscribe(queryToken(request), "thread");
    if (outcome === "unknown") return send(reply, 404, unknownLink);
    return send(reply, 200, {
      title: "Unsubscribed",
      body: paragraph("No more mails will be sent for replies in this thread."),
    });
  });

  // A person (or a scanner) opening the one-click address is shown the page that asks.
  app.get("/replies/one-click", async (request, reply) => {
    const token = queryToken(request);
    const safe = isToken(token) ? token : "";
    return reply.redirect(`/replies/unsubscribe?token=${safe}`, 303);
  });
};
