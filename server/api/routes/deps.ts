import type { FastifyReply, FastifyRequest } from "fastify";
import type { ItemKind } from "../../../contract/limits.ts";
import type { Catalog, Engagement } from "../../engagement/index.ts";
import type { EventBus } from "../../events/bus.ts";
import { notFound } from "../errors.ts";
import { issueVisitor } from "../guards.ts";
import type { NewsletterDeps } from "../newsletter-rules.ts";

/** What the route plugins need from the app. */
export type RouteDeps = {
  engagement: Engagement;
  catalog: Catalog;
  bus: EventBus;
  siteUrl: string;
  newsletter: NewsletterDeps;
};

const kindNames: Record<ItemKind, string> = { mythology: "story", science: "science post" };

export function requireItem(catalog: Catalog, kind: ItemKind, id: string): void {
  if (!catalog[kind].has(id)) throw notFound(`There is no ${kindNames[kind]} "${id}".`);
}

/**
 * The identity a reaction or comment is stored under: the visitor's cookie, or
 * a new one set on this response. Called only once the request is valid, so a
 * refused request leaves no cookie behind.
 */
export function writerOf(request: FastifyRequest, reply: FastifyReply, siteUrl: string): string {
  request.visitorId ??= issueVisitor(request, reply, siteUrl);
  return request.visitorId;
}
