import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { z } from "zod";
import { errorResponseSchema } from "../../../contract/api.ts";
import { readBeaconSchema, viewBeaconSchema } from "../../../contract/readers.ts";
import type { Readers } from "../../readers/service.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The pages' beacon: not a reader's write, so outside the write limits. */
    beacon?: boolean;
  }
}

const errors = { "4xx": errorResponseSchema, "5xx": errorResponseSchema };

/**
 * The beacon every page sends once it has loaded and is visible, and again
 * when an article is read (docs/product.md, "Readers"). It is always answered
 * 204, counted or not, so the answer tells nobody what was stored; a path
 * that is not a page of the site is not counted.
 */
export const readerRoutes: FastifyPluginAsyncZod<{
  readers: Readers;
  isPage(path: string): boolean;
}> = async (app, { readers, isPage }) => {
  const pageOf = (path: string) => {
    const page = path.length > 1 ? path.replace(/\/+$/, "") : path;
    return isPage(page) ? page : null;
  };
  const config = { beacon: true };

  app.post(
    "/readers/view",
    {
      config,
      schema: {
        summary: "Count a page view (the pages' beacon, after load, when the page is visible)",
        description:
          "Not counted: a bot, a prefetch or prerender, Sec-GPC: 1 or DNT: 1, the owner's browser, ANALYTICS=off. No cookie is read or set; the reader is a hash of the day.",
        tags: ["readers"],
        querystring: viewBeaconSchema,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      const { p, r, q, z: timeZone } = request.query;
      const path = pageOf(p);
      if (path) await readers.view(request, { path, referrer: r, query: q, timeZone });
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/readers/read",
    {
      config,
      schema: {
        summary: "Count an engaged read of an article: its end reached, or 30 s in view",
        tags: ["readers"],
        querystring: readBeaconSchema,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      const path = pageOf(request.query.p);
      // Articles and posts have a page of their own, a section's path and theirs.
      if (path && /^\/[^/]+\/[^/]+$/.test(path)) await readers.read(request, path);
      return reply.code(204).send(null);
    },
  );
};
