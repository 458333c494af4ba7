import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  type CommentPosition,
  decodeCommentCursor,
  type ReactionCounts,
} from "../../contract/api.ts";
import type { ShownMention } from "../../contract/fediverse.ts";
import { decodeHtmlEntities } from "../../contract/html.ts";
import type { ItemKind } from "../../contract/limits.ts";
import type { LiveComment } from "../../contract/live-events.ts";
import { commentAnchor, countOf, threadsOf } from "../../contract/threads.ts";
import type { ReadCache, SharedPage } from "../engagement/read-cache.ts";
import type { EventBus } from "../events/bus.ts";
import { onFirstUse } from "../lib/on-first-use.ts";
import { type Representation, representation } from "../lib/representation.ts";
import { offerSent, sendRepresentation } from "./etag.ts";
import type { FastPages } from "./fast-pages.ts";
import type { SiteFile } from "./site-files.ts";

/**
 * React and the components that draw an item's engagement, loaded with the
 * first page that needs them drawn rather than with every start: a server
 * nobody has asked for /science yet holds neither.
 */
const markup = onFirstUse(() => import("./engagement-markup.ts"));
type Markup = Awaited<ReturnType<typeof markup>>;

/**
 * The list pages whose cards carry their engagement, by the kind of their
 * items; each item of those kinds also has its own page below it
 * (/science/soap, app/pages/[section]/[slug].astro).
 */
const kinds: ItemKind[] = ["science", "mythology"];
/**
 * The other sections, whose items' own pages carry only what the open web
 * said of them (webmentions, docs/fediverse.md).
 */
const mentionsOnly = ["technical", "non-technical", "mechfusion-ai"];

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
type Template = {
  /** The section's id: an item kind, or a section whose pages show mentions only. */
  kind: string;
  /** Whether its items have reactions (and science posts comments). */
  engaged: boolean;
  /** One item's own page rather than the list of them all. */
  single: boolean;
  pieces: (string | Hole)[];
  titles: Map<string, string>;
};
type Rendered = Representation;
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

