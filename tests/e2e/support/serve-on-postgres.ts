import { spawn } from "node:child_process";
import { createDatabase, startPostgres } from "../../support/postgres.ts";
import { siteServer } from "./site.ts";

/**
 * The site on PostgreSQL for the browser tests: a throwaway cluster on loopback,
 * a fresh database, then the real server (the bundle, as `npm start` runs it).
 * Stopping this process stops both.
 */
const postgres = await startPostgres();
const databaseUrl = await createDatabase(postgres.url, "ewe_e2e");
// The pages were built for the first browser-test server's address; this
// server's own is what its readers' browsers send as their Origin.
const ownUrl = `http://${process.env.HOST ?? "127.0.0.1"}:${process.env.PORT}`;
const server = spawn(process.execPath, siteServer.args, {
  env: { ...process.env, ...siteServer.env, DATABASE_URL: databaseUrl, SITE_URL: ownUrl },
  stdio: "inherit",
});

let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  if (server.exitCode === null) {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  await postgres.stop();
  process.exit(code);
}
server.once("exit", (code) => void stop(code ?? 1));
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => void stop(0));
