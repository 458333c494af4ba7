import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cruise } from "dependency-cruiser";

/*
 * Draws the server's imports folder by folder (dependency-cruiser), checks that
 * none runs up its floors (docs/architecture.md, "Server floors"), and with
 * --write puts the drawing into docs/architecture.md. The lint refuses such
 * imports as they are written; this is the picture of what is there.
 *
 *   npm run imports:server            print the drawing, fail on an upward import
 *   npm run imports:server -- --write also refresh the drawing in the docs
 */

/** From the bottom up; folders on one floor may not import one another. */
const floors: string[][] = [
  ["lib"],
  ["config.ts", "logging.ts", "db"],
  ["events"],
  ["outbox"],
  ["comments"],
  ["engagement"],
  ["moderation"],
  [
    "newsletter",
    "notifications",
    "enquiries",
    "bookings",
    "assistant",
    "portability",
    "fediverse",
    "readers",
  ],
  ["web"],
  ["api"],
  ["console"],
  ["cli"],
  ["startup.ts", "startup-line.ts"],
  ["services.ts"],
  ["app.ts"],
  ["main.ts"],
];
/** Folders of one floor that may import each other (the ground floor is one module). */
const together = new Set(["config.ts", "logging.ts", "db"]);
/** Imports refused although they run down the floors: the command line serves no HTTP. */
const apart = new Set(["cli api"]);

const root = path.resolve(import.meta.dirname, "..");
const docs = path.join(root, "docs/architecture.md");
const start = "<!-- server-imports:start -->";
const end = "<!-- server-imports:end -->";

const self = path.relative(root, import.meta.filename);
const floorOf = new Map(floors.flatMap((names, floor) => names.map((n) => [n, floor] as const)));
const partOf = (file: string) => /^server\/([^/]+)/.exec(file)?.[1];

/** Where an import between two server folders breaks the floors, if it does. */
export function problemWith(from: string, to: string): string | undefined {
  const [a, b] = [floorOf.get(from), floorOf.get(to)];
  if (a === undefined || b === undefined) {
    return `server/${a === undefined ? from : to} is on no floor: add it to ${self}`;
  }
  if (b > a) return `server/${from} imports server/${to}, a floor above it`;
  if (apart.has(`${from} ${to}`)) return `server/${from} may not import server/${to}`;
  if (a === b && !(together.has(from) && together.has(to))) {
    return `server/${from} imports server/${to}, beside it on the same floor`;
  }
  return undefined;
}

/** Mermaid ids are letters, digits and underscores. */
const id = (part: string) => part.replace(/\.ts$/, "_ts").replaceAll("-", "_");
const label = (part: string) => (part.endsWith(".ts") ? part : `${part}/`);

function draw(edges: string[]): string {
  const lines = ["```mermaid", "flowchart BT"];
  floors.forEach((names, floor) => {
    lines.push(`  subgraph floor${floor}[" "]`);
    for (const name of names) lines.push(`    ${id(name)}["${label(name)}"]`);
    lines.push("  end");
  });
  // One line per folder, to all it imports (`a --> b & c`): the edges come sorted.
  const targets = new Map<string, string[]>();
  for (const edge of edges) {
    const [from = "", to = ""] = edge.split(" ");
    targets.set(from, [...(targets.get(from) ?? []), id(to)]);
  }
  for (const [from, to] of targets) lines.push(`  ${id(from)} --> ${to.join(" & ")}`);
  lines.push("```");
  return lines.join("\n");
}

/** The imports between server folders as they are: the drawing, and what breaks the floors. */
export async function serverImports(): Promise<{
  edges: number;
  drawing: string;
  problems: string[];
}> {
  const { output } = await cruise(["server"], {
    baseDir: root,
    exclude: { path: "node_modules|^contract/|^content/|^app/" },
    tsPreCompilationDeps: true,
    outputType: "json",
  });
  const result = JSON.parse(output as string) as {
    modules: { source: string; dependencies: { resolved: string }[] }[];
  };
  const edges = new Set<string>();
  for (const module of result.modules) {
    const from = partOf(module.source);
    for (const { resolved } of module.dependencies) {
      const to = partOf(resolved);
      if (from && to && from !== to) edges.add(`${from} ${to}`);
    }
  }
  const sorted = [...edges].sort();
  const problems = sorted.flatMap((edge) => {
    const [from = "", to = ""] = edge.split(" ");
    return problemWith(from, to) ?? [];
  });
  return { edges: sorted.length, drawing: draw(sorted), problems };
}

/** The drawing as docs/architecture.md has it now. */
export function documentedDrawing(): string | undefined {
  const text = readFileSync(docs, "utf8");
  return text.split(start)[1]?.split(end)[0]?.trim();
}

if (import.meta.main) {
  const { edges, drawing, problems } = await serverImports();
  process.stdout.write(`${drawing}\n`);
  if (process.argv.includes("--write")) {
    const text = readFileSync(docs, "utf8");
    const [before, rest] = text.split(start);
    const after = rest?.split(end)[1];
    if (before === undefined || after === undefined) {
      throw new Error(`docs/architecture.md has no ${start} … ${end} block`);
    }
    writeFileSync(docs, `${before}${start}\n${drawing}\n${end}${after}`);
  }
  if (problems.length > 0) {
    process.stderr.write(`${problems.join("\n")}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`${edges} imports between server folders, none up a floor.\n`);
  }
}
