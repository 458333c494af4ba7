import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/*
 * `npm run bench -- --record`: the run's figures appended to their section of
 * docs/benchmarks.md, dated, with the machine and the settings they were
 * measured with, so a decision record can point to them and never carry them.
 */

export const benchmarksFile = path.resolve(import.meta.dirname, "../docs/benchmarks.md");
export const benchSection = "## Reads and live events (`npm run bench`)";

/** `markdown` with `entry` added at the end of the section headed `heading`. */
export function appendToSection(markdown: string, heading: string, entry: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`docs/benchmarks.md has no section "${heading}"`);
  const next = markdown.indexOf("\n## ", start + heading.length + 2);
  const end = next === -1 ? markdown.length : next + 1;
  const section = markdown.slice(0, end).trimEnd();
  return `${section}\n${entry.trimEnd()}\n${next === -1 ? "" : `\n${markdown.slice(end)}`}`;
}

/** One run as a list item: what measured it, on what, then its lines as printed. */
export function runEntry(
  lines: string[],
  { date, settings }: { date: Date; settings: Record<string, string | number> },
): string {
  const machine = `${os.cpus().length} cores, load average ${os.loadavg()[0]?.toFixed(1)} at the end`;
  const with_ = Object.entries(settings)
    .map(([name, value]) => `${name}=${value}`)
    .join(" ");
  return [
    `- \`npm run bench -- --record\` (${date.toISOString().slice(0, 10)}, ${machine}; ${with_}):`,
    "",
    "  ```",
    ...lines.map((line) => `  ${line}`),
    "  ```",
  ].join("\n");
}

/** Appends the run to docs/benchmarks.md. */
export function recordRun(lines: string[], settings: Record<string, string | number>): void {
  const markdown = readFileSync(benchmarksFile, "utf8");
  const entry = runEntry(lines, { date: new Date(), settings });
  writeFileSync(benchmarksFile, appendToSection(markdown, benchSection, entry));
}
