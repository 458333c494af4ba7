import type { FastifyPluginAsync } from "fastify";
import { isbot } from "isbot";
import { escapeHtml } from "../../contract/html.ts";
import { storeFailureOf } from "../db/errors.ts";
import { linkPages, paragraph } from "../lib/action-page.ts";
import { addressSignature, keyFor, sameSecret } from "../lib/tokens.ts";
import { markedLink } from "../outbox/mail-layout.ts";
import type { EditionsRepository } from "./editions-repository.ts";

/**
 * What each edition's links did (docs/mail.md, "What an edition did"): every
 * web link of an edition is sent as a redirect on the site's own address,
 * `/newsletter/click/<edition>/<link>/<signature>`, and a visit adds one to
 * that link's counter before it sends the reader on. Nothing records who
 * followed it: the address is the same in every subscriber's copy, and the
 * counter is the only thing written. The signature (an HMAC with a key of the
 * site's) means a changed address is refused, and the target is read from the
 * database, never from the address: the redirect can lead nowhere else.
 * A link to the site's own pages is sent on marked as the newsletter's
 * (utm_source=newsletter, the edition's slug as campaign: `markedLink`), which the Readers
 * screen counts by; a link that names its own utm_source, or leads elsewhere, goes as written.
 */

type TrackedLink = { position: number; url: string };

export const clickKeyOf = (cookieSecret: string) => keyFor(cookieSecret, "edition click links");

const signature = (key: string, editionId: number, position: number) =>
  addressSignature(key, `click ${editionId} ${position}`);

/** The edition's body with each tracked link pointing at its redirect, in the HTML and the text. */
export function withTrackedLinks(
  body: { html: string; text: string },
  links: TrackedLink[],
  { siteUrl, key, editionId }: { siteUrl: string; key: string; editionId: number },
): { html: string; text: string } {
  let { html, text } = body;
  // Longest first, so that a link is never rewritten inside a longer one.
  for (const { position, url } of [...links].sort((a, b) => b.url.length - a.url.length)) {
    const tracked = `${siteUrl}/newsletter/click/${editionId}/${position}/${signature(key, editionId, position)}`;
    html = html.replaceAll(`href="${escapeHtml(url)}"`, `href="${escapeHtml(tracked)}"`);
    // A bare address may end a sentence: punctuation after it is not part of it.
    text = text.replace(
      new RegExp(`${url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?=[.,;:!?]*(?:[\\s\\])>]|$))`, "g"),
      tracked,
    );
  }
  return { html, text };
}

export const editionClicks: FastifyPluginAsync<{
  editions: Pick<EditionsRepository, "click">;
  key: string;
  siteUrl: string;
}> = async (app, { editions, key, siteUrl }) => {
  const send = linkPages(app, {
    note: "Engage with Engineer · newsletter",
    mail: "the newsletter's mail",
    failure: "newsletter click failed",
    failureOf: storeFailureOf,
  });
  app.get("/newsletter/click/:edition/:position/:signature", async (request, reply) => {
    const params = request.params as Record<string, string>;
    const editionId = /^[1-9]\d{0,9}$/.test(params.edition ?? "") ? Number(params.edition) : 0;
    const position = /^(0|[1-9]\d{0,3})$/.test(params.position ?? "")
      ? Number(params.position)
      : -1;
    const valid =
      editionId > 0 &&
      position >= 0 &&
      sameSecret(String(params.signature ?? ""), signature(key, editionId, position));
    // Mail scanners and link previews follow links too: they are sent on, not counted.
    const link = valid
      ? await editions.click(editionId, position, {
          count: !isbot(request.headers["user-agent"] ?? ""),
        })
      : null;
    if (!link) {
      return send(reply, 404, {
        title: "This link is not known",
        body: paragraph(
          "It may have been copied incompletely. Open the link exactly as it is in the newsletter's mail.",
        ),
      });
    }
    return reply
      .header("cache-control", "no-store")
      .redirect(markedLink(siteUrl, link.url, link.slug, "newsletter"), 302);
  });
};
