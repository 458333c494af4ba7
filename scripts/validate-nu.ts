import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { clientDir, projectRoot } from "./build-inputs.ts";
import { builtPages } from "./validate-html.ts";

/*
 * `npm run lint:nu`: the W3C's Nu HTML Checker (the `vnu-jar` package, run by
 * Java; Debian's default-jre-headless, which scripts/ensure-system-deps.sh
 * installs) over every page the build wrote (BUILD_DIR/client/**\/*.html),
 * offline. Any error fails it; warnings are not reported. It reads what
 * html-validate (`npm run lint:html`) does not: HTML's own parsing rules and
 * the ARIA-in-HTML rules (docs/decisions/034-valid-html.md).
 *
 * Pages are checked as the server sends them: the `<ewe-fragment>`
 * placeholders the build leaves for the server (server/web/engagement-pages.ts,
 * server/web/search-page.ts) are replaced with what the server puts there, in
 * shape: a JSON-LD script for `jsonld`, nothing for the rest (what it sends for
 * an item it has no engagement for). Left as they are, the one in `<head>`
 * would end the head where no served page does.
 */

const require = createRequire(import.meta.url);

/** A built page as the server sends it, with its placeholders filled in shape. */
function asServed(html: string): string {
  return html.replace(
    /<ewe-fragment\b[^>]*\bdata-part="([a-z-]+)"[^>]*><\/ewe-fragment>/g,
    (_whole, part: string) =>
      part === "jsonld" ? '<script type="application/ld+json">{}</script>' : "",
  );
}

/**
 * Runs the Nu checker over the pages of `root`: the errors, one line each
 * ("page:line.column-line.column: error: message"), and how many pages it read.
 */
function checkPages(root: string): { pages: number; errors: string[] } {
  const pages = builtPages(root);
  const copy = mkdtempSync(path.join(tmpdir(), "ewe-nu-"));
  try {
    for (const page of pages) {
      const target = path.join(copy, page);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, asServed(readFileSync(path.join(root, page), "utf8")));
    }
    const jar = require.resolve("vnu-jar/build/dist/vnu.jar");
    const run = spawnSync(
      "java",
      [
        // A run of seconds: Java's quick compiler alone and one garbage
        // collector thread, not the optimising compiler's and the parallel
        // collector's threads, which cost the machine twice the CPU for the
        // same findings. The quick compiler's frames are larger, and the
        // checker's schema is deeply recursive: a deeper stack.
        "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC",
        "-Xss8m",
        "-jar",
        jar,
        "--errors-only",
        "--format",
        "gnu",
        "--skip-non-html",
        copy,
      ],
      { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
    );
    if (run.error) throw run.error;
    const output = `${run.stdout}${run.stderr}`;
    const errors = output
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => line.replace(`"file:${copy}/`, '"').replace(/^"([^"]+)":/, "$1:"));
    if (run.status !== 0 && errors.length === 0) {
      throw new Error(`The Nu checker stopped (exit ${run.status}) without saying why`);
    }
    return { pages: pages.length, errors };
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const where = path.relative(projectRoot, clientDir) || clientDir;
  if (spawnSync("java", ["-version"]).error) {
    console.error(
      "The Nu checker needs Java: install Debian's default-jre-headless (scripts/ensure-system-deps.sh does).",
    );
    process.exit(1);
  }
  const { pages, errors } = checkPages(clientDir);
  if (pages === 0) {
    console.error(`No built pages in ${where}/: run npm run build first (or set BUILD_DIR).`);
    process.exit(1);
  }
  if (errors.length > 0) {
    console.error(errors.map((line) => `${where}/${line}`).join("\n"));
    console.error(`${errors.length} Nu checker errors in the pages of ${where}/`);
    process.exit(1);
  }
  console.info(`Nu checker OK: ${pages} pages in ${where}/`);
}
