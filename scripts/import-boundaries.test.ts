import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { problemWith, serverImports } from "./server-imports.ts";

/*
 * The layers of docs/architecture.md ("Layers", "Server floors") are enforced
 * by the lint: biome.json's noRestrictedImports between app/, contract/ and
 * server/, and noImportCycles for the whole tree; the floors inside server/ by
 * scripts/server-imports.ts, from one list of floors. Each case is one file,
 * placed where it would sit in the repository; the biome cases are all linted
 * in one run, with the project's own config.
 */
const root = path.resolve(import.meta.dirname, "..");
const biome = path.join(root, "node_modules", ".bin", "biome");
const scratch = mkdtempSync(path.join(tmpdir(), "ewe-layers-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Diagnostic = { category: string; message: string; location: { path: string } };

const files = new Map<string, string>();
let report: Promise<Diagnostic[]> | undefined;

/**
 * Places a case's file and returns its path. A file named `x` stands for any
 * file of its folder and gets a unique name there; any other keeps its name.
 */
function place(file: string, source: string): string {
  const named = !/^x\.tsx?$/.test(path.basename(file));
  const placed = named
    ? path.normalize(file)
    : path.join(path.dirname(file), `case-${files.size}-${path.basename(file)}`);
  files.set(placed, source);
  return placed;
}

function lintAll(): Promise<Diagnostic[]> {
  report ??= (async () => {
    copyFileSync(path.join(root, "biome.json"), path.join(scratch, "biome.json"));
    for (const [file, source] of files) {
      mkdirSync(path.join(scratch, path.dirname(file)), { recursive: true });
      writeFileSync(path.join(scratch, file), source);
    }
    let output: string;
    try {
      output = execFileSync(
        biome,
        ["lint", "--vcs-enabled=false", "--reporter=json", "--max-diagnostics=none", "."],
        { cwd: scratch, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
      );
    } catch (error) {
      // Biome exits non-zero when it finds an error; the report is still on stdout.
      output = (error as { stdout: string }).stdout;
    }
    return (JSON.parse(output) as { diagnostics: Diagnostic[] }).diagnostics;
  })();
  return report;
}

const boundaryRules = new Set(["lint/style/noRestrictedImports", "lint/suspicious/noImportCycles"]);

async function findingsOf(file: string): Promise<Diagnostic[]> {
  return (await lintAll()).filter(
    (d) => boundaryRules.has(d.category) && path.normalize(d.location.path) === file,
  );
}

const importing = (specifier: string) =>
  `import { thing } from "${specifier}";\n\nexport const used = thing;\n`;

type Case = [name: string, file: string, specifier: string];

const refused: Case[] = [
  ["a feature importing another feature", "app/features/reactions/x.ts", "../comments/x.ts"],
  ["browser code importing the server", "app/features/comments/x.ts", "../../../server/config.ts"],
  ["browser code importing Node", "app/lib/x.ts", "node:fs"],
  ["shared browser code importing a feature", "app/lib/x.ts", "../features/search/x.ts"],
  ["a component importing an island", "app/components/x.tsx", "../islands/header.tsx"],
  ["the contract importing the server", "contract/x.ts", "../server/config.ts"],
  ["the contract importing the browser", "contract/x.ts", "../app/lib/x.ts"],
  ["the server importing browser code", "server/web/x.ts", "../../app/lib/site-name.ts"],
  [
    "the server importing a browser feature it does not render",
    "server/web/x.ts",
    "../../app/features/comments/comment-section.tsx",
  ],
  ["the ground floor importing events", "server/db/x.ts", "../events/bus.ts"],
  ["configuration importing a domain module", "server/config.ts", "./engagement/index.ts"],
  ["a helper in server/lib importing the database", "server/lib/x.ts", "../db/store.ts"],
  ["the event journal importing engagement", "server/events/x.ts", "../engagement/index.ts"],
  ["the outbox importing the newsletter", "server/outbox/x.ts", "../newsletter/messages.ts"],
  ["engagement importing notifications", "server/engagement/x.ts", "../notifications/notifier.ts"],
  ["engagement importing moderation", "server/engagement/x.ts", "../moderation/service.ts"],
  ["comments importing engagement", "server/comments/x.ts", "../engagement/read-cache.ts"],
  ["comments importing moderation", "server/comments/x.ts", "../moderation/service.ts"],
  ["moderation importing enquiries", "server/moderation/x.ts", "../enquiries/service.ts"],
  ["the newsletter importing notifications", "server/newsletter/x.ts", "../notifications/x.ts"],
  ["notifications importing the newsletter", "server/notifications/x.ts", "../newsletter/x.ts"],
  ["enquiries importing notifications", "server/enquiries/x.ts", "../notifications/x.ts"],
  ["imports importing the web floor", "server/portability/x.ts", "../web/etag.ts"],
  ["enquiries importing the importers", "server/enquiries/x.ts", "../portability/tables.ts"],
  ["the assistant importing enquiries", "server/assistant/x.ts", "../enquiries/service.ts"],
  ["engagement importing the assistant", "server/engagement/x.ts", "../assistant/service.ts"],
  ["a domain module importing a route file", "server/engagement/x.ts", "../api/routes/deps.ts"],
  ["the web floor importing the API", "server/web/x.ts", "../api/errors.ts"],
  [
    "the readers' API importing the console",
    "server/api/routes/x.ts",
    "../../console/owner-voice.ts",
  ],
  ["the console importing the command line", "server/console/routes/x.ts", "../../cli/table.ts"],
  ["the command line importing the API", "server/cli/x.ts", "../api/errors.ts"],
  ["a module importing the composition root", "server/console/x.ts", "../app.ts"],
  ["a module importing the start-up lines", "server/api/x.ts", "../startup-line.ts"],
];

const allowed: Case[] = [
  ["a feature importing shared code", "app/features/reactions/x.ts", "../../lib/api-client.ts"],
  ["a feature importing its own module", "app/features/reactions/x.ts", "./use-reactions.ts"],
  ["a feature importing the contract", "app/features/comments/x.ts", "../../../contract/api.ts"],
  ["an island composing features", "app/islands/x.tsx", "../features/comments/x.tsx"],
  ["the server importing the contract", "server/x.ts", "../contract/api.ts"],
  [
    "the server importing the comment view it renders into pages",
    "server/web/x.ts",
    "../../app/features/comments/comment-view.ts",
  ],
  ["a helper in server/lib importing another", "server/lib/x.ts", "./csv.ts"],
  ["the ground floor importing server/lib", "server/db/x.ts", "../lib/time.ts"],
  ["the event journal importing the database", "server/events/x.ts", "../db/store.ts"],
  ["the outbox importing the database", "server/outbox/x.ts", "../db/schema.ts"],
  ["engagement importing the event bus", "server/engagement/x.ts", "../events/bus.ts"],
  ["moderation importing comments", "server/moderation/x.ts", "../comments/repository.ts"],
  ["engagement caching comments", "server/engagement/x.ts", "../comments/repository.ts"],
  ["the newsletter importing the outbox", "server/newsletter/x.ts", "../outbox/outbox-worker.ts"],
  ["engagement queuing mail in the outbox", "server/engagement/x.ts", "../outbox/queue.ts"],
  [
    "notifications implementing comments' interface",
    "server/notifications/x.ts",
    "../comments/notifier.ts",
  ],
  ["enquiries importing moderation", "server/enquiries/x.ts", "../moderation/defences.ts"],
  ["the assistant reading the database", "server/assistant/x.ts", "../db/store.ts"],
  ["imports recording live events", "server/portability/x.ts", "../events/journal.ts"],
  ["the command line importing the importers", "server/cli/x.ts", "../portability/export.ts"],
  ["the web floor importing the read cache", "server/web/x.ts", "../engagement/read-cache.ts"],
  ["the readers' API importing the web floor", "server/api/routes/x.ts", "../../web/etag.ts"],
  [
    "the console implementing the API's owner check",
    "server/console/x.ts",
    "../api/routes/deps.ts",
  ],
  [
    "the command line importing the console's repositories",
    "server/cli/x.ts",
    "../console/owner-repository.ts",
  ],
  ["the composition root importing any floor", "server/app.ts", "./cli/table.ts"],
  ["the server's entry point importing its start-up lines", "server/main.ts", "./startup-line.ts"],
];

/** The two server folders an import joins, when it runs between two of them. */
function serverFolders(file: string, specifier: string): [string, string] | undefined {
  const folder = (at: string) => /^server\/([^/]+)/.exec(at)?.[1];
  const [from, to] = [folder(file), folder(path.join(path.dirname(file), specifier))];
  return from && to && from !== to ? [from, to] : undefined;
}
const floorCase = ([, file, specifier]: Case) => serverFolders(file, specifier) !== undefined;
const [refusedFloors, refusedLinted] = [
  refused.filter(floorCase),
  refused.filter((c) => !floorCase(c)),
];
const [allowedFloors, allowedLinted] = [
  allowed.filter(floorCase),
  allowed.filter((c) => !floorCase(c)),
];

const refusedFiles = refusedLinted.map(([, file, specifier]) => place(file, importing(specifier)));
const allowedFiles = allowedLinted.map(([, file, specifier]) => place(file, importing(specifier)));

const cycleOf = (name: string, other: string) =>
  place(
    `server/moderation/cycle-${name}.ts`,
    `import { ${other} } from "./cycle-${other}.ts";\n\nexport const ${name} = () => ${other};\n`,
  );
// Two modules that import each other, and two that import one way.
const cycle = [cycleOf("a", "b"), cycleOf("b", "a")];
const oneWay = [
  place(
    "server/moderation/one-way-a.ts",
    'import { b } from "./one-way-b.ts";\n\nexport const a = () => b;\n',
  ),
  place("server/moderation/one-way-b.ts", "export const b = 1;\n"),
];

describe("import boundaries", () => {
  // One lint of every case; on a loaded machine it can take a while.
  beforeAll(() => lintAll(), 120_000);

  it.each(refusedLinted.map((c, i) => [...c, refusedFiles[i]!] as const))(
    "refuses %s",
    async (_case, _file, _specifier, placed) => {
      expect(await findingsOf(placed)).toEqual([
        expect.objectContaining({ category: "lint/style/noRestrictedImports" }),
      ]);
    },
  );

  it.each(allowedLinted.map((c, i) => [...c, allowedFiles[i]!] as const))(
    "allows %s",
    async (_case, _file, _specifier, placed) => {
      expect(await findingsOf(placed)).toEqual([]);
    },
  );

  it("refuses an import cycle", async () => {
    for (const file of cycle) {
      expect(await findingsOf(file)).toEqual([
        expect.objectContaining({ category: "lint/suspicious/noImportCycles" }),
      ]);
    }
  });

  it("allows imports that run one way", async () => {
    for (const file of oneWay) expect(await findingsOf(file)).toEqual([]);
  });

  it.each(refusedFloors)("refuses %s (server floors)", (_case, file, specifier) => {
    const [from, to] = serverFolders(file, specifier)!;
    expect(problemWith(from, to)).toBeDefined();
  });

  it.each(allowedFloors)("allows %s (server floors)", (_case, file, specifier) => {
    const [from, to] = serverFolders(file, specifier)!;
    expect(problemWith(from, to)).toBeUndefined();
  });

  it("finds no import up a floor in the server as it is", async () => {
    expect((await serverImports()).problems).toEqual([]);
  }, 60_000);
});
