import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  type ConfigData,
  type DOMReadyEvent,
  formatterFactory,
  type HtmlElement,
  HtmlValidate,
  type Plugin,
  type Report,
  Rule,
  StaticConfigLoader,
} from "html-validate";
import { decodeHtmlEntities } from "../contract/html.ts";
import { clientDir, projectRoot } from "./build-inputs.ts";
import { loadFaults } from "./page-loads.ts";

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
 *
 * `--nu` (`npm run lint:nu`): the W3C's Nu HTML Checker instead (the `vnu-jar`
 * package, run by Java; Debian's default-jre-headless, which
 * scripts/ensure-system-deps.sh installs), offline. Any error fails it;
 * warnings are not reported. It reads what html-validate does not: HTML's own
 * parsing rules and the ARIA-in-HTML rules.
 *
 * The Nu checker reads the pages as the server sends them: the
 * `<ewe-fragment>` placeholders the build leaves for the server
 * (server/web/engagement-pages.ts, server/web/search-page.ts) are replaced with
 * what the server puts there, in shape: a JSON-LD script for `jsonld`, nothing
 * for the rest (what it sends for an item it has no engagement for). Left as
 * they are, the one in `<head>` would end the head where no served page does.
 *
 * It is also the check of what the owner's writing can break on every built
 * page, where axe reads one page of each layout in Chromium
 * (docs/decisions/067-axe-per-layout-and-tests-on-the-bundle.md): an image
 * without `alt` (wcag/h37), a link or button with no text (wcag/h30,
 * text-content), an empty heading, headings that skip a level or a second
 * `<h1>` (heading-level, from html-validate's document preset), a repeated id
 * (no-dup-id), a page without a language (element-required-attributes), and,
 * by the rules below, a page without its `<h1>`, a `lang` that is no language
 * tag, a table's header cell with no text or a table with none, and words of
 * the writing run together beside a link or other inline element.
 *
 * Then, without `--nu`, what reading each page of the reading site would make
 * the browser's console report (scripts/page-loads.ts): an address the build
 * does not hold or the page's policy refuses, an inline script the policy's
 * hashes miss, an island reading an item the server does not keep.
 */

const configFile = path.join(projectRoot, ".htmlvalidate.json");

/** Every page under `root`, as paths relative to it, sorted. */
export function builtPages(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".html"))
    .sort();
}

