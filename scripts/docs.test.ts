import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { errorCodes } from "../contract/api.ts";
import { freshSignInLife, signInLinkLife } from "../contract/limits.ts";
import { startEnvironment, startFlags } from "./build-server.ts";

const root = path.join(import.meta.dirname, "..");
/** The README and the pages of docs/, which must say what is true today. */
const pages = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => `docs/${file}`),
];

/*
 * The README and the pages of docs/ name files and folders of the project,
 * and npm scripts; each must exist. The decision records are history and may
 * name what has since gone.
 */
describe("the paths and commands the docs name", () => {
  /** Folders the docs tell the owner to make. */
  const toBeMade = new Set(["content/images/owner/"]);
  const named = pages.flatMap((page) =>
    [
      ...readFileSync(path.join(root, page), "utf8").matchAll(
        /(?<![\w/.-])(?:app|bench|contract|content|docs|newsletter|public|scripts|server|tests)\/[\w./[\]-]*[\w\]/]/g,
      ),
    ].map(([found]) => ({ page, found: found.replace(/\]$/, "") })),
  );

  it("finds paths to check", () => {
    expect(named.length).toBeGreaterThan(300);
  });

  it("each npm script is one package.json has", () => {
    const scripts = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts;
    const commands = pages.flatMap((page) =>
      [
        ...readFileSync(path.join(root, page), "utf8").matchAll(
          /npm run (?:-s |--silent )?([a-z][\w:-]*)/g,
        ),
      ].map(([, name = ""]) => name),
    );
    expect(commands.length).toBeGreaterThan(20);
    expect([...new Set(commands)].filter((name) => !(name in scripts))).toEqual([]);
  });

  it("each npm script is in docs/testing.md", () => {
    const scripts = Object.keys(
      JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts,
    );
    const testing = readFileSync(path.join(root, "docs/testing.md"), "utf8");
    expect(
      scripts.filter((name) => !new RegExp(`(npm run |npm |\`)${name}\\b`).test(testing)),
    ).toEqual([]);
  });

  it("the README, the front door, links every page of docs/", () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    const unlinked = pages.filter(
      (page) => page.startsWith("docs/") && !readme.includes(`](${page})`),
    );
    expect(unlinked).toEqual([]);
  });

  it("each path exists", () => {
    const missing = named.filter(
      ({ found }) => !toBeMade.has(found) && !existsSync(path.join(root, found)),
    );
    expect(missing).toEqual([]);
  });
});

/*
 * A share image the docs give as an example is one the build draws: one per
 * item, at /og/<section>/<id>.png (content/items.ts), the item's file being
 * content/<section>/…/<id>.md.
 */
/*
 * An operator who runs the bundle as a page shows (a systemd unit, several
 * instances by hand) gets what `npm start` gives it: its Node flags and the
 * environment it sets (docs/decisions/039-server-bundle.md, 066-one-malloc-arena.md).
 */
describe("the server's start as the docs show it", () => {
  const runs = pages.flatMap((page) =>
    readFileSync(path.join(root, page), "utf8")
      .split("\n")
      .filter((line) => /node\S* (?:-\S+ )+build\/server\/main\.js/.test(line))
      .map((line) => ({ page, line })),
  );
  const settings = Object.entries(startEnvironment()).map(([name, value]) => `${name}=${value}`);

  it("finds the unit and the instances", () => {
    expect(runs.map(({ page }) => page)).toEqual(
      expect.arrayContaining(["docs/health.md", "docs/postgresql.md"]),
    );
    expect(settings).toContain("MALLOC_ARENA_MAX=1");
  });

  it("gives each npm start's flags, and its settings on the line or in the unit", () => {
    for (const { page, line } of runs) {
      const text = readFileSync(path.join(root, page), "utf8");
      for (const flag of startFlags()) expect([page, line.includes(flag)]).toEqual([page, true]);
      for (const setting of settings) {
        const set = line.includes(setting) || text.includes(`Environment=${setting}`);
        expect([page, line, set]).toEqual([page, line, true]);
      }
    }
  });
});