function parse(html: string, kind: string, single: boolean): Template {
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
 * every item's own page), by address, from the site's table in memory.
 */
function pagesOf(files: Map<string, SiteFile>, kindsShown: string[]) {
  const pages = new Map<string, { kind: string; single: boolean; bytes: Buffer }>();
  for (const [address, file] of files) {
    const [, kind = "", id] = /^\/([\w-]+)(?:\/([\w-]+))?\/index\.html$/.exec(address) ?? [];
    if (!kindsShown.includes(kind) || !file.bytes?.includes(fragmentTag)) continue;
    pages.set(id === undefined ? `/${kind}` : `/${kind}/${id}`, {
      kind,
      single: id !== undefined,
      bytes: file.bytes,
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
type CommentsView =
  | { page: "first" }
  | { page: "between"; after: CommentPosition; before?: CommentPosition }
  | { page: "broken" };

const commentsParameter = "comments";
/** The id of an item page's comments, which the links between pages lead to. */
const commentsAnchor = "comments";
const brokenLinkNotice =
  "That link to more comments does not lead anywhere. Here are the comments from the start.";
const stretch = /^after-([\w-]+?)(?:\.before-([\w-]+))?$/;

function commentsViewOf(value: unknown): CommentsView {
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

/** JSON for a <script>: nothing in it can close the element. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028|\u2029/g, "");

/**
 * /science and /mythology, and each of their items' own pages, as readers get
 * them (docs/architecture.md, "Pages"): the built HTML with each item's
 * engagement filled in where the build left a placeholder (its counts, a
 * science post's comments, and schema.org data for search engines), rendered
 * by the same components the islands use, from the same read cache, so an
 * item says the same on both pages. A page is rendered once from the read cache and
 * kept, compressed, until an event about one of its items arrives; its ETag
 * changes with its engagement. When the engagement cannot be read (the
 * database is away), the page goes out as built, 200, its placeholders left
 * out and its JSON-LD what the build knew; that copy is never kept.
 */
export async function engagementPages(
  app: FastifyInstance,
  {
    files,
    reads,
    bus,
    siteUrl,
    fast,
    databaseAway,
    openWeb,
  }: {
    /** The built site's table (site-files.ts), which holds every page's bytes. */
    files: Map<string, SiteFile>;
    reads: ReadCache;
    bus: Pick<EventBus, "healthy">;
    siteUrl: string;
    /**
     * Whether a failed read means the database cannot be reached (said once
     * in the log) rather than a fault of ours (logged each time); either way
     * the page goes out as built.
     */
    databaseAway: (error: unknown) => boolean;
    /** The fast path in front of Fastify, told of each page it may answer while it is current. */
    fast?: FastPages;
    /** What the open web said of an item, read for its own page (server/fediverse/). */
    openWeb?: (itemPath: string) => Promise<OpenWeb>;
  },
) {
  // Which pages hold placeholders is known at start; each is parsed into its
  // template when first asked for, so a start decodes none of them.
  const built = pagesOf(files, [...kinds, ...mentionsOnly]);
  if (built.size === 0) return;
  const templates = new Map<string, Template>();
  // An event about an item makes every page that shows it render again: a
  // page is rendered only once its template is known, which names its items.
  const pagesShowing = new Map<string, string[]>();
  function templateOf(pagePath: string): Template | undefined {
    let template = templates.get(pagePath);
    const page = built.get(pagePath);
    if (template || !page) return template;
    template = parse(page.bytes.toString("utf8"), page.kind, page.single);
    templates.set(pagePath, template);
    for (const itemId of template.titles.keys()) {
      const topic = `${template.kind}:${itemId}`;
      pagesShowing.set(topic, [...(pagesShowing.get(topic) ?? []), pagePath]);
    }
    return template;
  }
  const rendered = new Map<string, Promise<Rendered>>();
  reads.watch((topic) => {
    for (const pagePath of pagesShowing.get(topic) ?? []) rendered.delete(pagePath);
  });

  // Whether the database was away when a page last tried to read it: said once
  // in the log when it goes, once when it is back.
  let unreadable = false;
  // Each page as built, without its engagement, for when that cannot be read.
  const asBuilt = new Map<string, Rendered>();

  async function render(
    pagePath: string,
    template: Template,
    view: CommentsView = { page: "first" },
  ): Promise<Rendered> {
    const { kind, engaged } = template;
    const items = [...template.titles.keys()];
    const counts = new Map(
      engaged
        ? await Promise.all(
            items.map(async (id) => [id, await reads.counts(kind as ItemKind, id)] as const),
          )
        : [],
    );
    const comments = new Map(
      kind === "science"
        ? await Promise.all(items.map(async (id) => [id, await reads.commentPage(id)] as const))
        : [],
    );
    // An item page asked for a later page of its comments shows that page; the
    // rest (counts, JSON-LD) stays as on the first.
    const shownComments = new Map(comments);
    if (view.page === "between") {
      const { page: _, ...between } = view;
      for (const id of items) shownComments.set(id, await reads.commentPageBetween(id, between));
    }
    if (unreadable) {
      unreadable = false;
      app.log.info("the database answers again: pages carry their comments and reactions");
    }
    const fromOpenWeb = new Map<string, OpenWeb>();
    if (template.single && openWeb) {
      for (const id of items) fromOpenWeb.set(id, await openWeb(`/${kind}/${id}`));
    }
    return compose(pagePath, template, view, await markup(), {
      counts,
      comments,
      shownComments,
      openWeb: fromOpenWeb,
    });
  }

  /**
   * The page's HTML with `live`'s engagement filled in; with none, the page as
   * built: its placeholders left out, its JSON-LD what the build knew.
   */
  function compose(
    pagePath: string,
    template: Template,
    view: CommentsView,
    draw: Markup,
    live: Live | null,
  ): Rendered {
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
          ...(template.single ? { id: commentsAnchor } : {}),
          fold,
          backHref: view.page === "between" ? `${itemPath}#${commentsAnchor}` : null,
          notice: view.page === "broken" ? brokenLinkNotice : null,
        });
      })
      .join("");
    return representation(html);
  }

  function page(pagePath: string, template: Template): Promise<Rendered> {
    // While live events may be missed (PostgreSQL listener reconnecting), keep nothing.
    if (!bus.healthy) {
      rendered.clear();
      return render(pagePath, template);
    }
    let entry = rendered.get(pagePath);
    if (!entry) {
      const made = render(pagePath, template);
      entry = made;
      rendered.set(pagePath, made);
      made.catch(() => {
        if (rendered.get(pagePath) === made) rendered.delete(pagePath);
      });
      // What the open web said changes with no event (another instance, the
      // command line): an item's own page is rendered again within a minute.
      if (template.single && openWeb) {
        setTimeout(() => {
          if (rendered.get(pagePath) === made) rendered.delete(pagePath);
        }, openWebFreshMs).unref();
      }
    }
    return entry;
  }

  // The first page as a request was answered with, while it is the one kept.
  const answered = new WeakMap<FastifyRequest, { entry: Promise<Rendered>; current: Rendered }>();

  async function serve(request: FastifyRequest, reply: FastifyReply, pagePath: string) {
    const template = templateOf(pagePath);
    if (!template) return reply.callNotFound();
    const view =
      template.single && template.kind === "science"
        ? commentsViewOf((request.query as Record<string, unknown>)[commentsParameter])
        : ({ page: "first" } as const);
    // Only the first page is kept; a later one is made for its request.
    const entry = view.page === "first" ? page(pagePath, template) : null;
    let current: Rendered;
    let filled = true;
    try {
      current = entry ? await entry : await render(pagePath, template, view);
    } catch (error) {
      current = await builtPage(request, pagePath, template, error);
      filled = false;
    }
    if (view.page === "broken") reply.code(400);
    reply.header("cache-control", pageCaching).type(pageType);
    // The page as built is never offered to the fast path.
    if (filled && entry && bus.healthy) answered.set(request, { entry, current });
    return sendRepresentation(request, reply, current);
  }

  /**
   * The page as the build left it, its placeholders dropped: what a reader
   * gets while the database cannot be read (docs/health.md, "Health, process
   * managers and shutdown"), rather than an error.
   */
  async function builtPage(
    request: FastifyRequest,
    pagePath: string,
    template: Template,
    error: unknown,
  ): Promise<Rendered> {
    if (!databaseAway(error)) {
      request.log.error({ err: error }, "a page's engagement could not be filled in");
    } else if (!unreadable) {
      unreadable = true;
      request.log.warn(
        { err: error },
        "the database cannot be reached: pages are served as built, without their comments and reactions, until it answers",
      );
    }
    let asIs = asBuilt.get(pagePath);
    if (!asIs) {
      asIs = compose(pagePath, template, { page: "first" }, await markup(), null);
      asBuilt.set(pagePath, asIs);
    }
    return asIs;
  }

  /**
   * Once a kept page has gone out whole, the fast path may send it again, in
   * that coding, until a write replaces it (`rendered` no longer holds it).
   */
  function offerToFastPath(request: FastifyRequest, reply: FastifyReply, pagePath: string) {
    const kept = answered.get(request);
    if (!kept) return;
    offerSent(
      fast,
      request,
      reply,
      kept.current,
      { headers: { "cache-control": pageCaching, "content-type": pageType } },
      () => bus.healthy && rendered.get(pagePath) === kept.entry,
    );
  }

  for (const pagePath of built.keys()) {
    for (const address of [pagePath, `${pagePath}/`]) {
      app.get(
        address,
        {
          onResponse: (request, reply, done) => {
            offerToFastPath(request, reply, pagePath);
            done();
          },
        },
        (request, reply) => serve(request, reply, pagePath),
      );
    }
  }
}

const pageCaching = "public, max-age=0, must-revalidate";
/** How long an item's own page keeps what the open web said of it. */
const openWebFreshMs = 60_000;
const pageType = "text/html; charset=utf-8";
