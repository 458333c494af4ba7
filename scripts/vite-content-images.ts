import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Plugin } from "vite";

const imagesDir = path.resolve("content/images");

function listImages(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(imagesDir, path.join(entry.parentPath, entry.name)));
}

/**
 * Content images live beside the writing in content/images/ and are published at
 * /images/… : served by the dev server, copied into the client build.
 */
export function contentImages(): Plugin {
  return {
    name: "content-images",
    configureServer(server) {
      server.middlewares.use("/images", (req, res, next) => {
        const relative = decodeURIComponent((req.url ?? "").split("?")[0] ?? "");
        const file = path.join(imagesDir, relative);
        if (!file.startsWith(imagesDir + path.sep)) return next();
        try {
          const body = readFileSync(file);
          res.setHeader(
            "Content-Type",
            file.endsWith(".svg") ? "image/svg+xml" : "application/octet-stream",
          );
          res.end(body);
        } catch {
          next();
        }
      });
    },
    generateBundle() {
      if (this.environment.name !== "client") return;
      for (const relative of listImages(imagesDir)) {
        this.emitFile({
          type: "asset",
          fileName: `images/${relative.split(path.sep).join("/")}`,
          source: readFileSync(path.join(imagesDir, relative)),
        });
      }
    },
  };
}
