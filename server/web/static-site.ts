import { existsSync } from "node:fs";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";

/**
 * Serves the built site from build/client: one HTML file per page,
 * hashed assets cached for a year, HTML revalidated on every visit, and
 * precompressed .br/.gz files written by the build.
 */
export async function staticSite(app: FastifyInstance, { root }: { root: string }) {
  if (!existsSync(path.join(root, "index.html"))) {
    throw new Error(`No built site in ${root}: run "npm run build" first.`);
  }
  await app.register(fastifyStatic, {
    root,
    preCompressed: true,
    index: ["index.html"],
    cacheControl: false,
    setHeaders(reply, filePath) {
      const isHashedAsset = filePath.includes(`${path.sep}assets${path.sep}`);
      reply.header(
        "Cache-Control",
        isHashedAsset
          ? "public, max-age=31536000, immutable"
          : "public, max-age=0, must-revalidate",
      );
    },
  });

  // Unknown paths get the built 404 page, which sends the reader on to "/"
  // (docs/product.md, "Unknown addresses").
  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith("/api/") || request.url === "/api") {
      return reply.code(404).send({ error: { code: "not_found", message: "No such endpoint." } });
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return reply.code(404).send({ error: { code: "not_found", message: "Not found." } });
    }
    return reply.code(404).header("Cache-Control", "no-cache").sendFile("404.html", root);
  });
}
