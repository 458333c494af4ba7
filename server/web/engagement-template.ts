import {
  type CommentPosition,
  decodeCommentCursor,
  type ReactionCounts,
} from "../../contract/api.ts";
import type { ShownMention } from "../../contract/fediverse.ts";
import { decodeHtmlEntities, scriptJson } from "../../contract/html.ts";
import type { ItemKind } from "../../contract/limits.ts";
import type { LiveComment } from "../../contract/live-events.ts";
import { commentAnchor, countOf, threadsOf } from "../../contract/threads.ts";
import type { SharedPage } from "../engagement/read-cache.ts";
import { type Representation, representation } from "../lib/representation.ts";
import type * as Markup from "./engagement-markup.ts";
import { bytesOf, type SiteFile } from "./site-files.ts";

/*
 * A built page's placeholders for engagement (app/pages/*.astro), read into a
 * template, and the template filled in: counts, comments and mentions drawn
 * by the islands' components, and schema.org data for search engines.
 * server/web/engagement-pages.ts serves the results.
 */

/**
 * The list pages whose cards carry their engagement, by the kind of their
 * items; each item of those kinds also has its own page below it
 * (/science/soap, app/pages/[section]/[slug].astro).
 */
export const kinds: ItemKind[] = ["science", "mythology"];
/**
 * The other sections, whose items' own pages carry only what the open web
 * said of them (webmentions, docs/fediverse.md).
 */
export const mentionsOnly = ["technical", "non-technical", "mechfusion-ai"];

/** What the build leaves in those pages for the server to fill in (app/pages/*.astro). */
const fragmentTag = "<ewe-fragment";
const placeholder =
  /<ewe-fragment(?: slot="head")? data-for="([^"]+)" data-part="(summary|comments|jsonld|mentions)"(?: data-title="([^"]*)")?(?: data-base="([^"]*)")?><\/ewe-fragment>/g;

/** `base`: an item page's own JSON-LD, which the server completes with the item's engagement. */
type Hole = {
  itemId: string;
  part: "summary" | "comments" | "jsonld" | "mentions";
  base?: JsonLd;
};
type JsonLd = { "@graph": Record<string, unknown>[] };
export type Template = {
  /** The section's id: an item kind, or a section whose pages show mentions only. */
  kind: string;
  /** Whether its items have reactions (and science posts comments). */
  engaged: boolean;
  /** One item's own page rather than the list of them all. */
  single: boolean;
  pieces: (string | Hole)[];
  titles: Map<string, string>;
};
/** An item's engagement as read for one rendering of a page. */
type Live = {
  counts: Map<string, ReactionCounts>;
  comments: Map<string, SharedPage>;
  /** The comments the page shows: the opening's, or a later stretch's. */
  shownComments: Map<string, SharedPage>;
  /** On an item's own page: what the Fediverse and other sites said of it. */
  openWeb: Map<string, OpenWeb>;
};

/** An item's likes and boosts from the Fediverse, and the webmentions shown under it. */
export type OpenWeb = { fediverse: number; mentions: ShownMention[] };

export function parse(html: string, kind: string, single: boolean): Template {
  const pieces: Template["pieces"] = [];
  const titles = new Map<string, string>();
  let last = 0;
  for (const match of html.matchAll(placeholder)) {
    const [whole, target = "", part, title, base] = match;
    pieces.push(html.slice(last, match.index));
    const itemId = target.includes(":") ? target.slice(target.indexOf(":") + 1) : "";
    pieces.push({
      itemId,
      part: part as Hole["part"],
      ...(base === undefined ? {} : { base: JSON.parse(decodeHtmlEntities(base)) as JsonLd }),
    });
    if (title !== undefined) titles.set(itemId, decodeHtmlEntities(title));
    last = (match.index ?? 0) + whole.length;
  }
  pieces.push(html.slice(last));
  return { kind, engaged: (kinds as string[]).includes(kind), single, pieces, titles };
}

/**
 * The built pages of these kinds that hold a placeholder (each list page and
 * every item's own page), by address, with their file in the site's table
 * (read again when its template is first made: none is held as bytes).
 */
export function pagesOf(files: Map<string, SiteFile>, kindsShown: string[]) {
  const pages = new Map<string, { kind: string; single: boolean; file: SiteFile }>();
  for (const [address, file] of files) {
    const [, kind = "", id] = /^\/([\w-]+)(?:\/([\w-]+))?\/index\.html$/.exec(address) ?? [];
    if (!kindsShown.includes(kind) || !bytesOf(file)?.includes(fragmentTag)) continue;
    pages.set(id === undefined ? `/${kind}` : `/${kind}/${id}`, {
      kind,
      single: id !== undefined,
      file,
    });
  }
  return pages;
}

/**
 * Which comments an item page shows: the discussion as it opens, or, for
 * readers without JavaScript following "Show more comments", a stretch of its
 * folded middle (`?comments=after-<cursor>`, `.before-<cursor>` when the
 * stretch ends before the latest). A link the server did not write shows the
 * opening with a notice, answered 400
 * (docs/decisions/032-long-discussions-open-at-both-ends.md).
 */
export type CommentsView =
  | { page: "first" }
  | { page: "between"; after: CommentPosition; before?: CommentPosition }
  | { page: "broken" };

export const commentsParameter = "comments";
/** The id of an item page's comments, which the links between pages lead to. */
const commentsAnchor = "comments";
const brokenLinkNotice =
  "That link to more comments does not lead anywhere. Here are the comments from the start.";
const stretch = /^after-([\w-]+?)(?:\.before-([\w-]+))?$/;