describe("the share images the docs name", () => {
  const named = pages.flatMap((page) =>
    [...readFileSync(path.join(root, page), "utf8").matchAll(/\/og\/[\w./-]*\.png/g)].map(
      ([found]) => ({ page, found }),
    ),
  );
  const items = (section: string) =>
    existsSync(path.join(root, "content", section))
      ? readdirSync(path.join(root, "content", section), { recursive: true, encoding: "utf8" })
      : [];

  it("are each an item's, at /og/<section>/<id>.png", () => {
    expect(named.length).toBeGreaterThan(0);
    const unknown = named.filter(({ found }) => {
      const [, section = "", id = ""] = /^\/og\/([\w-]+)\/([\w-]+)\.png$/.exec(found) ?? [];
      return !items(section).some((file) => path.basename(file) === `${id}.md`);
    });
    expect(unknown).toEqual([]);
  });
});

/*
 * The owner's commands refuse to write into a folder that is not there
 * ("There is no folder …: create it first"), so a shell block that writes into
 * a folder of the machine's (`--out /var/backups/ewe/…`) makes it first.
 */
describe("the shell blocks of the docs", () => {
  it("make each folder of the machine a command writes into before the command", () => {
    const unmade: string[] = [];
    for (const page of pages) {
      const text = readFileSync(path.join(root, page), "utf8");
      for (const [, block = ""] of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
        const made = new Set<string>();
        for (const line of block.split("\n")) {
          for (const [, folder = ""] of line.matchAll(/--out (\/\S+)\/[^\s/]+/g)) {
            if (!made.has(folder)) unmade.push(`${page}: ${folder}`);
          }
          if (/^\s*(mkdir|install -d)\b/.test(line))
            for (const word of line.split(/\s+/)) made.add(word);
        }
      }
    }
    expect(unmade).toEqual([]);
  });
});

/*
 * The owner's commands (server/cli/commands/) are each in the table of
 * docs/command-line.md, and every command the README and docs/ name, as
 * `npm run admin -- …` or `admin …`, is one the command line has (or a group
 * of them).
 */
