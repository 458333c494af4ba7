import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

/*
 * When each content file first appeared on the site: the date of its first
 * commit, read from git once per build (docs/decisions/027-owner-profile-and-honest-dates.md).
 * Renames keep the first date of the file they came from. Where git cannot
 * say (no repository, no git, a file not committed yet) the history says so,
 * and the frontmatter decides.
 */

export type ContentHistory = {
  /** `full`: every commit is here; `shallow`: a shallow clone; `none`: no repository or no git. */
  kind: "full" | "shallow" | "none";
  /** YYYY-MM-DD of the first commit of each file, by path relative to the content folder. */
  firstCommit: Map<string, string>;
  /**
   * Files whose first commit here is a shallow clone's boundary: they may be
   * older, so their real first commit is unknown.
   */
  beyondBoundary: Set<string>;
};

const none: ContentHistory = { kind: "none", firstCommit: new Map(), beyondBoundary: new Set() };

function git(root: string, args: string[]): string {
  return execFileSync("git", ["-C", root, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    maxBuffer: 64 * 1024 * 1024,
    // The author's own time zone: the day the author saw on the calendar.
    env: { ...process.env, LC_ALL: "C" },
  });
}

export function readContentHistory(root: string): ContentHistory {
  let prefix: string;
  let shallow: boolean;
  try {
    if (git(root, ["rev-parse", "--is-inside-work-tree"]).trim() !== "true") return none;
    prefix = git(root, ["rev-parse", "--show-prefix"]).trim();
    shallow = git(root, ["rev-parse", "--is-shallow-repository"]).trim() === "true";
  } catch {
    return none;
  }
  let log: string;
  try {
    log = git(root, [
      "log",
      "--reverse",
      "--format=%x00%H %as",
      "--name-status",
      "-M",
      "--no-color",
      "--",
      ".",
    ]);
  } catch {
    // A repository without a single commit yet.
    return {
      kind: shallow ? "shallow" : "full",
      firstCommit: new Map(),
      beyondBoundary: new Set(),
    };
  }
  const boundary = shallow ? shallowBoundary(root) : new Set<string>();
  const firstCommit = new Map<string, string>();
  const beyondBoundary = new Set<string>();
  const relative = (file: string) => (file.startsWith(prefix) ? file.slice(prefix.length) : null);
  for (const block of log.split("\0").filter((entry) => entry.trim() !== "")) {
    const [header = "", ...lines] = block.split("\n");
    const [hash = "", date = ""] = header.split(" ");
    for (const line of lines) {
      const [status = "", ...paths] = line.split("\t");
      if (status === "A" || status.startsWith("C")) {
        const file = relative(paths.at(-1) ?? "");
        if (file === null || firstCommit.has(file)) continue;
        firstCommit.set(file, date);
        if (boundary.has(hash)) beyondBoundary.add(file);
      } else if (status.startsWith("R")) {
        const from = relative(paths[0] ?? "");
        const to = relative(paths[1] ?? "");
        if (to === null) continue;
        const inherited = from === null ? undefined : firstCommit.get(from);
        firstCommit.set(to, inherited ?? firstCommit.get(to) ?? date);
        if ((from !== null && beyondBoundary.has(from)) || boundary.has(hash))
          beyondBoundary.add(to);
      }
    }
  }
  return { kind: shallow ? "shallow" : "full", firstCommit, beyondBoundary };
}

/** The commits a shallow clone was cut at: git lists them in `.git/shallow`. */
function shallowBoundary(root: string): Set<string> {
  try {
    const file = path.resolve(root, git(root, ["rev-parse", "--git-path", "shallow"]).trim());
    return new Set(readFileSync(file, "utf8").split("\n").filter(Boolean));
  } catch {
    return new Set();
  }
}