export function commentsViewOf(value: unknown): CommentsView {
  if (value === undefined) return { page: "first" };
  const [, afterCursor, beforeCursor] = (typeof value === "string" && stretch.exec(value)) || [];
  const after = afterCursor === undefined ? null : decodeCommentCursor(afterCursor);
  const before = beforeCursor === undefined ? undefined : decodeCommentCursor(beforeCursor);
  if (!after || before === null) return { page: "broken" };
  return { page: "between", after, ...(before ? { before } : {}) };
}

const foldHref = (itemPath: string, next: string, before: string | null) =>
  `${itemPath}?${commentsParameter}=after-${next}${before ? `.before-${before}` : ""}#${commentsAnchor}`;

/**
 * schema.org `Comment`s of a page of comments: each thread's first comment
 * with its replies under it, each reply naming it as `parentItem`. A deleted
 * comment says nothing; its replies still name its place.
 */
function commentsJsonLd(comments: LiveComment[], itemUrl: string): Record<string, unknown>[] {
  const idOf = (id: number) => `${itemUrl}#${commentAnchor(id)}`;
  const node = (comment: LiveComment) => ({
    "@type": "Comment",
    "@id": idOf(comment.id),
    text: comment.content,
    dateCreated: comment.createdAt,
    author: { "@type": "Person", name: comment.userName },
  });
  return threadsOf(comments).flatMap(({ start, replies }): Record<string, unknown>[] => {
    const answers = replies.map((reply) => ({
      ...node(reply),
      parentItem: { "@type": "Comment", "@id": idOf(start.id) },
    }));
    if (start.deleted) return answers;
    return [{ ...node(start), ...(answers.length > 0 ? { comment: answers } : {}) }];
  });
}

/**
 * The page's HTML with `live`'s engagement filled in; with none, the page as
 * built: its placeholders left out, its JSON-LD what the build knew.
 */
export function compose(
  siteUrl: string,
  pagePath: string,
  template: Template,
  view: CommentsView,
  draw: typeof Markup,
  live: Live | null,
): Representation {
  const { kind } = template;
  const items = [...template.titles.keys()];
  const counts = live?.counts ?? new Map<string, ReactionCounts>();
  const comments = live?.comments ?? new Map<string, SharedPage>();
  const shownComments = live?.shownComments ?? comments;
  const engagementOf = (id: string) => {
    const reactionCounts = counts.get(id);
    if (!reactionCounts) return {};
    const page = comments.get(id);
    const reactions = Object.values(reactionCounts).reduce((a, b) => a + b, 0);
    return {
      interactionStatistic: {
        "@type": "InteractionCounter",
        interactionType: "https://schema.org/LikeAction",
        userInteractionCount: reactions,
      },
      ...(page
        ? {
            commentCount: page.total,
            comment: commentsJsonLd(page.comments, `${siteUrl}/${kind}/${id}`),
          }
        : {}),
    };
  };
  // An item page's own description of the item (its first node), completed.
  const itemJsonLd = (hole: Hole & { base: JsonLd }) => {
    const [article, ...rest] = hole.base["@graph"];
    return `<script type="application/ld+json">${scriptJson({
      ...hole.base,
      "@graph": [{ ...article, ...engagementOf(hole.itemId) }, ...rest],
    })}</script>`;
  };
  // A list page's description of its items: what the build knew of each
  // (image, dates, author, matched by url), with its engagement.
  const jsonLd = (base?: JsonLd) => {
    const built = new Map(base?.["@graph"].map((node) => [node.url, node]));
    return `<script type="application/ld+json">${scriptJson({
      "@context": "https://schema.org",
      "@graph": items.map((id) => {
        const url = `${siteUrl}${pagePath}/${id}`;
        return {
          "@type": "Article",
          "@id": `${siteUrl}${pagePath}#${id}`,
          headline: template.titles.get(id),
          ...built.get(url),
          url,
          ...engagementOf(id),
        };
      }),
    })}</script>`;
  };
  const html = template.pieces
    .map((piece) => {
      if (typeof piece === "string") return piece;
      if (piece.part === "mentions") {
        return draw.mentions({ mentions: live?.openWeb.get(piece.itemId)?.mentions ?? [] });
      }
      if (piece.part === "jsonld")
        return template.single && piece.base
          ? itemJsonLd({ ...piece, base: piece.base })
          : jsonLd(piece.base);
      const count = counts.get(piece.itemId);
      if (!count) return "";
      if (piece.part === "summary") {
        const page = comments.get(piece.itemId);
        return draw.summary({
          counts: count,
          comments: page ? page.total : null,
          fediverse: live?.openWeb.get(piece.itemId)?.fediverse ?? 0,
        });
      }
      const page = shownComments.get(piece.itemId);
      const itemPath = `/${kind}/${piece.itemId}`;
      const list = page?.comments ?? [];
      const total = page?.total ?? 0;
      const foldAfter = page?.next ? decodeCommentCursor(page.next) : null;
      const fold =
        page?.next && foldAfter
          ? {
              after: foldAfter,
              href: foldHref(itemPath, page.next, page.before),
              // Known on the opening: all it does not show.
              count: view.page === "between" ? null : total - countOf(list),
            }
          : null;
      return draw.comments({
        title: template.titles.get(piece.itemId) ?? piece.itemId,
        comments: list,
        total,
        heading: template.single ? "h3" : "h4",
        ...(template.single ? { id: commentsAnchor, anchors: true } : {}),
        fold,
        backHref: view.page === "between" ? `${itemPath}#${commentsAnchor}` : null,
        notice: view.page === "broken" ? brokenLinkNotice : null,
      });
    })
    .join("");
  return representation(html);
}
