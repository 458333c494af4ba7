import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import type { Metafile } from "esbuild";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readOwnerProfile } from "../../content/owner.ts";
import { commentsResponseSchema } from "../../contract/api.ts";
import {
  asciiOnly,
  buildServer,
  serverBuildDir,
  startArguments,
  startEnvironment,
  startFlags,
} from "../../scripts/build-server.ts";
import { newDatabaseName } from "../../server/db/new-database.ts";
import { fakeBuiltSite, fakeSciencePage } from "../support/built-site.ts";
import { formTokenFor, isAddressedTo } from "../support/newsletter.ts";
import { projectRoot, type ServerProcess, startServerProcess } from "../support/server-process.ts";
import { httpVisitor } from "../support/visitor.ts";
import { type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { json } from "./support/test-app.ts";

/*
 * `npm start` runs the server bundled into JavaScript (scripts/build-server.ts,
 * docs/decisions/039-server-bundle.md) while every other test runs its
 * TypeScript sources: this one builds the bundle into a folder of its own and
 * starts it as `npm start` does, so that a bundling mistake (a data file read
 * from the wrong folder, a package left out, the SMTP thread's file, a chunk
 * loaded on first use) fails here rather than in production.
 */

/** Where the server notes Node's modules it has loaded once it listens. */
const loadedAtListen = (folder: string) => path.join(folder, "modules-at-listen.txt");
/** And what it has asked of ICU's locale data by then (a date format, region names, a date in a calendar). */
const localeDataAtListen = (folder: string) => path.join(folder, "locale-data-at-listen.txt");

let outdir: string;
let metafile: Metafile;
let dataDir: string;
let compileCache: string;
let smtp: SmtpSink;
let server: ServerProcess;

beforeAll(async () => {
  // Inside the project, as build/server is: React's packages, which the
  // bundle leaves out, are found in its node_modules from there.
  mkdirSync(path.join(projectRoot, "build"), { recursive: true });
  outdir = mkdtempSync(path.join(projectRoot, "build", "test-bundle-"));
  dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-bundle-data-"));
  // The build fills Node's compile cache where the server will look for it,
  // NODE_COMPILE_CACHE when set: here a folder of this test's own.
  compileCache = mkdtempSync(path.join(os.tmpdir(), "ewe-bundle-cache-"));
  const cacheBefore = process.env.NODE_COMPILE_CACHE;
  process.env.NODE_COMPILE_CACHE = compileCache;
  try {
    metafile = await buildServer(outdir);
  } finally {
    if (cacheBefore === undefined) delete process.env.NODE_COMPILE_CACHE;
    else process.env.NODE_COMPILE_CACHE = cacheBefore;
  }
  smtp = await startSmtpSink();
  // npm start's own flags, with this test's bundle in place of build/server's,
  // and a note of Node's own modules loaded, and of ICU's locale data asked
  // for, by the time the server listens.
  writeFileSync(
    path.join(dataDir, "note-modules.mjs"),
    `import { writeFileSync } from "node:fs";
const asked = [];
for (const name of ["DateTimeFormat", "DisplayNames"]) {
  Intl[name] = new Proxy(Intl[name], {
    construct(target, args) {
      asked.push(name);
      return Reflect.construct(target, args);
    },
  });
}
for (const name of ["toLocaleString", "toLocaleDateString", "toLocaleTimeString"]) {
  const own = Date.prototype[name];
  Date.prototype[name] = function (...args) {
    asked.push("Date's " + name);
    return own.apply(this, args);
  };
}
const { Server } = process.getBuiltinModule("node:net");
const listen = Server.prototype.listen;
Server.prototype.listen = function (...args) {
  this.once("listening", () => {
    writeFileSync(${JSON.stringify(loadedAtListen(dataDir))}, process.moduleLoadList.join("\\n"));
    writeFileSync(${JSON.stringify(localeDataAtListen(dataDir))}, asked.join("\\n"));
  });
  return listen.apply(this, args);
};
`,
  );
  const args = startArguments().flatMap((arg) =>
    arg === path.join(serverBuildDir, "main.js")
      ? [
          `--import=${pathToFileURL(path.join(dataDir, "note-modules.mjs"))}`,
          path.join(outdir, "main.js"),
        ]
      : [arg],
  );
  server = await startServerProcess({
    args,
    env: {
      ...startEnvironment(),
      CLIENT_ROOT: fakeBuiltSite({ "science/index.html": fakeSciencePage }),
      DATA_DIR: dataDir,
      SMTP_URL: smtp.url,
      MAIL_FROM: "site@example.com",
      NODE_ENV: "production",
      CONTACT_EMAIL: "owner@example.com",
      // The sample under its own name: production refuses its stories under any other.
      SITE_OWNER_NAME: readOwnerProfile().name,
      COOKIE_SECRET: "b".repeat(64),
    },
  });
  // The notes are written when Node emits "listening", which a loaded machine
  // may run just after the server's own line says it listens: wait for them.
  await vi.waitFor(() => readFileSync(localeDataAtListen(dataDir), "utf8"), {
    timeout: 30_000,
    interval: 50,
  });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await smtp?.close();
  rmSync(outdir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(compileCache, { recursive: true, force: true });
});

describe("the server as npm start runs it, bundled", () => {
  it("reads the owner's busy calendar in a thread of its own, from its own file", async () => {
    const built: typeof import("../../server/bookings/busy-times.ts") = await import(
      pathToFileURL(path.join(outdir, "calendar-thread.js")).href
    );
    const file = [
      "BEGIN:VCALENDAR",
      "BEGIN:VEVENT",
      "UID:x",
      "DTSTART:19700101T100000Z",
      "DTEND:19700101T110000Z",
      "RRULE:FREQ=DAILY",
      "END:VEVENT",
      "END:VCALENDAR",
    ].join("\r\n");
    const from = Date.parse("2026-12-01T00:00:00Z");
    const { busy } = await built.readBusyTimes(file, { from, to: from + 86_400_000, zone: "UTC" });
    expect(busy).toEqual([{ start: from + 36_000_000, end: from + 39_600_000 }]);
  });

  it("is what npm start runs, with one malloc arena (docs/decisions/066-one-malloc-arena.md)", () => {
    expect(startArguments()).toContain(path.join(serverBuildDir, "main.js"));
    expect(startEnvironment()).toEqual({ MALLOC_ARENA_MAX: "1" });
  });

  it("loads at start none of what the server imports on first use", () => {
    // What a start loads: main.js, what it imports (its own imports are
    // dynamic, after the compile cache is on), and their static imports.
    const outputs = metafile.outputs;
    const main = Object.keys(outputs).find(
      (file) => outputs[file]?.entryPoint === "server/main.ts",
    );
    const loaded = new Set<string>();
    // Packages the bundle leaves out (React's), imported by what a start loads.
    const externalAtStart = new Set<string>();
    const visit = (file: string, followDynamic: boolean) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const { path: next, kind, external } of outputs[file]?.imports ?? []) {
        if (external) {
          if (kind === "import-statement") externalAtStart.add(next);
          continue;
        }
        if (kind === "import-statement" || (followDynamic && kind === "dynamic-import")) {
          visit(next, false);
        }
      }
    };
    visit(main ?? "", true);
    const packagesAtStart = new Set(
      [...loaded].flatMap((file) =>
        Object.keys(outputs[file]?.inputs ?? {}).flatMap(
          (input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? [],
        ),
      ),
    );
    expect(packagesAtStart).toContain("fastify");
    for (const onFirstUse of [
      // Fastify's JSON Schema compilers: every schema is zod's (server/app.ts).
      "ajv",
      "@fastify/ajv-compiler",
      "nodemailer",
      "@simplewebauthn/server",
      "html-to-text",
      "pg",
      "@fedify/fedify",
      // Fedify's Temporal: its module reads a date in the Indian calendar as it loads.
      "@js-temporal/polyfill",
      // The HTML parser of the pages that mention the site.
      "parse5",
    ]) {
      expect(packagesAtStart, onFirstUse).not.toContain(onFirstUse);
    }
    // The pages' comments are drawn by React on the first page filled in.
    expect(externalAtStart).toContain("node:sqlite");
    expect([...externalAtStart].filter((name) => name.startsWith("react"))).toEqual([]);
  });

  it("does not load Node's fetch to start: it comes with the first request that needs it", () => {
    const loaded = readFileSync(loadedAtListen(dataDir), "utf8").split("\n");
    expect(loaded.length).toBeGreaterThan(50);
    expect(loaded).toContain("NativeModule net");
    expect(loaded.filter((name) => name.includes("undici"))).toEqual([]);
  });

  it("loads neither TLS nor HTTP/2 to start: this server listens on plain HTTP", () => {
    const loaded = readFileSync(loadedAtListen(dataDir), "utf8").split("\n");
    expect(loaded).toContain("NativeModule http");
    for (const module of ["tls", "https", "http2"]) {
      expect(loaded).not.toContain(`NativeModule ${module}`);
    }
  });

  it("starts a new database as a copy of the one its build migrated", () => {
    const migrationsOf = (file: string) => {
      const db = new DatabaseSync(file, { readOnly: true });
      try {
        return db.prepare("select name, timestamp from kysely_migration order by name").all();
      } finally {
        db.close();
      }
    };
    const built = migrationsOf(path.join(outdir, newDatabaseName));
    expect(built.length).toBeGreaterThan(20);
    // Run by the build, when it ran them: the start ran none again.
    expect(migrationsOf(path.join(dataDir, "engage.sqlite"))).toEqual(built);
  });

  it("asks nothing of ICU's locale data to start: a date format, region names or a date in a calendar load it, some MB of memory, and come with their first use", () => {
    expect(readFileSync(localeDataAtListen(dataDir), "utf8")).toBe("");
  });

  it("holds its scripts in ASCII, so V8 keeps their source at a byte per character", () => {
    for (const file of Object.keys(metafile.outputs).filter((name) => name.endsWith(".js"))) {
      const bytes = readFileSync(path.resolve(projectRoot, file));
      expect(
        bytes.some((byte) => byte > 0x7f),
        file,
      ).toBe(false);
    }
  });

  it("leaves its chunks compiled in Node's compile cache, so the first start compiles none of them", () => {
    const app = Object.keys(metafile.outputs).find(
      (file) => metafile.outputs[file]?.entryPoint === "server/app.ts",
    );
    const appUrl = pathToFileURL(path.resolve(projectRoot, app ?? "")).href;
    // What the start loads, in a process with npm start's flags (the cache
    // is kept per set of flags); Node says of each file whether the cache had it.
    const { stderr, status } = spawnSync(
      process.execPath,
      [
        ...startFlags(),
        "--input-type=module",
        "--eval",
        `(await import("node:module")).default.enableCompileCache(); await import(${JSON.stringify(appUrl)});`,
      ],
      {
        env: {
          ...process.env,
          NODE_COMPILE_CACHE: compileCache,
          NODE_ENV: "production",
          NODE_DEBUG_NATIVE: "COMPILE_CACHE",
        },
        encoding: "utf8",
      },
    );
    expect(status).toBe(0);
    const outdirUrl = pathToFileURL(outdir).href;
    const verdicts = [...stderr.matchAll(/V8 code cache for ESM (\S+) was (\w+)/g)].filter(
      ([, url]) => url?.startsWith(outdirUrl),
    );
    expect(verdicts.map(([, url]) => url)).toContain(appUrl);
    for (const [, url, verdict] of verdicts) expect(verdict, url).toBe("accepted");
  });

  it("escapes a character outside ASCII to the same character, and refuses what an escape would change", () => {
    const script =
      'const money = /^[$₹€£]/u; const dots = "Wait…"; const caps = /[ᴀʙᴄ]/; const face = "😀";' +
      "return [money.test('₹5'), money.test('5'), dots, caps.test('xʙ'), face, /😀/u.test(face)];";
    const escaped = asciiOnly(script);
    expect(/[\u0080-\uffff]/.test(escaped)).toBe(false);
    expect(new Function(escaped)()).toEqual(new Function(script)());
    expect(() => asciiOnly("const s = /a\\…/;")).toThrow(/follows a backslash/);
    expect(() => asciiOnly("// a comment\u2028run();")).toThrow(/line separator/);
  });

  it("serves the built pages, filled in with what readers wrote through the API", async () => {
    const home = await fetch(`${server.url}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("<title>home</title>");

    const reader = httpVisitor(server.url, { origin: server.siteUrl });
    const posted = await reader.comment(
      "soap",
      "Soap **lifts** the grease off, then water rinses it.",
      "Asha",
    );
    expect(posted.statusCode).toBe(201);
    const comments = await reader.get("/api/items/science/soap/comments");
    expect(comments.statusCode).toBe(200);
    expect(json(comments, commentsResponseSchema).comments).toEqual([
      expect.objectContaining({ content: "Soap **lifts** the grease off, then water rinses it." }),
    ]);

    const page = await fetch(`${server.url}/science`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("How does soap clean?");
    // The comment as the page renders it: its Markdown made into HTML.
    expect(html).toContain("<strong>lifts</strong>");
  });

  it("sends mail through its SMTP thread", async () => {
    const reader = httpVisitor(server.url, { origin: server.siteUrl });
    const subscribed = await reader.subscribe(
      "bundle@example.com",
      formTokenFor({ COOKIE_SECRET: "b".repeat(64), DATA_DIR: dataDir }),
    );
    expect(subscribed.statusCode).toBeLessThan(300);
    await smtp.waitFor((received) =>
      received.some((mail) => isAddressedTo(mail.parsed, "bundle@example.com")),
    );
  });
});
