import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ItemKind } from "../../contract/limits.ts";
import type { ReadCache } from "../engagement/read-cache.ts";
import type { EventBus } from "../events/bus.ts";
import { onFirstUse } from "../lib/on-first-use.ts";
import type { Representation } from "../lib/representation.ts";
import { sendRepresentation } from "../lib/representation.ts";
import {
  type CommentsView,
  commentsParameter,
  commentsViewOf,
  compose,
  kinds,
  mentionsOnly,
  type OpenWeb,
  pagesOf,
  parse,
  type Template,
} from "./engagement-template.ts";
import { offerSent } from "./etag.ts";
import type { FastPages } from "./fast-pages.ts";
import { bytesOf, cacheControl, type SiteFile } from "./site-files.ts";

/**
 * React and the components that draw an item's engagement, loaded with the
 * first page that needs them drawn rather than with every start: a server
 * nobody has asked for /science yet holds neither.
 */
const markup = onFirstUse(() => import("./engagement-markup.ts"));

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
     * Whether a failed read means the database cannot be reached or
     * answered too late (said once in the log) rather than a fault of ours
     * (logged each time); either way the page goes out as built.
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
    const bytes = bytesOf(page.file);
    if (!bytes) return undefined;
    template = parse(bytes.toString("utf8"), page.kind, page.single);
    templates.set(pagePath, template);
    for (const itemId of template.titles.keys()) {
      const topic = `${template.kind}:${itemId}`;
      pagesShowing.set(topic, [...(pagesShowing.get(topic) ?? []), pagePath]);
    }
    return template;
  }
  const rendered = new Map<string, Promise<Representation>>();
  reads.watch((topic) => {
    for (const pagePath of pagesShowing.get(topic) ?? []) rendered.delete(pagePath);
  });

  // Whether the database was away when a page last tried to read it: said once
  // in the log when it goes, once when it is back.
  let unreadable = false;
  // Each page as built, without its engagement, for when that cannot be read.
  const asBuilt = new Map<string, Representation>();

  async function render(
    pagePath: string,
    template: Template,
    view: CommentsView = { page: "first" },
  ): Promise<Representation> {
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
    return compose(siteUrl, pagePath, template, view, await markup(), {
      counts,
      comments,
      shownComments,
      openWeb: fromOpenWeb,
    });
  }

  function page(pagePath: string, template: Template): Promise<Representation> {
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
  const answered = new WeakMap<
    FastifyRequest,
    { entry: Promise<Representation>; current: Representation }
  >();

  async function serve(request: FastifyRequest, reply: FastifyReply, pagePath: string) {
    const template = templateOf(pagePath);
    if (!template) return reply.callNotFound();
    const view =
      template.single && template.kind === "science"
        ? commentsViewOf((request.query as Record<string, unknown>)[commentsParameter])
        : ({ page: "first" } as const);
    // Only the first page is kept; a later one is made for its request.
    const entry = view.page === "first" ? page(pagePath, template) : null;
    let current: Representation;
    let filled = true;
    try {
      current = entry ? await entry : await render(pagePath, template, view);
    } catch (error) {
      current = await builtPage(request, pagePath, template, error);
      filled = false;
    }
    if (view.page === "broken") reply.code(400);
    reply.header("cache-control", cacheControl.revalidate).type(pageType);
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
  ): Promise<Representation> {
    if (!databaseAway(error)) {
      request.log.error({ err: error }, "a page's engagement could not be filled in");
    } else if (!unreadable) {
      unreadable = true;
      request.log.warn(
        { err: error },
        "the database cannot be reached or answers too late: pages are served as built, without their comments and reactions, until it answers",
      );
    }
    let asIs = asBuilt.get(pagePath);
    if (!asIs) {
      asIs = compose(siteUrl, pagePath, template, { page: "first" }, await markup(), null);
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
      { headers: { "cache-control": cacheControl.revalidate, "content-type": pageType } },
      () => bus.healthy && rendered.get(pagePath) === kept.entry,
    );
  }

  for (const pagePath of built.keys()) {
    // Every address the built page has: its file's own too, or that would be sent unfilled.
    for (const address of [pagePath, `${pagePath}/`, `${pagePath}/index.html`]) {
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

/** How long an item's own page keeps what the open web said of it. */
const openWebFreshMs = 60_000;
const pageType = "text/html; charset=utf-8";
