import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { projectRoot } from "../scripts/build-inputs.ts";
import { startCountingSink } from "../tests/server/support/smtp.ts";
import { freePort } from "../tests/support/postgres.ts";
import { cpuMs } from "./process-stats.ts";
import type { ServerUnderTest } from "./server-under-test.ts";
import { apiHeaders, pageHeaders, viewHeaders, viewPath, viewsUnlimited } from "./views.ts";
import { wrk } from "./wrk.ts";

/*
 * `npm run bench:cpu`: the server's CPU time per request, which the load
 * others make on a shared machine disturbs far less than requests a second.
 * The site's build (`npm start`'s, built if missing), started and seeded as
 * `npm run bench` starts and seeds it (bench/server-under-test.ts), and
 * with `npm run bench:cpu -- ../other-checkout` another checkout's build
 * beside it, started and seeded by its own bench, for a comparison across
 * commits. Each route in turn, for BENCH_ROUNDS rounds (default 5): wrk on
 * every server at once (BENCH_CONNECTIONS, default 50; a page and a view
 * with a browser's headers, bench/views.ts), 2 s of warming, then BENCH_DURATION seconds
 * (default 6) counted, each server's user and system CPU from /proc over
 * them. Printed: each build's µs per request, median (range), and the
 * other's to this one's within each round. BENCH_ROUTES (comma-separated)
 * picks the routes: `cookie` (the comments read with the seeded reader's
 * cookie), `cached` (the same read without one; both compression accepted),
 * `view` (the readers' beacon, POST, as `npm run bench` sends it), or a
 * page's path; BENCH_PORT
 * the first of the ports (one a build; free ones by default).
 */

const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const seconds = Number(process.env.BENCH_DURATION ?? 6);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const routes = (
  process.env.BENCH_ROUTES ?? "cookie,/science,/science/soap,cached,/about,view"
).split(",");
const roots = [projectRoot, ...process.argv.slice(2).map((root) => path.resolve(root))];
const comments = "/api/items/science/ironing/comments";

type Build = { root: string; server: ServerUnderTest; cookie: string; us: Map<string, number[]> };

const scratch = mkdtempSync(path.join(os.tmpdir(), "ewe-bench-cpu-"));
const smtp = await startCountingSink();
const builds: Build[] = [];

/** Starts and seeds `root`'s build with `root`'s own bench. */
async function start(root: string, index: number): Promise<Build> {
  execFileSync(process.execPath, [path.join(root, "scripts/ensure-build.ts")], {
    cwd: root,
    stdio: "inherit",
  });
  const bench = (await import(
    path.join(root, "bench/server-under-test.ts")
  )) as typeof import("./server-under-test.ts");
  const { startArguments } = (await import(
    path.join(root, "scripts/build-server.ts")
  )) as typeof import("../scripts/build-server.ts");
  const base = process.env.BENCH_PORT;
  const server = await bench.startServerUnderTest({
    port: base ? Number(base) + index : await freePort(),
    clientRoot: path.join(root, "build/client"),
    dataDir: path.join(scratch, `data-${index}`),
    smtpUrl: smtp.url,
    logFile: path.join(scratch, `server-${index}.log`),
    args: startArguments().map((arg) => (arg.startsWith("-") ? arg : path.resolve(root, arg))),
    env: viewsUnlimited,
  });
  const build: Build = { root, server, cookie: "", us: new Map() };
  builds.push(build);
  const [reader] = await bench.seed(server.url);
  build.cookie = reader?.cookie ?? "";
  return build;
}

/** wrk's target, method and headers for `route` on `build`. */
function target(build: Build, route: string) {
  const { origin } = new URL(build.server.url);
  if (route === "view") {
    const url = new URL(viewPath, origin).toString();
    return { url, method: "POST" as const, headers: viewHeaders(origin) };
  }
  const api = route === "cookie" || route === "cached";
  const headers: Record<string, string> = api ? apiHeaders(origin) : pageHeaders(origin);
  if (route === "cookie") headers.cookie = build.cookie;
  const pathname = api ? comments : route;
  return { url: new URL(pathname, build.server.url).toString(), method: "GET" as const, headers };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2
    ? (sorted[Math.floor(middle)] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
};
const spread = (values: number[], digits: number) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

try {
  for (const [index, root] of roots.entries()) await start(root, index);
  const started = builds;
  console.info(
    `CPU per request: ${started.map((build) => path.basename(build.root)).join(" beside ")}, ${rounds} rounds of ${seconds} s, ${connections} connections, load average ${os.loadavg()[0]?.toFixed(1)}`,
  );
  for (let round = 1; round <= rounds; round += 1) {
    for (const route of routes) {
      const runs = started.map((build) => ({ build, ...target(build, route) }));
      await Promise.all(
        runs.map(({ url, method, headers }) =>
          wrk(url, { connections, seconds: 2, method, headers }),
        ),
      );
      const before = runs.map(({ build }) => cpuMs(build.server.child.pid ?? 0));
      const answered = await Promise.all(
        runs.map(({ url, method, headers }) => wrk(url, { connections, seconds, method, headers })),
      );
      runs.forEach(({ build }, i) => {
        const { stdout, failed } = answered[i] as Awaited<ReturnType<typeof wrk>>;
        if (failed) throw new Error(`wrk on ${route} failed:\n${stdout}`);
        const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
        const us = ((cpuMs(build.server.child.pid ?? 0) - (before[i] ?? 0)) * 1000) / requests;
        build.us.set(route, [...(build.us.get(route) ?? []), us]);
      });
    }
  }
  const [own, ...others] = started;
  for (const route of routes) {
    const mine = own?.us.get(route) ?? [];
    const columns = [own, ...others].map(
      (build) => `${path.basename(build?.root ?? "")} ${spread(build?.us.get(route) ?? [], 1)} µs`,
    );
    const ratios = others.map(
      (other) =>
        `${path.basename(other.root)} ÷ this ${spread(
          (other.us.get(route) ?? []).map((us, i) => us / (mine[i] ?? Number.NaN)),
          2,
        )}`,
    );
    console.info(`${route.padEnd(16)} ${[...columns, ...ratios].join("   ")}`);
  }
} finally {
  for (const { server } of builds) server.child.kill("SIGTERM");
  await smtp.close();
  rmSync(scratch, { recursive: true, force: true });
}
