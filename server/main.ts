import module from "node:module";
import path from "node:path";
import type { Config } from "./config.ts";

// Each start compiles the server and its packages (bundled into a few files
// by `npm run build`, docs/decisions/039-server-bundle.md; stripped of their
// types first when the tests run the sources): Node's compile cache (in the
// system's temporary folder) keeps that between starts
// (docs/decisions/038-start-and-idle.md). It applies only to what is imported
// after it, hence the imports below are dynamic.
module.enableCompileCache?.();
const [
  { buildApp },
  { loggerOptions },
  { loadConfigOrExit, startupLines },
  { compactWhenIdle },
  { newDatabaseName },
  { holdForOneServer },
] = await Promise.all([
  import("./app.ts"),
  import("./logging.ts"),
  import("./startup-line.ts"),
  import("./lib/idle-compaction.ts"),
  import("./db/new-database.ts"),
  import("./db/one-server.ts"),
]);

/** A process manager waits about this long after SIGTERM before it kills; finish first. */
const shutdownDeadlineMs = 10_000;

const config: Config = loadConfigOrExit();

let app: Awaited<ReturnType<typeof buildApp>>;
// Held while the process lives; the system lets go of it when the process ends.
let sqliteHeld: { close(): void } | undefined;
try {
  // SQLite is for one process: a second server on its folder is refused before it touches the data.
  if (config.databaseKind === "sqlite") sqliteHeld = holdForOneServer(config.DATA_DIR);
  app = await buildApp({
    config,
    logger: loggerOptions(config.LOG_LEVEL),
    // A first start on SQLite copies the database the build migrated, beside
    // the bundle (build/server/); the sources (server/) have none, and migrate.
    newDatabase: path.join(path.dirname(process.argv[1] ?? ""), newDatabaseName),
  });
} catch (error) {
  // The logger is gone with the app; a failed start is reported as one JSON line too.
  console.error(
    JSON.stringify({
      level: 60,
      time: Date.now(),
      msg: `could not start: ${error instanceof Error ? error.message : String(error)}`,
    }),
  );
  process.exit(1);
}

/*
 * SIGTERM (process managers, container stops) and SIGINT (Ctrl-C): stop
 * accepting connections, end the event streams, let requests in flight finish,
 * then close the database. Fastify's close runs in that order; see app.ts.
 */
let closing = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, async () => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down");
    const deadline = setTimeout(() => {
      app.log.error(`shutdown took longer than ${shutdownDeadlineMs / 1000} s; exiting`);
      process.exit(1);
    }, shutdownDeadlineMs);
    deadline.unref();
    try {
      await app.close();
      sqliteHeld?.close();
      app.log.info("shut down cleanly");
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, "shutdown failed");
      process.exit(1);
    }
  });
}

try {
  // SHARE_PORT: several processes listen on one port, and the kernel spreads the
  // connections over them (docs/decisions/083-several-processes-on-one-port.md).
  const listening = { host: config.HOST, port: config.PORT, reusePort: config.SHARE_PORT };
  await app.listen(listening);
  if (config.LOG_LEVEL !== "silent") console.error(startupLines(config).join("\n"));
  // Memory the start and busy spells grew is given back when the server goes quiet.
  compactWhenIdle();
} catch (error) {
  app.log.fatal({ err: error }, "could not listen");
  if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
    console.error(
      `Port ${config.PORT} on ${config.HOST} is in use: another server, or an earlier start of this one, listens there. Stop it, or set PORT${config.SHARE_PORT ? " (processes sharing a port must each set SHARE_PORT=on, and run as the same user)" : ""}.`,
    );
  }
  await app.close().catch(() => {});
  process.exit(1);
}
