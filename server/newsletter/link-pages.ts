import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import { confirmRequestSchema, unsubscribeTokenSchema } from "../../contract/newsletter.ts";
import { storeFailureOf } from "../db/errors.ts";
import type { Engagement } from "../engagement/index.ts";
import {
  type ActionPage,
  fromElsewhere,
  fromSite,
  linkPages,
  paragraph,
  queryToken,
} from "../lib/action-page.ts";

/**
 * The newsletter's mailed links without JavaScript (docs/product.md,
 * "Without JavaScript"). The pages at `/newsletter/confirm` and
 * `/unsubscribe` are built, and their island reads the link's token; without
 * script, their button is an ordinary form that posts back to the same
 * address, token and all, and is answered here with a page of its own.
 * Opening a link still changes nothing: only the button's POST, from this
 * site, does. The subscription form's second page without script posts on
 * to the API from here.
 */
export const newsletterLinkPages: FastifyPluginAsync<{
  engagement: Pick<Engagement, "subscribers">;
  siteUrl: string;
  /** Attributes a confirmed subscription to the reader's visit (server/readers/), plugged in by the composition root. */
  attribute?: (request: FastifyRequest, kind: "subscription") => Promise<void>;
}> = async (app, { engagement, siteUrl, attribute }) => {
  const siteOrigin = new URL(siteUrl).origin;
  app.addContentTypeParser(
    ["application/x-www-form-urlencoded", "multipart/form-data"],
    { parseAs: "string", bodyLimit: 2048 },
    (_request, _body, done) => done(null, null),
  );
  const send = linkPages(app, {
    note: "Engage with Engineer · newsletter",
    mail: "the newsletter's mail",
    failure: "newsletter link failed",
    failureOf: storeFailureOf,
  });
  const elsewhere: ActionPage = { title: "Nothing was changed", body: fromElsewhere(siteOrigin) };
  const unknownLink = (what: string, more = ""): ActionPage => ({
    title: "This link is not known",
    body: paragraph(
      `It may have been copied incompletely. Open the ${what} link exactly as it is in the mail.${more}`,
    ),
  });

  app.post("/newsletter/confirm", async (request, reply) => {
    if (!fromSite(request, siteOrigin)) return send(reply, 403, elsewhere);
    const token = confirmRequestSchema.shape.token.safeParse(queryToken(request));
    const outcome = token.success ? await engagement.subscribers.confirm(token.data) : "unknown";
    if (outcome === "unknown") {
      // An address never confirmed is forgotten a week after its mail, with its links.
      return send(
        reply,
        404,
        unknownLink(
          "confirmation",
          " A link more than a week old is forgotten with the address it was sent to: subscribe again with the form at the foot of any page.",
        ),
      );
    }
    if (outcome === "expired") {
      return send(reply, 410, {
        title: "This link has expired",
        body: paragraph(
          "Confirmation links work for 48 hours. Subscribe again with the form at the foot of any page to get a new one.",
        ),
      });
    }
    if (outcome === "used") {
      return send(reply, 200, {
        title: "Already confirmed",
        body: paragraph(
          "This link has been used already, so the subscription it was mailed for is confirmed. Nothing more to do.",
        ),
      });
    }
    await attribute?.(request, "subscription");
    return send(reply, 200, {
      title: "Subscription confirmed",
      body: paragraph(
        "Thank you: your subscription is confirmed. The next edition will come to this address.",
      ),
    });
  });

  app.post("/unsubscribe", async (request, reply) => {
    if (!fromSite(request, siteOrigin)) return send(reply, 403, elsewhere);
    const token = unsubscribeTokenSchema.safeParse(queryToken(request));
    const outcome = token.success
      ? await engagement.subscribers.unsubscribe(token.data)
      : "unknown";
    if (outcome === "unknown") return send(reply, 404, unknownLink("unsubscribe"));
    return send(reply, 200, {
      title: "Unsubscribed",
      body: paragraph(
        outcome === "already"
          ? "This link's subscription had ended already, and no edition is sent under it. If editions still come to this address, the unsubscribe link in the newest one stops them."
          : "Done: no more editions will be sent to this address.",
      ),
    });
  });

  // The no-JavaScript form's second page posts to its own address, which
  // carries the sealed ticket; 307 keeps the POST on its way to the API.
  app.post("/newsletter/continue", async (request, reply) => {
    const { ticket } = request.query as { ticket?: unknown };
    const safe = typeof ticket === "string" && /^[A-Za-z0-9_-]{1,800}$/.test(ticket);
    return reply.redirect(`/api/newsletter/continue?ticket=${safe ? ticket : ""}`, 307);
  });
};
