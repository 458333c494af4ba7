import type { Config } from "./config.ts";
import { refuseLostDatabase } from "./db/lost-database.ts";
import { isMigrated, migrateToLatest, openStore, type Store, tightenDataDir } from "./db/store.ts";
import { storeOptionsOf } from "./db/store-config.ts";
import { cookieSecretFileOf, migrationAddressKey } from "./engagement/visitor.ts";
import { createLocalBus, type EventBus } from "./events/bus.ts";
import { createEventJournal, type EventJournal } from "./events/journal.ts";
import { checksAtOnce } from "./fediverse/webmention-queue.ts";
import type { Log } from "./lib/log.ts";

type StoreConfig = Pick<
  Config,
  | "DATABASE_URL"
  | "DATA_DIR"
  | "DATABASE_STATEMENT_TIMEOUT_SECONDS"
  | "COOKIE_SECRET"
  | "MAIL_CONNECTIONS"
>;

/**
 * Opens the store named by the configuration, migrates it, and starts the
 * live event bus that suits it. A DATA_DIR readable by others is tightened
 * first (`tightenDataDir`).
 *
 * On SQLite, a database file of zero bytes beside the cookie secret an
 * earlier start wrote is refused (server/db/lost-database.ts). On PostgreSQL
 * the server's statements are held to DATABASE_STATEMENT_TIMEOUT_SECONDS;
 * migrations not yet run (`isMigrated`) run on a connection of their own
 * without it, since one may rightly take long on a large table.
 */
export async function openStoreAndBus(
  config: StoreConfig,
  log: Log,
  {
    connectionWaitMs,
    newDatabase,
  }: {
    /** See `StoreOptions`: tests on a loaded machine let requests wait longer. */
    connectionWaitMs?: number;
    /** See `StoreOptions`: a migrated empty SQLite database, for a first start. */
    newDatabase?: string;
  } = {},
): Promise<{ store: Store; events: EventJournal; bus: EventBus; close(): Promise<void> }> {
  tightenDataDir(config.DATA_DIR, log);
  const named = storeOptionsOf(config);
  const options =
    named.kind === "postgres" ? { ...named, connectionWaitMs } : { ...named, newDatabase };
  if (options.kind === "sqlite") refuseLostDatabase(options.file, cookieSecretFileOf(config));
  const store = await openStore(
    options.kind === "postgres"
      ? {
          ...options,
          statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_SECONDS * 1000,
          // The outbox's sends in flight and the webmentions' checks, each on a connection of
          // its own that holds its claim (server/outbox/service.ts, fediverse/webmentions.ts).
          senders: config.MAIL_CONNECTIONS + checksAtOnce,
        }
      : options,
    log,
  );
  let bus: EventBus;
  const events = createEventJournal(store);
  try {
    if (store.kind === "sqlite") await migrateToLatest(store, migrationAddressKey(config));
    else if (!(await isMigrated(store))) {
      const migrating = await openStore(options, log);
      try {
        await migrateToLatest(migrating, migrationAddressKey(config));
      } finally {
        await migrating.close();
      }
    }
    if (config.DATABASE_URL) {
      const { createPostgresBus } = await import("./events/postgres-bus.ts");
      bus = await createPostgresBus({
        connectionString: config.DATABASE_URL,
        journal: events,
        log,
      });
    } else {
      bus = createLocalBus({ lastEventId: await events.latestId(), journal: events, log });
    }
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    store,
    events,
    bus,
    async close() {
      await bus.close();
      await store.close();
    },
  };
}
