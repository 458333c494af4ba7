import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ItemKind } from "../../contract/limits.ts";

/** The ids of the stories and science posts people may react to and comment on. */
export type Catalog = { readonly [kind in ItemKind]: ReadonlySet<string> };

export function hasItem(catalog: Catalog, kind: ItemKind, id: string): boolean {
  return catalog[kind].has(id);
}

/**
 * Reads the `id:` frontmatter line of content/mythology/*.md and
 * content/science/*.md. The content build validates those files fully; the
 * server only needs their ids.
 */
export function readCatalog(contentRoot: string): Catalog {
  const idsIn = (folder: string) =>
    new Set(
      readdirSync(path.join(contentRoot, folder))
        .filter((file) => file.endsWith(".md"))
        .map((file) => {
          const text = readFileSync(path.join(contentRoot, folder, file), "utf8");
          const frontmatter = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? "";
          const id = /^id:\s*["']?([^"'\r\n]+?)["']?\s*$/m.exec(frontmatter)?.[1];
          if (!id) throw new Error(`content/${folder}/${file} has no id in its frontmatter`);
          return id;
        }),
    );
  return { mythology: idsIn("mythology"), science: idsIn("science") };
}
