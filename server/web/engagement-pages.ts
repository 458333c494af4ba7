import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { EngagementSummary, StaticComments } from "../../app/features/comments/comment-view.ts";
import type { ItemKind } from "../../contract/limits.ts";
import type { ReadCache } from "../engagement/read-cache.ts";
import type { EventBus } from "../events/bus.ts";
import { type Representation, representation, sendRepresentation } from "./etag.ts";

/** The pages whose cards carry their engagement, and the kind of their items. */
const pages: Record<string, ItemKind> = { "/science": "science", "/mythology": "mythology" };

/** What the build leaves in those pages for the server to fill in (app/pages/*.astro). */
const placeholder =
  /<ewe-fragment(?: slot="head")? data-for="([^"]+)" data-part="(summary|comments|jsonld)"(?: data-title="([^"]*)")?><\/ewe-fragment>/g;

type Hole = { itemId: string; part: "summary" | "comments" | "jsonld" };
type Template = { pieces: (string | Hole)[]; titles: Map<string, string> };
type Rendered = Representation;

const entities: Record<string, string> = {
  "&amp;": "&",
  "&quot;": '"',
  "&#39;": "'",
  "&#x27;": "'",
  "&lt;": "<",
  "&gt;": ">",
};
const unescapeAttribute = (value: string) =>
  value.replace(/&(?:amp|quot|#39|#x27|lt|gt);/g, (entity) => entities[entity] ?? entity);

function parse(html: string): Template {
  const pieces: Template["pieces"] = [];
  const titles = new Map<string, string>();
  let last = 0;
  for (const match of html.matchAll(placeholder)) {
    const [whole, target = "", part, title] = match;
    pieces.push(html.slice(last, match.index));
    const itemId = target.includes(":") ? target.slice(target.indexOf(":") + 1) : "";
    pieces.push({ itemId, part: part as Hole["part"] });
    if (title !== undefined) titles.set(itemId, unescapeAttribute(title));
    last = (match.index ?? 0) + whole.length;
  }
  pieces.push(html.slice(last));
  return { pieces, titles };
}

/** JSON for a <script>: nothing in it can close the element. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028|\u2029/g, "");

/**
 * /science and /mythology as readers get them (docs/architecture.md,
 * "Pages"): the built HTML with each card's engagement filled in where the
 * build left a placeholder (its counts on the collapsed card, a science post's
 * comments, and schema.org data for search engines), rendered by the same
 * components the islands use. A page is rendered once from the read cache and
 * kept, compressed, until an event about one of its items arrives; its ETag
 * changes with its engagement.
 */
export async function engagementPages(
  app: FastifyInstance,
  {
    root,
    reads,
    bus,
    siteUrl,
  }: { root: string; reads: ReadCache; bus: Pick<EventBus, "healthy">; siteUrl: string },
) {
  const templates = new Map<string, Template>();
  for (const pagePath of Object.keys(pages)) {
    const file = path.join(root, pagePath, "index.html");
    if (!existsSync(file)) continue;
    const template = parse(readFileSync(file, "utf8"));
    if (template.pieces.length > 1) templates.set(pagePath, template);
  }
  if (templates.size === 0) return;

  const rendered = new Map<string, Promise<Rendered>>();
  reads.watch((topic) => {
    const kind = topic.slice(0, topic.indexOf(":"));
    for (const [pagePath, pageKind] of Object.entries(pages)) {
      if (pageKind === kind) rendered.delete(pagePath);
    }
  });

  async function render(pagePath: string, template: Template, kind: ItemKind): Promise<Rendered> {
    const items = [...template.titles.keys()];
    const counts = new Map(
      await Promise.all(items.map(async (id) => [id, await reads.counts(kind, id)] as const)),
    );
    const comments = new Map(
      kind === "science"
        ? await Promise.all(items.map(async (id) => [id, await reads.commentList(id)] as const))
        : [],
    );
    const jsonLd = () =>
      `<script type="application/ld+json">${scriptJson({
        "@context": "https://schema.org",
        "@graph": items.map((id) => {
          const list = comments.get(id);
          const reactions = Object.values(counts.get(id) ?? {}).reduce((a, b) => a + b, 0);
          return {
            "@type": "Article",
            "@id": `${siteUrl}${pagePath}#${id}`,
            headline: template.titles.get(id),
            url: `${siteUrl}${pagePath}#${id}`,
            interactionStatistic: {
              "@type": "InteractionCounter",
              interactionType: "https://schema.org/LikeAction",
              userInteractionCount: reactions,
            },
            ...(list
              ? {
                  commentCount: list.length,
                  comment: list.map((comment) => ({
                    "@type": "Comment",
                    text: comment.content,
                    dateCreated: comment.createdAt,
                    author: { "@type": "Person", name: comment.userName },
                  })),
                }
              : {}),
          };
        }),
      })}</script>`;
    const html = template.pieces
      .map((piece) => {
        if (typeof piece === "string") return piece;
        if (piece.part === "jsonld") return jsonLd();
        const count = counts.get(piece.itemId);
        if (!count) return "";
        if (piece.part === "summary") {
          const list = comments.get(piece.itemId);
          return renderToStaticMarkup(
            createElement(EngagementSummary, {
              counts: count,
              comments: list ? list.length : null,
            }),
          );
        }
        return renderToStaticMarkup(
          createElement(StaticComments, { comments: comments.get(piece.itemId) ?? [] }),
        );
      })
      .join("");
    return representation(html);
  }

  function page(pagePath: string, template: Template, kind: ItemKind): Promise<Rendered> {
    // While live events may be missed (PostgreSQL listener reconnecting), keep nothing.
    if (!bus.healthy) {
      rendered.clear();
      return render(pagePath, template, kind);
    }
    let entry = rendered.get(pagePath);
    if (!entry) {
      entry = render(pagePath, template, kind);
      rendered.set(pagePath, entry);
      entry.catch(() => {
        if (rendered.get(pagePath) === entry) rendered.delete(pagePath);
      });
    }
    return entry;
  }

  async function serve(request: FastifyRequest, reply: FastifyReply, pagePath: string) {
    const template = templates.get(pagePath);
    const kind = pages[pagePath];
    if (!template || !kind) return reply.callNotFound();
    const current = await page(pagePath, template, kind);
    reply
      .header("cache-control", "public, max-age=0, must-revalidate")
      .type("text/html; charset=utf-8");
    return sendRepresentation(request, reply, current);
  }

  for (const pagePath of templates.keys()) {
    app.get(pagePath, (request, reply) => serve(request, reply, pagePath));
    app.get(`${pagePath}/`, (request, reply) => serve(request, reply, pagePath));
  }
}