describe("the owner's commands the docs name", () => {
  const folder = path.join(root, "server/cli/commands");
  const declared = new Set(
    readdirSync(folder).flatMap((file) =>
      [...readFileSync(path.join(folder, file), "utf8").matchAll(/^\s*name: "([a-z -]+)",$/gm)].map(
        ([, name = ""]) => name,
      ),
    ),
  );
  const groups = new Set([...declared].map((name) => name.split(" ")[0]));

  it("lists each in docs/command-line.md's table", () => {
    const table = readFileSync(path.join(root, "docs/command-line.md"), "utf8");
    const rows = new Set(
      [...table.matchAll(/^\| `([a-z][a-z-]*(?: [a-z][a-z-]*)?)/gm)].map(([, name]) => name),
    );
    expect(declared.size).toBeGreaterThan(40);
    expect([...declared].filter((name) => !rows.has(name))).toEqual([]);
    expect([...rows].filter((name) => !declared.has(name ?? ""))).toEqual([]);
  });

  it("names none the command line does not have", () => {
    const named = pages.flatMap((page) =>
      [
        ...readFileSync(path.join(root, page), "utf8").matchAll(
          /(?:npm run (?:-s |--silent )?admin -- |`admin )([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g,
        ),
      ].map(([, first = "", second]) => ({ page, first, second })),
    );
    expect(named.length).toBeGreaterThan(20);
    const unknown = named.filter(
      ({ first, second }) =>
        !declared.has(`${first} ${second}`) &&
        !declared.has(first) &&
        !(groups.has(first) && second === undefined),
    );
    expect(unknown).toEqual([]);
  });

  // A reader who asks by mail to be forgotten may have left anything: the
  // page the owner follows names each command that deletes what readers give.
  // `fediverse remove` only ends a follow; `fediverse erase` takes it and the rest.
  // `passkeys remove` deletes the owner's own passkey, nothing a reader gave.
  it("that delete what readers give are each in docs/privacy-requests.md", () => {
    const page = readFileSync(path.join(root, "docs/privacy-requests.md"), "utf8");
    const notReaders = ["fediverse remove", "passkeys remove"];
    const deleting = [...declared].filter(
      (name) => /^[a-z-]+ (delete|remove|erase|purge)$/.test(name) && !notReaders.includes(name),
    );
    expect(deleting.length).toBeGreaterThan(6);
    expect(deleting.filter((name) => !page.includes(`\`${name} `))).toEqual([]);
  });
});

/*
 * docs/architecture.md's map of the code and its table of the server's floors
 * name every folder of server/.
 */
describe("the server's folders in docs/architecture.md", () => {
  const architecture = readFileSync(path.join(root, "docs/architecture.md"), "utf8");
  const folders = readdirSync(path.join(root, "server"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

  it("are each in the map of the code", () => {
    const map = /## Map of the code[\s\S]*?```\n([\s\S]*?)```/.exec(architecture)?.[1] ?? "";
    expect(folders.length).toBeGreaterThan(15);
    expect(folders.filter((folder) => !map.includes(`\n  ${folder}/ `))).toEqual([]);
  });

  it("are each on a floor of the table", () => {
    const table = /## Server floors[\s\S]*?(\| floor \|[\s\S]*?)\n\n/.exec(architecture)?.[1] ?? "";
    expect(folders.filter((folder) => !table.includes(`\`server/${folder}/\``))).toEqual([]);
  });
});

/*
 * A decision record that supersedes, amends or refines an earlier one says so
 * in its header, and the earlier one points to it at its top
 * (docs/decisions/README.md), or to a record after it that superseded the
 * earlier one whole.
 */
describe("the decision records", () => {
  const folder = path.join(root, "docs/decisions");
  const records = new Map(
    readdirSync(folder)
      .filter((file) => /^\d{3}-/.test(file))
      .map((file) => [file.slice(0, 3), readFileSync(path.join(folder, file), "utf8")]),
  );

  it("that are amended or superseded point to what changed them", () => {
    const unpointed = [...records].flatMap(([later, text]) => {
      const header = `${text.split("\n## ")[0] ?? ""}\n\n`;
      const supersedes =
        /^- \*\*Supersedes:\*\*([\s\S]*?)(?=\n- \*\*|\n\n)/m.exec(header)?.[1] ?? "";
      const amends = /^- \*\*Amends:\*\*(.*)/m.exec(header)?.[1] ?? "";
      const named = [
        ...(supersedes.trim().startsWith("none")
          ? [...supersedes.matchAll(/\b(?:amends|refines|changes|extends)\s[^;)]*/g)].flatMap(
              ([changed]) => [...changed.matchAll(/\b(\d{3})\b/g)],
            )
          : [...supersedes.matchAll(/\b(\d{3})\b/g)]),
        ...amends.matchAll(/\b(\d{3})\b/g),
      ].map(([, earlier = ""]) => earlier);
      return named
        .filter((earlier) => records.has(earlier) && earlier < later)
        .filter((earlier) => {
          // The pointer is at the top, where a reader of the earlier record sees it.
          const top = (records.get(earlier) ?? "").split("\n## ")[0] ?? "";
          const supersededBy = /\*\*Status:\*\* superseded by (\d{3})/.exec(top)?.[1] ?? "";
          return !new RegExp(`\\b${later}\\b`).test(top) && !(supersededBy >= later);
        })
        .map((earlier) => `${earlier} does not point to ${later}`);
    });
    expect(records.size).toBeGreaterThan(50);
    expect(unpointed).toEqual([]);
  });
});

/*
 * docs/console.md walks through the console's screens in the order of its
 * nav, one item each: the views of app/console/console-app.tsx.
 */
describe("the console's screens in docs/console.md", () => {
  it("are the nav's, in its order", () => {
    const app = readFileSync(path.join(root, "app/console/console-app.tsx"), "utf8");
    const views = /const consoleViews = \{([\s\S]*?)\n\}/.exec(app)?.[1] ?? "";
    const nav = [...views.matchAll(/title: "([^"]+)"/g)].map(([, title]) => title);
    const page = readFileSync(path.join(root, "docs/console.md"), "utf8");
    const listed = [...page.matchAll(/^- \*\*([^*]+):\*\*/gm)].map(([, title]) => title);
    expect(nav.length).toBeGreaterThan(10);
    expect(listed).toEqual(nav);
  });
});

/*
 * The docs and the code point to a page's section by its title
 * (`docs/mail.md`, "Signed mail"); each such title is a heading of that page
 * or the bold lead of one of its paragraphs. The decision records and the
 * benchmarks are history and are not read.
 */
describe("the sections the docs and the code point to", () => {
  const sources = [
    "README.md",
    "app",
    "bench",
    "content",
    "contract",
    "docs",
    "scripts",
    "server",
    "tests",
  ]
    .flatMap((top) =>
      top.endsWith(".md")
        ? [top]
        : readdirSync(path.join(root, top), { recursive: true, encoding: "utf8" }).map(
            (file) => `${top}/${file}`,
          ),
    )
    .filter((file) => /\.(md|ts|tsx|astro|sh)$/.test(file))
    .filter((file) => !file.startsWith("docs/decisions/") && file !== "docs/benchmarks.md");
  const pointers = sources.flatMap((file) =>
    [
      ...readFileSync(path.join(root, file), "utf8").matchAll(
        /(docs\/[\w./-]+\.md|(?<![\w/])README)`?,?\s+"([^"]+)"/g,
      ),
    ].map(([, page = "", title = ""]) => ({
      file,
      page: page === "README" ? "README.md" : page,
      // A title broken across the lines of a code comment reads as one line.
      title: title
        .replace(/\s*(?:\*|\/\/)\s+/g, " ")
        .replace(/\s+/g, " ")
        .trim(),
    })),
  );

  it("name a heading or a bold lead of the page", () => {
    expect(pointers.length).toBeGreaterThan(100);
    const read = new Map<string, { headings: string[]; text: string }>();
    const titlesOf = (page: string) => {
      let found = read.get(page);
      if (!found) {
        const text = readFileSync(path.join(root, page), "utf8");
        found = { headings: text.split("\n").filter((line) => line.startsWith("#")), text };
        read.set(page, found);
      }
      return found;
    };
    const lost = pointers.filter(({ page, title }) => {
      if (!existsSync(path.join(root, page))) return true;
      const { headings, text } = titlesOf(page);
      return !headings.some((line) => line.includes(title)) && !text.includes(`**${title}`);
    });
    expect(lost).toEqual([]);
  });
});

/*
 * The house's rule for a reply's path from the form to the mail: at most 8
 * product files in at most 4 folders, no module entered twice. The drawing in
 * docs/architecture.md names them; a spine file that imports another spine
 * file the drawing does not join to it (for more than its types) would be a
 * second way in.
 */
describe("the reply's path in docs/architecture.md", () => {
  const architecture = readFileSync(path.join(root, "docs/architecture.md"), "utf8");
  const drawing =
    /### A reply, from the form to the mail[\s\S]*?```mermaid\n([\s\S]*?)```/.exec(
      architecture,
    )?.[1] ?? "";
  const files = new Map(
    [...drawing.matchAll(/(\w+)\[\(?"([^"]+)"/g)].map(([, node = "", label = ""]) => [
      node,
      /^[\w/.-]+/.exec(label.replaceAll("/<br/>", "/"))?.[0] ?? "",
    ]),
  );
  const joined = new Set(
    [
      ...drawing.replace(/\[\(?"[^"]*"\)?\]/g, "").matchAll(/(\w+) -->(?:\|[^|]*\|)? (\w+)/g),
    ].flatMap(([, a = "", b = ""]) => [
      `${files.get(a)} ${files.get(b)}`,
      `${files.get(b)} ${files.get(a)}`,
    ]),
  );

  it("crosses at most 8 files that exist, in at most 4 folders", () => {
    const paths = [...files.values()];
    expect(paths.length).toBeGreaterThan(1);
    expect(paths.length).toBeLessThanOrEqual(8);
    expect(new Set(paths.map((file) => path.dirname(file))).size).toBeLessThanOrEqual(4);
    expect(paths.filter((file) => !existsSync(path.join(root, file)))).toEqual([]);
  });

  it("enters each file once: a spine file imports another only where the drawing joins them", () => {
    const spine = new Set(files.values());
    const unjoined = [...spine].flatMap((file) =>
      [
        ...readFileSync(path.join(root, file), "utf8").matchAll(
          /import (?!type\b)[^;]*?from "(\.{1,2}\/[^"]+)"/g,
        ),
      ]
        .map(([, target = ""]) => path.join(path.dirname(file), target))
        .filter((target) => spine.has(target) && !joined.has(`${file} ${target}`))
        .map((target) => `${file} imports ${target}`),
    );
    expect(unjoined).toEqual([]);
  });
});

/*
 * contract/README.md describes what the schemas cannot say (statuses, when an
 * error happens) and points to the schemas for shapes; its table of error codes
 * is the contract's list, no more and no less.
 */
const readme = readFileSync(path.join(import.meta.dirname, "../contract/README.md"), "utf8");

describe("contract/README.md", () => {
  it("lists every error code of the contract once, and no other", () => {
    const listed = [...readme.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map(([, code]) => code);
    expect(listed.toSorted()).toEqual([...errorCodes].sort());
  });

  it("names the schemas the shapes are in, rather than listing their fields", () => {
    expect(readme).toContain("`commentSchema`");
    expect(readme).toContain("`errorResponseSchema`");
    expect(readme).not.toMatch(/`Comment` is `\{/);
  });
});

/*
 * How long a console sign-in link works, and how recent a sign-in must be, are
 * figures of contract/limits.ts, which the pages, mails and commands say; the
 * docs say them too, in the same words.
 */
describe("the console's sign-in figures in the docs", () => {
  const page = (name: string) => readFileSync(path.join(root, "docs", name), "utf8");
  it("are the code's", () => {
    expect(page("console.md")).toContain(`open it within ${signInLinkLife} and press **Sign in**`);
    expect(page("console.md")).toContain(`last one mailed is unused and valid (${signInLinkLife})`);
    expect(page("console.md")).toContain(`need a sign-in within the last ${freshSignInLife}`);
    expect(page("command-line.md")).toContain(
      `print a one-time sign-in link to the console, valid ${signInLinkLife}`,
    );
  });
});

/*
 * The house's rule: a product file (the server, the app, the contract, the
 * content's TypeScript, the scripts; not their tests) is read in one sitting,
 * at most 400 lines.
 */
describe("the product files", () => {
  const code = /\.(ts|tsx|astro|css|sh)$/;
  const files = ["server", "app", "contract", "content", "scripts"].flatMap((folder) =>
    readdirSync(path.join(root, folder), { recursive: true, encoding: "utf8" })
      .map((file) => `${folder}/${file}`)
      .filter((file) => code.test(file) && !/\.test(-d)?\.tsx?$/.test(file))
      .filter((file) => folder !== "content" || /\.tsx?$/.test(file)),
  );

  it("are each at most 400 lines", () => {
    expect(files.length).toBeGreaterThan(400);
    const lines = (file: string) =>
      readFileSync(path.join(root, file), "utf8").split("\n").length - 1;
    expect(
      files.filter((file) => lines(file) > 400).map((file) => `${file} has ${lines(file)} lines`),
      "split each along a seam of its own, to at most 400 lines",
    ).toEqual([]);
  });
});