/** `lang`'s value is a language tag: BCP 47, as `Intl` reads it. */
function isLanguageTag(value: string): boolean {
  try {
    return value.trim() !== "" && Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

/** The page has one `<h1>` (heading-level refuses a second, but not none). */
class OneH1 extends Rule {
  override setup() {
    this.on("dom:ready", ({ document }: DOMReadyEvent) => {
      if (document.getElementsByTagName("h1").length === 0) {
        this.report(document.root, "the page has no <h1>");
      }
    });
  }
}

/**
 * Each `lang` in the page is a language tag (element-required-attributes
 * refuses an `<html>` without one).
 */
class PageLanguage extends Rule {
  override setup() {
    this.on("dom:ready", ({ document }: DOMReadyEvent) => {
      for (const element of document.querySelectorAll("[lang]")) {
        const value = element.getAttributeValue("lang") ?? "";
        if (!isLanguageTag(value)) {
          this.report(element, `lang="${value}" is not a language tag`);
        }
      }
    });
  }
}

/** A table has header cells, each with text to announce (axe's empty-table-header). */
class TableHeaders extends Rule {
  override setup() {
    this.on("dom:ready", ({ document }: DOMReadyEvent) => {
      for (const table of document.getElementsByTagName("table")) {
        const headers = table.querySelectorAll("th");
        if (headers.length === 0) this.report(table, "<table> has no header cell");
        for (const header of headers) {
          if (header.textContent.trim() === "" && !header.hasAttribute("aria-label")) {
            this.report(header, "<th> has no text");
          }
        }
      }
    });
  }
}

/** Elements whose text a reader reads as words of their own (tests/e2e/text-spacing.spec.ts). */
const wordElements = new Set(["a", "strong", "em", "b", "i", "code", "time", "abbr", "kbd"]);
/** The elements the writing's Markdown lays out on a line with the text around them. */
const inlineElements = new Set([
  ...wordElements,
  "span",
  "sup",
  "sub",
  "mark",
  "small",
  "s",
  "del",
  "ins",
  "q",
  "cite",
]);
/**
 * In the writing (`.prose-content`, the Markdown of items and services), an
 * inline element's text does not touch a letter or digit of the text beside
 * it on its line ("see[the table](…)" reads "seethe table"): the rule
 * text-spacing.spec.ts checks in Chromium on one page of each source, read
 * here on every page, where every such element is inline (app/app.css).
 */
class WordsApart extends Rule {
  override setup() {
    this.on("dom:ready", ({ document }: DOMReadyEvent) => {
      const word = /[\p{L}\p{N}]/u;
      // A word, or the punctuation that a space follows ("terms:owner@…").
      const wordOrStop = /[\p{L}\p{N},:;!?]/u;
      for (const prose of document.querySelectorAll(".prose-content")) {
        // Its text nodes in order, each with the elements it lies in, outermost first.
        const texts: { text: string; within: HtmlElement[] }[] = [];
        const walk = (element: HtmlElement, within: HtmlElement[]) => {
          for (const child of element.childNodes) {
            if (child.nodeType === 3)
              texts.push({ text: decodeHtmlEntities(child.textContent), within });
            else if (child.nodeType === 1) {
              const inner = child as HtmlElement;
              walk(inner, [...within, inner]);
            }
          }
        };
        walk(prose, [prose]);
        /** The two lie on one line: every element below the one holding both is inline. */
        const oneLine = (a: HtmlElement[], b: HtmlElement[]) => {
          let shared = 0;
          while (a[shared] && a[shared] === b[shared]) shared += 1;
          return [...a.slice(shared), ...b.slice(shared)].every((at) =>
            inlineElements.has(at.tagName),
          );
        };
        texts.forEach(({ within }, index) => {
          const before = texts[index - 1];
          // Each word element this text node is the first text of.
          within.forEach((element, depth) => {
            if (!wordElements.has(element.tagName) || before?.within.includes(element)) return;
            const own = decodeHtmlEntities(element.textContent);
            const path = within.slice(0, depth + 1);
            const after = texts[texts.findLastIndex((entry) => entry.within.includes(element)) + 1];
            if (
              before &&
              wordOrStop.test(before.text.at(-1) ?? "") &&
              word.test(own[0] ?? "") &&
              oneLine(before.within, path)
            ) {
              this.report(element, `"${before.text.slice(-20)}|${own.slice(0, 20)}" runs together`);
            }
            if (
              after &&
              word.test(own.at(-1) ?? "") &&
              word.test(after.text[0] ?? "") &&
              oneLine(after.within, path)
            ) {
              this.report(element, `"${own.slice(-20)}|${after.text.slice(0, 20)}" runs together`);
            }
          });
        });
      }
    });
  }
}

/** The rules above, which html-validate's presets do not have. */
const pagePlugin: Plugin = {
  name: "ewe-pages",
  rules: {
    "ewe/one-h1": OneH1,
    "ewe/page-language": PageLanguage,
    "ewe/table-headers": TableHeaders,
    "ewe/words-apart": WordsApart,
  },
};

const validator = () => {
  const config = JSON.parse(readFileSync(configFile, "utf8")) as ConfigData;
  return new HtmlValidate(
    new StaticConfigLoader({
      ...config,
      plugins: [...(config.plugins ?? []), pagePlugin],
      rules: {
        ...config.rules,
        "ewe/one-h1": "error",
        "ewe/page-language": "error",
        "ewe/table-headers": "error",
        "ewe/words-apart": "error",
      },
    }),
  );
};

/** Validates every page under `root` with the repository's configuration. */
export async function validatePages(root: string): Promise<{ pages: string[]; report: Report }> {
  const pages = builtPages(root);
  const report = await validator().validateMultipleFiles(
    pages.map((page) => path.join(root, page)),
  );
  return { pages, report };
}

/** The same check of one page the server writes (its pages are not in the build): its mistakes, by rule. */
export async function htmlMistakes(html: string): Promise<string[]> {
  const report = await validator().validateString(html);
  return report.results.flatMap((result) =>
    result.messages.map((message) => `${message.ruleId}: ${message.message}`),
  );
}

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
 * The frame's render-blocking `<link rel="expect">` (docs/decisions/075-first-paint-after-the-frame.md),
 * which HTML allows (`blocking` on a link whose `rel` is stylesheet or expect) and the Nu
 * checker, older than that, refuses: its refusal is dropped, and only on a page whose one
 * blocking link is that one, so any other link's is still reported.
 */
const expectLink = '<link rel="expect" href="#main" blocking="render">';
function expectRefused(line: string, root: string): boolean {
  if (!line.includes("“link” element with a “blocking” attribute")) return false;
  const page = /^"file:[^"]*?\/ewe-nu-[^/]+\/([^"]+)"/.exec(line)?.[1];
  if (!page) return false;
  const html = readFileSync(path.join(root, page), "utf8");
  return html.split("blocking=").length === 2 && html.includes(expectLink);
}

/**
 * Runs the Nu checker over `pages` of `root`: the errors, one line each
 * ("page:line.column-line.column: error: message").
 */
function nuErrors(root: string, pages: string[]): string[] {
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
    const said = output.split("\n").filter((line) => line.trim() !== "");
    const errors = said
      .filter((line) => !expectRefused(line, root))
      .map((line) => line.replace(`"file:${copy}/`, '"').replace(/^"([^"]+)":/, "$1:"));
    if (run.status !== 0 && said.length === 0) {
      throw new Error(`The Nu checker stopped (exit ${run.status}) without saying why`);
    }
    return errors;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const nu = process.argv.includes("--nu");
  const where = path.relative(projectRoot, clientDir) || clientDir;
  if (nu && spawnSync("java", ["-version"]).error) {
    console.error(
      "The Nu checker needs Java: install Debian's default-jre-headless (scripts/ensure-system-deps.sh does).",
    );
    process.exit(1);
  }
  const pages = builtPages(clientDir);
  if (pages.length === 0) {
    if (process.argv.includes("--if-built")) {
      console.info(`No built pages in ${where}/: their HTML is checked once they are built.`);
      process.exit(0);
    }
    console.error(`No built pages in ${where}/: run npm run build first (or set BUILD_DIR).`);
    process.exit(1);
  }
  const label = nu ? "Nu checker" : "HTML";
  const { report } = nu ? { report: null } : await validatePages(clientDir);
  const nuFound = nu ? nuErrors(clientDir, pages) : [];
  const count = report ? report.errorCount : nuFound.length;
  if (count > 0) {
    console.error(
      report
        ? formatterFactory("text")(report.results).replaceAll(`${projectRoot}/`, "")
        : nuFound.map((line) => `${where}/${line}`).join("\n"),
    );
    console.error(`${count} ${label} errors in the pages of ${where}/`);
  }
  const loads = nu ? [] : loadFaults(clientDir, pages);
  if (loads.length > 0) {
    console.error(loads.map((line) => `${where}/${line}`).join("\n"));
    console.error(`${loads.length} faults a browser would report reading the pages of ${where}/`);
  }
  if (count > 0 || loads.length > 0) process.exit(1);
  console.info(
    `${label} OK: ${pages.length} pages in ${where}/${nu ? "" : ", and what they load"}`,
  );
}
