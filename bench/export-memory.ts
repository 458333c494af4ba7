import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { migrateToLatest, openStore } from "../server/db/store.ts";

/*
 * `npm run bench:export`: the owner's export of a large site in bounded
 * memory (docs/decisions/030-import-and-export.md). It fills a SQLite
 * database with BENCH_EXPORT_COMMENTS comments (default 100,000), runs
 * `admin export --out FILE` as its own process, as `npm run admin` does, samples that process's
 * resident memory until it ends, checks that the file holds every comment,
 * and prints the peak against the 150 MB budget. Everything stays in a
 * temporary folder on this machine, removed at the end unless BENCH_KEEP is
 * set (to run the export again by hand on the same database).
 */

const projectRoot = path.resolve(import.meta.dirname, "..");
const count = Number(process.env.BENCH_EXPORT_COMMENTS ?? 100_000);
const budgetMb = 150;

const scratch = mkdtempSync(path.join(os.tmpdir(), "ewe-bench-export-"));
const dataDir = path.join(scratch, "data");
const env = {
  ...process.env,
  NODE_ENV: "development",
  DATA_DIR: dataDir,
  SITE_URL: "http://localhost:3000",
};
const admin = path.join(projectRoot, "server/cli/admin.ts");

function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0; // It has just ended.
  }
}

try {
  // The database as the server leaves it on its first start.
  const store = await openStore({ kind: "sqlite", file: path.join(dataDir, "engage.sqlite") });
  await migrateToLatest(store);
  await store.close();
  const db = new DatabaseSync(path.join(dataDir, "engage.sqlite"));
  const insert = db.prepare(
    `insert into science_comments (post_id, content, content_html, user_name, visitor_id, created_at, updated_at, status)
     values (?, ?, ?, ?, ?, ?, ?, 'published')`,
  );
  const posts = ["soap", "wifi", "ironing", "tea-cooling", "pressure-cooker"];
  const text =
    "The gasket seats at about 0.8 bar above the room, and the weight lifts a little later. ".repeat(
      2,
    );
  const filled = performance.now();
  db.exec("begin");
  for (let i = 0; i < count; i += 1) {
    const at = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
    insert.run(
      posts[i % posts.length] ?? "soap",
      text,
      `<p>${text}</p>`,
      `Reader ${i % 997}`,
      `bench-visitor-${i % 5000}`,
      at,
      at,
    );
  }
  db.exec("commit");
  db.close();
  console.info(
    `Filled a SQLite database with ${count.toLocaleString("en")} comments in ${((performance.now() - filled) / 1000).toFixed(1)} s.`,
  );

  const file = path.join(scratch, "site.json");
  const started = performance.now();
  // As `npm run admin` runs it: with the V8 flags its script gives node.
  const script: string = JSON.parse(readFileSync(path.join(projectRoot, "package.json"), "utf8"))
    .scripts.admin;
  const flags = script.split(" ").filter((word) => word.startsWith("--"));
  const child = spawn(process.execPath, [...flags, admin, "export", "--out", file], {
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  let peakMb = 0;
  const sampler = setInterval(() => {
    if (child.pid) peakMb = Math.max(peakMb, rssMb(child.pid));
  }, 10);
  const [code] = (await once(child, "exit")) as [number | null];
  clearInterval(sampler);
  if (code !== 0) throw new Error(`admin export exited with ${code}`);
  const seconds = (performance.now() - started) / 1000;

  const written = JSON.parse(readFileSync(file, "utf8")) as {
    tables: { science_comments: unknown[] };
  };
  if (written.tables.science_comments.length !== count) {
    throw new Error(
      `the export holds ${written.tables.science_comments.length} comments, not ${count}`,
    );
  }
  const mb = statSync(file).size / 1024 / 1024;
  console.info(
    `export: ${count.toLocaleString("en")} comments to one ${mb.toFixed(0)} MB file in ${seconds.toFixed(1)} s, ` +
      `the command line's RSS peak ${peakMb.toFixed(0)} MB (budget < ${budgetMb} MB): ${peakMb < budgetMb ? "met" : "MISSED"}`,
  );
  if (peakMb >= budgetMb) process.exitCode = 1;
} finally {
  if (!process.env.BENCH_KEEP) rmSync(scratch, { recursive: true, force: true });
  else console.info(scratch);
}
