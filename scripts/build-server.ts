import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Metafile, Plugin } from "esbuild";
import { newDatabaseName } from "../server/db/new-database.ts";
import { hashFiles, projectRoot } from "./build-inputs.ts";

/*
 * The server as `npm start` runs it: its TypeScript and its packages bundled
 * into JavaScript by esbuild (docs/decisions/039-server-bundle.md), so a start
 * strips no types and resolves no package paths. What the server imports on
 * first use (server/lib/on-first-use.ts) becomes a chunk of its own, loaded
 * as late as before; the SMTP thread, which a Worker loads from a file, is an
 * entry of its own beside the server's.
 */

/** Where `npm start` runs the server from (package.json, "start"). */
export const serverBuildDir = path.join(projectRoot, "build/server");

/**
 * The last command of package.json's "start", which runs the server once the
 * build is current (`NAME=value … node <flags> build/server/main.js`): the
 * environment it sets (docs/decisions/066-one-malloc-arena.md) and the
 * arguments it gives Node, so that the benches and the test of the bundle run
 * the server exactly as an operator does.
 */
function startCommand(): { env: Record<string, string>; args: string[] } {
  const { scripts } = JSON.parse(readFileSync(path.join(projectRoot, "package.json"), "utf8")) as {
    scripts: { start: string };
  };
  const words = (scripts.start.split("&&").at(-1) ?? "").trim().split(/\s+/);
  const at = words.findIndex((word) => !/^\w+=/.test(word));
  const settings = words.slice(0, Math.max(at, 0));
  const [program, ...args] = at === -1 ? [] : words.slice(at);
  if (program !== "node" || args.length === 0) {
    throw new Error(`package.json's start does not end with a node command: ${scripts.start}`);
  }
  return {
    env: Object.fromEntries(settings.map((setting) => setting.split(/=(.*)/s).slice(0, 2))),
    args: args.map((arg) => (arg.startsWith("-") ? arg : path.join(projectRoot, arg))),
  };
}

/** The arguments `npm start` gives Node (`startCommand`). */
export function startArguments(): string[] {
  return startCommand().args;
}

/** The environment `npm start` sets for the server, besides the operator's (`startCommand`). */
export function startEnvironment(): Record<string, string> {
  return startCommand().env;
}

/** `npm start`'s Node flags alone (`startArguments` without the script). */
export function startFlags(): string[] {
  return startArguments().filter((arg) => arg.startsWith("-"));
}

/**
 * The browser tests' bundle, beside the pages of their build (`buildDir`,
 * BUILD_DIR: build/e2e/server), apart from `npm start`'s build/server
 * (docs/decisions/067-axe-per-layout-and-tests-on-the-bundle.md).
 */
export const testsServerBuildDir = (buildDir: string) => path.join(buildDir, "server");

/**
 * How the browser tests start a site on their build: as `npm start` runs the
 * server (`startEnvironment`, `startFlags`), from the bundle in `buildDir`.
 */
export function bundledServer(buildDir: string): { env: Record<string, string>; args: string[] } {
  return {
    env: startEnvironment(),
    args: [...startFlags(), path.join(testsServerBuildDir(buildDir), "main.js")],
  };
}

/** Each output file's name (without `.js`) and the source it starts from. */
const entries: Record<string, string> = {
  main: "server/main.ts",
  "smtp-thread": "server/outbox/mailer.ts",
  "calendar-thread": "server/bookings/busy-times.ts",
};

/**
 * The owner's command line, bundled only into the browser tests' build
 * (`buildServer`'s `commandLine`): their specs run it dozens of times a run,
 * and from the sources each run spent about half its CPU resolving and
 * loading some 550 modules, 257 of them Kysely's
 * (docs/decisions/073-the-browser-tests-command-line-bundled.md).
 * `npm run admin` runs the sources.
 */
const commandLineEntry = { admin: "server/cli/admin.ts" };

/** How the browser tests run the owner's command line on their build: its bundle there. */
export const bundledCommandLine = (buildDir: string) =>
  path.join(testsServerBuildDir(buildDir), "admin.js");

/** The record of a build, beside it: what it was built from, and what it wrote. */
type Stamp = { hash: string; inputs: string[]; outputs: string[] };
const stampName = ".stamp.json";

/** Besides the sources a build reads: the packages' versions and how the build is made. */
const alwaysHashed = ["package-lock.json", "scripts/build-server.ts"];

const hashOf = (inputs: string[]) =>
  hashFiles(createHash("sha256"), [...alwaysHashed, ...inputs]).digest("hex");

function readStamp(outdir: string): Stamp | null {
  try {
    return JSON.parse(readFileSync(path.join(outdir, stampName), "utf8")) as Stamp;
  } catch {
    return null;
  }
}

/**
 * Whether `outdir` holds a build of the sources as they are now: the files it
 * was built from are hashed again (a source it did not read yet can only be
 * reached through one that changed).
 */
