import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { clientDir, projectRoot } from "../scripts/build-inputs.ts";
import { startCountingSink } from "../tests/server/support/smtp.ts";
import { freePort } from "../tests/support/postgres.ts";
import { rssMb, settledRssMb } from "./process-stats.ts";
import { seed, startServerUnderTest } from "./server-under-test.ts";
import { median } from "./timing.ts";

/*
 * `npm run bench:start`: the server's start and idle memory alone, as
 * `npm run bench` measures them once, BENCH_STARTS times (default 5) with
 * Node's compile cache empty (a first start after a change) and as many
 * with it filled (every start after), and their medians: the time from the
 * spawn to the first accepted connection, the server's CPU time by then
 * (less noisy on a shared machine than the wall time), and its RSS once
 * seeded as the bench seeds it, and once it has settled (`settledRssMb`).
 * Each start has a database of its own. By default it runs what `npm start` runs; arguments run something
 * else with the same settings, for a comparison (`npm run bench:start --
 * server/main.ts`, the TypeScript sources).
 */

const starts = Number(process.env.BENCH_STARTS ?? 5);
const given = process.argv.slice(2);
const args = given.length
  ? given.map((arg) => (arg.startsWith("-") ? arg : path.resolve(projectRoot, arg)))
  : undefined;

execFileSync(process.execPath, [path.join(projectRoot, "scripts/ensure-build.ts")], {
  stdio: "inherit",
});
const scratch = mkdtempSync(path.join(os.tmpdir(), "ewe-bench-start-"));
// The owner's notifications of the seeded comments go out through SMTP, as in the bench.
const smtp = await startCountingSink();

type Sample = { startMs: number; cpuMs: number; rssMb: number; settledRssMb: number };

async function once(name: string, compileCache: string): Promise<Sample> {
  const port = await freePort();
  const server = await startServerUnderTest({
    port,
    clientRoot: clientDir,
    dataDir: path.join(scratch, name),
    smtpUrl: smtp.url,
    logFile: path.join(scratch, `${name}.log`),
    env: { NODE_COMPILE_CACHE: compileCache },
    ...(args ? { args } : {}),
  });
  try {
    await seed(server.url);
    const pid = server.child.pid ?? 0;
    const rss = rssMb(pid);
    return {
      startMs: server.startMs,
      cpuMs: server.startCpuMs,
      rssMb: rss,
      settledRssMb: await settledRssMb(pid),
    };
  } finally {
    server.child.kill("SIGTERM");
    await new Promise((resolve) => server.child.once("exit", resolve));
  }
}

function summary(label: string, samples: Sample[]) {
  const column = (key: keyof Sample, unit: string) =>
    `${key} ${Math.round(median(samples.map((sample) => sample[key])))} ${unit} (${samples.map((sample) => Math.round(sample[key])).join(", ")})`;
  console.info(
    `${label.padEnd(6)} ${column("startMs", "ms")}   ${column("cpuMs", "ms")}   ${column("rssMb", "MB")}   ${column("settledRssMb", "MB")}`,
  );
}

try {
  console.info(
    `Start and idle: ${args ? args.join(" ") : "as npm start runs it"}, ${starts} starts each, load average ${os.loadavg()[0]?.toFixed(1)}`,
  );
  const cold: Sample[] = [];
  for (let i = 0; i < starts; i += 1)
    cold.push(await once(`cold-${i}`, path.join(scratch, `cache-${i}`)));
  const warmCache = path.join(scratch, "cache-warm");
  await once("prime", warmCache);
  const warm: Sample[] = [];
  for (let i = 0; i < starts; i += 1) warm.push(await once(`warm-${i}`, warmCache));
  summary("cold", cold);
  summary("warm", warm);
} finally {
  await smtp.close();
  rmSync(scratch, { recursive: true, force: true });
}
