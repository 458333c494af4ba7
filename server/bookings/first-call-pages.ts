import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";
import { firstCallHole } from "../../content/service-page.ts";
import { escapeHtml } from "../../contract/html.ts";
import { callTerms } from "../../contract/time-zones.ts";
import { sendPage } from "../lib/action-page.ts";
import type { Bookings } from "./service.ts";

/**
 * The service pages that offer a first call (content/service-page.ts, `firstCallHole`),
 * each with the call's length and whether it is free as the owner set them in the
 * console's Bookings hours, read at each request, so every page agrees with /book
 * (docs/product.md, "Services"). The database away, the page goes out as built, its
 * sentence without the call's terms.
 */
export async function firstCallPages(
  app: FastifyInstance,
  { bookings, root }: { bookings: Pick<Bookings, "repository">; root: string },
) {
  const services = path.join(root, "services");
  for (const id of existsSync(services) ? readdirSync(services) : []) {
    const built = path.join(services, id, "index.html");
    const parts = existsSync(built) ? readFileSync(built, "utf8").split(firstCallHole) : [];
    if (parts.length < 2) continue;
    const show = async (_request: unknown, reply: FastifyReply) => {
      const terms = await bookings.repository.availability().then(
        (availability) => `(${escapeHtml(callTerms(availability))})`,
        () => "",
      );
      return sendPage(reply, 200, parts.join(terms), { indexed: true });
    };
    for (const address of [`/services/${id}`, `/services/${id}/`, `/services/${id}/index.html`]) {
      app.get(address, show);
    }
  }
}
