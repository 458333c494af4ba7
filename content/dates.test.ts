import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readContentHistory } from "./history.ts";
import { defaultContentRoot, loadContent } from "./load.ts";

/*
 * Honest dates, against real git repositories made for each test: the first
 * commit is 2026-11-22 and the build's clock 2026-12-01.
 */
let dir: string;
let root: string;
const now = new Date("2026-12-01T12:00:00Z");

function git(cwd: string, args: string[], date = "2026-11-22T10:00:00Z") {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Owner",
      GIT_AUTHOR_EMAIL: "owner@example.com",
      GIT_COMMITTER_NAME: "Owner",
      GIT_COMMITTER_EMAIL: "owner@example.com",
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    },
  });
}

function edit(file: string, change: (source: string) => string) {
  const full = path.join(root, file);
  writeFileSync(full, change(readFileSync(full, "utf8")));
}

/** The piece as first published: its date set (or left out), and no revision date. */
const setPublished = (value: string | null) => (source: string) =>
  source
    .replace(/^updated:.*\n/m, "")
    .replace(/^published:.*\n/m, value === null ? "" : `published: ${value}\n`);

const soap = (content: ReturnType<typeof loadContent>) =>
  content.science.find((post) => post.id === "soap");

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "content-git-"));
  root = path.join(dir, "content");
  cpSync(defaultContentRoot, root, { recursive: true });
  // The writing's own revision days may be later than this test's clock: these tests
  // are about published dates, so the copy keeps none.
  for (const file of readdirSync(root, { recursive: true, encoding: "utf8" })) {
    if (file.endsWith(".md")) edit(file, (source) => source.replace(/^updated:.*\n/m, ""));
  }
  git(dir, ["init", "-q", "-b", "main"]);
  git(dir, ["add", "."]);
  git(dir, ["commit", "-q", "-m", "First"]);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("published dates, with the whole history", () => {
  it("take the first commit's day when the frontmatter has none", () => {
    edit("science/soap.md", setPublished(null));
    expect(soap(loadContent(root, { now }))?.published).toBe("2026-11-22");
  });

  it("refuse a date earlier than the file's first commit, naming both", () => {
    edit("science/soap.md", setPublished("2025-06-14"));
    expect(() => loadContent(root, { now })).toThrow(
      /science\/soap\.md: published \(2025-06-14\) is earlier than the file's first commit \(2026-11-22\)/,
    );
  });

  it("accept an earlier date when the piece is marked imported", () => {
    edit("science/soap.md", (source) =>
      setPublished("2025-06-14")(source).replace(/^order:.*$/m, "$&\nimported: true"),
    );
    expect(soap(loadContent(root, { now }))?.published).toBe("2025-06-14");
  });

  it("refuse imported without the date the piece first appeared", () => {
    edit("science/soap.md", (source) =>
      setPublished(null)(source).replace(/^order:.*$/m, "$&\nimported: true"),
    );
    expect(() => loadContent(root, { now })).toThrow(
      /science\/soap\.md: imported: true needs the published date/,
    );
  });

  it("refuse a date in the future, published or updated", () => {
    edit("science/soap.md", setPublished("2026-12-03"));
    expect(() => loadContent(root, { now })).toThrow(
      /science\/soap\.md: published \(2026-12-03\) is in the future/,
    );
    edit("science/soap.md", (source) =>
      setPublished("2026-11-23")(source).replace(/^order:.*$/m, "$&\nupdated: 2027-01-01"),
    );
    expect(() => loadContent(root, { now })).toThrow(
      /science\/soap\.md: updated \(2027-01-01\) is in the future/,
    );
  });

  it("accept today wherever today is somewhere on Earth", () => {
    edit("science/soap.md", setPublished("2026-12-02"));
    expect(soap(loadContent(root, { now }))?.published).toBe("2026-12-02");
  });

  it("keep the first date across a rename", () => {
    git(dir, ["mv", "content/science/soap.md", "content/science/soap-bubbles.md"]);
    git(dir, ["commit", "-q", "-m", "Rename"], "2026-11-28T10:00:00Z");
    edit("science/soap-bubbles.md", setPublished(null));
    expect(readContentHistory(root).firstCommit.get("science/soap-bubbles.md")).toBe("2026-11-22");
    expect(soap(loadContent(root, { now }))?.published).toBe("2026-11-22");
  });

  it("give a file that is not committed yet the build's day", () => {
    cpSync(path.join(root, "science/soap.md"), path.join(root, "science/soap-film.md"));
    edit("science/soap-film.md", (source) =>
      setPublished(null)(source).replace(/^id: .*$/m, "id: soap-film"),
    );
    const film = loadContent(root, { now }).science.find((post) => post.id === "soap-film");
    expect(film?.published).toBe("2026-12-01");
  });

  it("refuse a file not committed yet dated before today, which its first commit would refuse", () => {
    cpSync(path.join(root, "science/soap.md"), path.join(root, "science/soap-film.md"));
    edit("science/soap-film.md", (source) =>
      setPublished("2026-11-25")(source).replace(/^id: .*$/m, "id: soap-film"),
    );
    expect(() => loadContent(root, { now })).toThrow(
      /science\/soap-film\.md: published \(2026-11-25\) is before today, and the file is not committed yet/,
    );
    edit("science/soap-film.md", (source) => source.replace(/^order:.*$/m, "$&\nimported: true"));
    expect(
      loadContent(root, { now }).science.find((post) => post.id === "soap-film")?.published,
    ).toBe("2026-11-25");
    // Today, wherever the author's calendar shows it, stands.
    edit("science/soap-film.md", setPublished("2026-12-01"));
    expect(
      loadContent(root, { now }).science.find((post) => post.id === "soap-film")?.published,
    ).toBe("2026-12-01");
  });
});

describe("published dates without the whole history", () => {
  it("in a shallow clone, keep the written dates and refuse a missing one", () => {
    git(dir, ["commit", "-q", "--allow-empty", "-m", "Later"], "2026-11-29T10:00:00Z");
    const clone = path.join(dir, "clone");
    git(dir, ["clone", "-q", "--depth", "1", `file://${dir}`, clone]);
    const cloned = path.join(clone, "content");
    expect(readContentHistory(cloned).kind).toBe("shallow");
    // The boundary commit shows every file as new, on 2026-11-29; the dates written stand.
    expect(soap(loadContent(cloned, { now }))?.published).toBe("2026-11-22");
    writeFileSync(
      path.join(cloned, "science/soap.md"),
      setPublished(null)(readFileSync(path.join(cloned, "science/soap.md"), "utf8")),
    );
    expect(() => loadContent(cloned, { now })).toThrow(
      /science\/soap\.md: no published date, and this shallow clone does not reach the file's first commit/,
    );
  });

  it("with no repository at all, keep the written dates and refuse a missing one", () => {
    rmSync(path.join(dir, ".git"), { recursive: true, force: true });
    expect(readContentHistory(root).kind).toBe("none");
    edit("science/soap.md", setPublished("2025-06-14"));
    expect(soap(loadContent(root, { now }))?.published).toBe("2025-06-14");
    edit("science/soap.md", setPublished(null));
    expect(() => loadContent(root, { now })).toThrow(
      /science\/soap\.md: no published date, and no git history to read it from/,
    );
  });
});
