import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { firstCallHole } from "../../content/service-page.ts";
import { escapeHtml } from "../../contract/html.ts";
import { callTerms } from "../../contract/time-zones.ts";
import { type Representation, representation, sendRepresentation } from "../lib/representation.ts";
import type { Bookings } from "./service.ts";

/** How long the terms read are used: a change by another process shows within it. */
const keptMs = 1000;

const headers = {
  "cache-control": "public, max-age=0, must-revalidate",
  "content-type": "text/html; charset=utf-8",
};

/** server/web/etag.ts's `offerSent`, bound to the fast path by app.ts. */
export type OfferSent = (
  request: FastifyRequest,
  reply: FastifyReply,
  page: Representation,
  headers: Record<string, string>,
  current: () => boolean,
) => void;

/**
 * The service pages that offer a first call (content/service-page.ts, `firstCallHole`),
 * each with the call's length and whether it is free as the owner set them in the
 * console's Bookings hours, read again at least once a second, so every page agrees with /book
 * (docs/product.md, "Services"). A page is made once for the terms it says and kept,
 * compressed and with its validator, until they change. The database away, the page
 * goes out as built, its sentence without the call's terms.
 */
export async function firstCallPages(
  app: FastifyInstance,
  {
    bookings,
    root,
    pageOf,
    offer,
  }: {
    bookings: Pick<Bookings, "repository">;
    root: string;
    /**
     * A built page's bytes by its address, read from the site's table (app.ts) when the
     * terms change, and not kept: holding the sample's nine service pages as text took
     * some 650 KB of heap.
     */
    pageOf: (address: string) => Buffer | undefined;
    /**
     * Once a page has gone out whole, the fast path in front of Fastify may send it
     * again while `current()` (server/web/etag.ts, `offerSent`; given by app.ts).
     */
    offer?: OfferSent;
  },
) {
  const services = path.join(root, "services");
  /**
   * The terms as last read, for a second, or until this process writes the settings: a
   * page's read costs no query under load.
   */
  let read: { at: number; writes: number; terms: Promise<string> } | undefined;
  const { repository } = bookings;
  const fresh = () =>
    read !== undefined && read.writes === repository.writes() && Date.now() - read.at < keptMs;
  const terms = () => {
    if (read && fresh()) return read.terms;
    read = {
      at: Date.now(),
      writes: repository.writes(),
      terms: repository.availability().then(
        (availability) => `(${escapeHtml(callTerms(availability))})`,
        () => "",
      ),
    };
    return read.terms;
  };
  for (const id of existsSync(services) ? readdirSync(services) : []) {
    const built = `/services/${id}/index.html`;
    if (!pageOf(built)?.includes(firstCallHole)) continue;
    let kept: { terms: string; page: Representation } | undefined;
    const show = async (request: FastifyRequest, reply: FastifyReply) => {
      const now = await terms();
      if (kept?.terms !== now) {
        // Gone since the start (the build took it away): not found, as after a restart.
        const bytes = pageOf(built);
        if (!bytes) return reply.callNotFound();
        const page = bytes.toString("utf8").split(firstCallHole).join(now);
        kept = { terms: now, page: representation(page) };
      }
      reply.headers(headers);
      return sendRepresentation(request, reply, kept.page);
    };
    // The page kept when the terms were last read: past that second, the route reads them again.
    const onResponse = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const page = kept?.page;
      if (page) offer?.(request, reply, page, headers, () => fresh() && kept?.page === page);
      done();
    };
    for (const address of [`/services/${id}`, `/services/${id}/`, `/services/${id}/index.html`]) {
      app.get(address, { onResponse }, show);
    }
  }
}
