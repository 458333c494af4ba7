import { createElement as h } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import {
  EngagementSummary,
  outbound,
  StaticComments,
} from "../../app/features/comments/comment-view.ts";
import type { ShownMention } from "../../contract/fediverse.ts";

/*
 * An item's engagement drawn as HTML by the components the islands use
 * (server/web/engagement-pages.ts), and its webmentions, which only the server
 * draws. A module of its own so that React and its server renderer are
 * imported with the first page that is filled in, not with every start.
 */

type Props<C> = C extends (props: infer P) => unknown ? P : never;

export const summary = (props: Props<typeof EngagementSummary>) =>
  renderToStaticMarkup(h(EngagementSummary, props));

export const comments = (props: Props<typeof StaticComments>) =>
  renderToStaticMarkup(h(StaticComments, props));

export const mentions = (props: Props<typeof OpenWebMentions>) =>
  renderToStaticMarkup(h(OpenWebMentions, props));

const hostOf = (address: string) => URL.parse(address)?.host ?? address;

const said: Record<ShownMention["kind"], string> = {
  reply: "replied",
  like: "liked this",
  repost: "shared this",
  mention: "mentioned this",
};

/*
 * What the rest of the web said about an item, under its comments on its own
 * page: the webmentions the owner let through (docs/fediverse.md, "Webmention").
 * Text and links only; every link leaves the site as a reader's link does.
 */
function OpenWebMentions({ mentions }: { mentions: ShownMention[] }) {
  if (mentions.length === 0) return null;
  return h(
    "section",
    {
      "aria-labelledby": "mentions-heading",
      className: "open-web-mentions mt-6 space-y-3 border-t border-line pt-5",
    },
    h(
      "h2",
      { id: "mentions-heading", className: "font-semibold text-slate-100" },
      "Mentions ",
      h("span", { className: "text-slate-400" }, `(${mentions.length})`),
    ),
    h(
      "ul",
      { className: "space-y-3" },
      mentions.map((mention) => {
        const who = mention.authorName ?? hostOf(mention.authorUrl ?? mention.source);
        return h(
          "li",
          { key: mention.id, className: "rounded-xl border border-line p-3 text-sm" },
          h(
            "p",
            { className: "text-slate-300" },
            mention.authorUrl
              ? h(
                  "a",
                  {
                    href: mention.authorUrl,
                    rel: outbound,
                    className: "font-semibold text-slate-100 underline underline-offset-2",
                  },
                  who,
                )
              : h("span", { className: "font-semibold text-slate-100" }, who),
            ` ${said[mention.kind]} on `,
            h(
              "a",
              {
                href: mention.source,
                rel: outbound,
                className: "text-accent underline underline-offset-2",
              },
              hostOf(mention.source),
            ),
          ),
          mention.content
            ? h("p", { className: "mt-2 break-words text-slate-300" }, mention.content)
            : null,
        );
      }),
    ),
  );
}
