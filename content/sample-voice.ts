import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { plural } from "../contract/plural.ts";
import { ContentError, defaultContentRoot, Problems } from "./frontmatter.ts";
import { sampleVoiceMarkerAnywhere, sampleVoiceMarkerLine } from "./sample-voice-marker.ts";

/*
 * The sample engineer's first-person passages (README, "First run"): the stories
 * from practice written for the invented owner of content/owner.md, each between
 * a line `<!-- sample-voice -->` and a line `<!-- /sample-voice -->`. The markers
 * render nothing; `npm run content:check` lists the passages, and production
 * refuses to start under any other name while one remains (server/config.ts).
 */

/** Where a sample passage opens: the file, and the line of its opening marker (from 1). */
type SamplePassage = { file: string; line: number };

/**
 * The passages of one file's text, checked: each marker on a line of its own,
 * each passage closed, none inside another. A problem throws a ContentError
 * naming the file.
 */
export function samplePassages(file: string, source: string): SamplePassage[] {
  const passages: SamplePassage[] = [];
  let open: number | null = null;
  source.split(/\r?\n/).forEach((text, index) => {
    const line = index + 1;
    const marker = sampleVoiceMarkerLine.exec(text);
    if (!marker) {
      if (sampleVoiceMarkerAnywhere.test(text)) {
        throw new ContentError(
          `${file}: line ${line}: a sample-voice marker goes on a line of its own`,
        );
      }
      return;
    }
    const closing = marker[1] === "/";
    if (closing && open === null) {
      throw new ContentError(`${file}: line ${line}: <!-- /sample-voice --> closes no passage`);
    }
    if (!closing && open !== null) {
      throw new ContentError(
        `${file}: line ${line}: a sample-voice passage opens inside the one opened on line ${open}`,
      );
    }
    if (closing) {
      passages.push({ file, line: open as number });
      open = null;
    } else {
      open = line;
    }
  });
  if (open !== null) {
    throw new ContentError(
      `${file}: line ${open}: the sample-voice passage is never closed (<!-- /sample-voice -->)`,
    );
  }
  return passages;
}

/**
 * Every sample passage in the Markdown files below each folder (content/ and
 * the newsletter's editions), with paths as `label/relative`. A folder that
 * does not exist holds none; `FORMAT.md`, which describes the markers, is not
 * writing.
 */
export function findSamplePassages(folders: { dir: string; label: string }[]): SamplePassage[] {
  const found: SamplePassage[] = [];
  const problems = new Problems();
  const walk = (dir: string, label: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const full = path.join(dir, entry.name);
      const name = `${label}/${entry.name}`;
      if (entry.isDirectory()) walk(full, name);
      else if (entry.name.endsWith(".md") && entry.name !== "FORMAT.md") {
        const source = readFileSync(full, "utf8");
        if (sampleVoiceMarkerAnywhere.test(source)) {
          found.push(...problems.attempt(() => samplePassages(name, source), []));
        }
      }
    }
  };
  for (const { dir, label } of folders) walk(dir, label);
  problems.throwAny();
  return found;
}

/** Where the writing is: content/, and the newsletter's editions (EDITIONS_DIR), as the owner names them. */
export function writingFolders(editionsDir: string | undefined) {
  const editions = editionsDir?.trim() || "./newsletter";
  return [
    { dir: defaultContentRoot, label: "content" },
    { dir: path.resolve(editions), label: editions.replace(/^\.\/|\/+$/g, "") },
  ];
}

/** "content/about.md (3 passages), newsletter/01-pressure.md": the files holding passages. */
export function describeSampleFiles(passages: SamplePassage[]): string {
  const counts = new Map<string, number>();
  for (const { file } of passages) counts.set(file, (counts.get(file) ?? 0) + 1);
  return [...counts]
    .map(([file, count]) => (count === 1 ? file : `${file} (${count} passages)`))
    .join(", ");
}

/** What `npm run content:check` says of the passages that remain, each by file and line. */
export function listSamplePassages(passages: SamplePassage[]): string {
  const remain = passages.length === 1 ? "remains" : "remain";
  const list = passages.map(({ file, line }) => `\n  ${file}:${line}`).join("");
  return `${plural(passages.length, "first-person passage")} written for the sample engineer ${remain} (between <!-- sample-voice --> lines); rewrite each from your own practice or delete it before going live under your name (README, First run):${list}`;
}
