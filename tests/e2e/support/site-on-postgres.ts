import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { compileCacheDir } from "../../support/compile-cache.ts";
import { createDatabase, startPostgres } from "../../support/postgres.ts";
import { startServerProcess } from "../../support/server-process.ts";
import { postgresPort, siteEnv, siteServer } from "./site.ts";

/**
 * The site on PostgreSQL, for what only a browser sees of it: live events,
 * which PostgreSQL delivers through LISTEN even to one instance
 * (engagement.spec.ts, "live deltas on PostgreSQL"; everything else the API
 * does on PostgreSQL is the server tests'). A throwaway cluster on loopback, a
 * fresh database, then the real server (the bundle, as `npm start` runs it) on
 * `postgresPort`. Started by the worker that runs those tests, beside the
 * other worker's tests, not before any test can begin; `stop` stops both.
 */
export async function startSiteOnPostgres(): Promise<{ stop(): Promise<void> }> {
  const postgres = await startPostgres();
  try {
    const ownUrl = `http://127.0.0.1:${postgresPort}`;
    const server = await startServerProcess({
      args: siteServer.args,
      env: {
        ...siteEnv,
        ...siteServer.env,
        PORT: String(postgresPort),
        // The pages were built for the shared site's address; this server's
        // own is what its readers' browsers send as their Origin.
        SITE_URL: ownUrl,
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "ewe-e2e-pg-")),
        DATABASE_URL: await createDatabase(postgres.url, "ewe_e2e"),
        COOKIE_SECRET: "e2e-postgres-cookie-secret-0123456789abcdef",
        // Its port is read from the "Server listening" line.
        LOG_LEVEL: "info",
        NODE_COMPILE_CACHE: compileCacheDir,
      },
      startTimeoutMs: 120_000,
    });
    return {
      async stop() {
        try {
          await server.stop();
        } finally {
          await postgres.stop();
        }
      },
    };
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}
