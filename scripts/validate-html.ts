import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  type ConfigData,
  formatterFactory,
  HtmlValidate,
  type Report,
  StaticConfigLoader,
} from "html-validate";
import { clientDir, projectRoot } from "./build-inputs.ts";

/*
 * `npm run lint:html`: html-validate over every page the build wrote
 * (BUILD_DIR/client/**\/*.html), with the repository's .htmlvalidate.json.
 * That file is JSON, which has no comments: why each rule it changes is
 * changed is in docs/decisions/034-valid-html.md. In short, the pages are
 * written by two renderers that disagree on spelling (Astro writes `<meta>` and
 * `required`, React `<input/>`, `required=""` and `autoComplete`), Radix writes
 * two inline styles of its own, React's ids start with `_`, a title's length
 * is counted with `&#39;` as five characters, and the two navigation
 * landmarks named "Main" are never displayed together.
 *
 * `--if-built` (what `npm run lint` passes) checks the pages only when a
 * build is there, so that linting a fresh checkout needs no build.
 */

const configFile = path.join(projectRoot, ".htmlvalidate.json");

/** Every page under `root`, as paths relative to it, sorted. */
export function builtPages(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".html"))
    .sort();
}

/** Validates every page under `root` with the repository's configuration. */
export async function validatePages(root: string): Promise<{ pages: string[]; report: Report }> {
  const config = JSON.parse(readFileSync(configFile, "utf8")) as ConfigData;
  const validator = new HtmlValidate(new StaticConfigLoader(config));
  const pages = builtPages(root);
  const report = await validator.validateMultipleFiles(pages.map((page) => path.join(root, page)));
  return { pages, report };
}

if (import.meta.main) {
  const where = path.relative(projectRoot, clientDir) || clientDir;
  const { pages, report } = await validatePages(clientDir);
  if (pages.length === 0) {
    if (process.argv.includes("--if-built")) {
      console.info(`No built pages in ${where}/: their HTML is checked once they are built.`);
      process.exit(0);
    }
    console.error(`No built pages in ${where}/: run npm run build first (or set BUILD_DIR).`);
    process.exit(1);
  }
  if (!report.valid) {
    console.error(formatterFactory("text")(report.results).replaceAll(`${projectRoot}/`, ""));
    console.error(`${report.errorCount} HTML errors in the pages of ${where}/`);
    process.exit(1);
  }
  console.info(`HTML OK: ${pages.length} pages in ${where}/`);
}