export function serverBuildCurrent(outdir = serverBuildDir): boolean {
  const stamp = readStamp(outdir);
  if (!stamp?.outputs.every((file) => existsSync(path.join(outdir, file)))) return false;
  return stamp.hash === hashOf(stamp.inputs);
}

const toPosix = (file: string) => file.split(path.sep).join("/");

/**
 * Every output file, chunks too, sits in `outdir` itself, wherever its source was, so a
 * source's `import.meta.dirname` (its data files, the project's folder) is
 * rewritten to its own folder seen from there; and `new URL("./x.ts",
 * import.meta.url)` (or `x.js`), a Worker's file, to the entry built from that file. Any other
 * use of `import.meta.url` or `import.meta.filename` in our sources fails the
 * build rather than pointing somewhere else at run time.
 */
function sourcePaths(outdir: string): Plugin {
  const entryNames = new Map(
    Object.entries(entries).map(([name, source]) => [path.join(projectRoot, source), name]),
  );
  return {
    name: "source-paths",
    setup(build) {
      build.onLoad({ filter: /\.tsx?$/ }, async (args) => {
        if (args.path.split(path.sep).includes("node_modules")) return undefined;
        const errors: { text: string }[] = [];
        const here = path.dirname(args.path);
        const source = (await readFile(args.path, "utf8"))
          .replace(
            /new URL\(\s*"(\.\.?\/[^"]+\.[jt]s)",\s*import\.meta\.url\s*\)/g,
            (whole, relative: string) => {
              const name = entryNames.get(path.resolve(here, relative));
              if (name) return `new URL("./${name}.js", import.meta.url)`;
              errors.push({ text: `${whole} names a file that is not an entry of the build` });
              return whole;
            },
          )
          .replaceAll(
            "import.meta.dirname",
            `(import.meta.dirname + ${JSON.stringify(`/${toPosix(path.relative(outdir, here))}`)})`,
          );
        const workerUrl = /new URL\("\.\/[\w-]+\.js", import\.meta\.url\)/g;
        if (/import\.meta\.(filename|url)\b/.test(source.replace(workerUrl, ""))) {
          errors.push({
            text: "import.meta.url or import.meta.filename would point into the build",
          });
        }
        return errors.length ? { errors } : { contents: source, loader: "ts" };
      });
    },
  };
}

/**
 * Fastify requires Node's HTTPS and HTTP/2 modules when it loads, for the
 * server it makes when it is given none; this server gives it one
 * (`serverFactory` in server/app.ts), and loading them was a twentieth of a
 * start's CPU. In the bundle they are required when first used, which is
 * never here. The build fails if Fastify's lines change, so an upgrade is
 * looked at again rather than bundled unchanged.
 */
function fastifyServerModulesOnUse(): Plugin {
  const eager = "const https = require('node:https')\nconst http2 = require('node:http2')\n";
  const onUse =
    "const onUse = (name) => new Proxy({}, { get: (_, key) => require(name)[key] })\nconst https = onUse('node:https')\nconst http2 = onUse('node:http2')\n";
  return {
    name: "fastify-server-modules-on-use",
    setup(build) {
      build.onLoad({ filter: /[\\/]fastify[\\/]lib[\\/]server\.js$/ }, async (args) => {
        const source = await readFile(args.path, "utf8");
        if (!source.includes(eager)) {
          return {
            errors: [
              { text: "fastify/lib/server.js no longer requires https and http2 as expected" },
            ],
          };
        }
        return { contents: source.replace(eager, onUse), loader: "js" };
      });
    },
  };
}

/**
 * The script with every character outside ASCII written as a \\u escape.
 * esbuild escapes them in strings but leaves them in regular expressions
 * (the typographer's ellipsis, the spam filter's currency signs), and one
 * such character makes V8 hold the whole file's source, which stays in
 * memory while the server runs, at two bytes per character: 1.8 MB more for
 * the server's largest file. Outside comments they can only stand in strings,
 * regular expressions, templates and names, where the escape means the same
 * character; one written after a backslash, or a line separator, would change
 * meaning, so the build refuses it instead.
 */
export function asciiOnly(script: string, file = "the script"): string {
  if (/\\[\u0080-\uffff]|[\u2028\u2029]/.test(script)) {
    // A line separator could end a comment, which its escape would not.
    throw new Error(
      `${file}: a character outside ASCII follows a backslash, or is a line separator`,
    );
  }
  return script.replace(
    /[\u0080-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Writes a file whole or not at all: a server may be starting from the folder meanwhile. */
function writeWhole(file: string, contents: string | Uint8Array) {
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, contents);
  renameSync(partial, file);
}

/**
 * Bundles the server into `outdir`, records what it was built from and
 * returns esbuild's account of it (its metafile). The files of the build
 * before are kept (a server started from it may still
 * load a chunk on first use); older ones are removed.
 */
export async function buildServer(
  outdir = serverBuildDir,
  { commandLine = false }: { commandLine?: boolean } = {},
): Promise<Metafile> {
  const { build } = await import("esbuild");
  mkdirSync(outdir, { recursive: true });
  const built = { ...entries, ...(commandLine ? commandLineEntry : {}) };
  const result = await build({
    absWorkingDir: projectRoot,
    entryPoints: Object.fromEntries(
      Object.entries(built).map(([name, source]) => [name, path.join(projectRoot, source)]),
    ),
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node24",
    // Every script's source stays in memory while the server runs: without
    // its spaces and comments it is two thirds as large. Names are not
    // shortened, so stack traces stay readable. esbuild's keepNames, which
    // would keep them under shortening, wraps every function it creates in a
    // call that sets its name: it cost a fifth more CPU per request
    // (docs/decisions/039-server-bundle.md).
    minifyWhitespace: true,
    minifySyntax: true,
    // Node's own modules stay imports, and so do React's: its packages choose
    // their production or development build when they load (NODE_ENV), and a
    // bundle would carry both. pg's optional native binding is not installed.
    // Fastify's JSON Schema compilers are never built (server/app.ts gives it
    // zod's), so their code (Ajv, fast-json-stringify) stays out of the bundle.
    external: [
      "react",
      "react-dom",
      "pg-native",
      "@fastify/ajv-compiler",
      "@fastify/fast-json-stringify-compiler",
    ],
    // Packages written as CommonJS call require() for Node's modules.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
    },
    metafile: true,
    write: false,
    logLevel: "warning",
    plugins: [sourcePaths(outdir), fastifyServerModulesOnUse()],
  });
  const inputs = Object.keys(result.metafile.inputs)
    .filter((file) => !file.split("/").includes("node_modules"))
    .map((file) => toPosix(path.relative(projectRoot, path.resolve(projectRoot, file))))
    .sort();
  const outputs = [
    ...result.outputFiles.map((file) => toPosix(path.relative(outdir, file.path))),
    newDatabaseName,
  ];
  for (const file of result.outputFiles) {
    writeWhole(
      file.path,
      file.path.endsWith(".js") ? asciiOnly(file.text, file.path) : file.contents,
    );
  }
  writeWhole(path.join(outdir, newDatabaseName), await migratedDatabase());
  const kept = new Set([...outputs, ...(readStamp(outdir)?.outputs ?? []), stampName]);
  for (const entry of readdirSync(outdir, { recursive: true, withFileTypes: true })) {
    const file = toPosix(path.relative(outdir, path.join(entry.parentPath, entry.name)));
    if (entry.isFile() && !kept.has(file) && !file.endsWith(".partial"))
      rmSync(path.join(outdir, file), { force: true });
  }
  writeWhole(
    path.join(outdir, stampName),
    JSON.stringify({ hash: hashOf(inputs), inputs, outputs } satisfies Stamp),
  );
  fillCompileCache(
    outputs
      .filter((file) => file.endsWith(".js") && !(file.slice(0, -3) in built))
      .map((file) => path.join(outdir, file)),
  );
  return result.metafile;
}

/**
 * An empty SQLite database with every migration applied, for a first start to
 * copy (server/db/new-database.ts): made by the same code as the server's
 * (`openStore`, `migrateToLatest`), checkpointed and closed, so it is one file.
 */
async function migratedDatabase(): Promise<Buffer> {
  const { migrateToLatest, openStore } = await import("../server/db/store.ts");
  const scratch = mkdtempSync(path.join(tmpdir(), "ewe-new-database-"));
  try {
    const file = path.join(scratch, "engage.sqlite");
    const store = await openStore({ kind: "sqlite", file });
    try {
      await migrateToLatest(store);
    } finally {
      await store.close();
    }
    return readFileSync(file);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Fills Node's compile cache (server/main.ts) with the new build's chunks, so
 * that the first start after a build is as quick as every start after it
 * (docs/decisions/038-start-and-idle.md): without it, that start compiled
 * 3 MB of JavaScript and took a quarter longer. What Node keeps is what it
 * compiled when it loaded each file, so loading them is enough; the entries
 * themselves would start the server, or wait for a parent thread. The cache
 * belongs to the flags it was made with, hence `npm start`'s, and to the
 * folder Node chooses as the server will (NODE_COMPILE_CACHE, else the
 * system's temporary folder).
 */
function fillCompileCache(chunks: string[]) {
  const load = `import module from "node:module";
module.enableCompileCache?.();
for (const chunk of ${JSON.stringify(chunks.map((chunk) => pathToFileURL(chunk).href))}) await import(chunk);
module.flushCompileCache?.();`;
  execFileSync(process.execPath, [...startFlags(), "--input-type=module", "--eval", load], {
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "ignore", "inherit"],
  });
}
