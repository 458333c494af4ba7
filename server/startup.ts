import type { CommentNotifier } from "./comments/notifier.ts";
import type { ReplySettings } from "./comments/repository.ts";
import type { Config } from "./config.ts";
import { refuseLostDatabase } from "./db/lost-database.ts";
import { migrateToLatest, openStore, type Store } from "./db/store.ts";
import { storeOptionsOf } from "./db/store-config.ts";
import { createEngagement } from "./engagement/index.ts";
import { createReadCache, type ReadCache } from "./engagement/read-cache.ts";
import { cookieSecretFileOf } from "./engagement/visitor.ts";
import type { WriterKeys } from "./engagement/writer-keys.ts";
import { createLocalBus, type EventBus } from "./events/bus.ts";
import { createEventJournal, type EventJournal } from "./events/journal.ts";
import type { Log } from "./lib/log.ts";
import { dayMs } from "./lib/time.ts";
import { createModeration } from "./moderation/service.ts";
import { createSpamFilter } from "./moderation/spam/filter.ts";
import { createSpamStore, forgetExamples } from "./moderation/spam/store.ts";

/** Events older than this are forgotten; a client away longer is told to resync. */
const eventRetentionMs = dayMs;
const pruneEveryMs = 60 * 60 * 1000;
/** What the honeypot caught is kept this long, for the owner to look at, then forgotten. */
const spamRetentionMs = 30 * dayMs;

type StoreConfig = Pick<Config, "DATABASE_URL" | "DATA_DIR" | "DATABASE_STATEMENT_TIMEOUT_SECONDS">;

/**
 * Opens the store named by the configuration, migrates it, and starts the
 * live event bus that suits it.
 *
 * On SQLite, a database file of zero bytes beside the cookie secret an
 * earlier start wrote is refused (server/db/lost-database.ts). On PostgreSQL
 * the server's statements are held to DATABASE_STATEMENT_TIMEOUT_SECONDS;
 * the migrations run first on a connection of their own without it, since
 * one may rightly take long on a large table.
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
  const named = storeOptionsOf(config);
  const options =
    named.kind === "postgres" ? { ...named, connectionWaitMs } : { ...named, newDatabase };
  if (options.kind === "sqlite") refuseLostDatabase(options.file, cookieSecretFileOf(config));
  if (options.kind === "postgres") {
    const migrating = await openStore(options, log);
    try {
      await migrateToLatest(migrating);
    } finally {
      await migrating.close();
    }
  }
  const store = await openStore(
    options.kind === "postgres"
      ? { ...options, statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_SECONDS * 1000 }
      : options,
    log,
  );
  let bus: EventBus;
  const events = createEventJournal(store);
  try {
    if (store.kind === "sqlite") await migrateToLatest(store);
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

/**
 * The repositories, the item reads from memory (read-cache.ts), the owner's
 * moderation and the spam filter with what it learns from, on an open store,
 * with the pruning of old events, stale subscriptions and caught spam.
 */
export function startEngagement({
  store,
  events,
  bus,
  keys,
  notifier,
  replies,
  clock,
  moderationMode,
  spamConfig,
  log,
}: {
  store: Store;
  events: EventJournal;
  bus: EventBus;
  keys: WriterKeys;
  notifier: CommentNotifier;
  /** The readers' reply mails (docs/product.md, "Reply mails"). */
  replies?: ReplySettings;
  /** When comments are written and edited (tests move it on). */
  clock?: () => Date;
  moderationMode: Config["MODERATION"];
  spamConfig: Pick<Config, "HOLD_LINKS_FROM_NEW" | "SPAM_MODEL_FILE">;
  log: Log;
}) {
  // A write's own instance forgets the item's cached reads the moment it commits,
  // before it answers; the bus brings the news to the other instances.
  let reads: ReadCache | undefined;
  const engagement = createEngagement(
    store,
    events,
    {
      committed(event) {
        reads?.committedHere(event);
        bus.committed(event);
      },
    },
    keys,
    forgetExamples,
    notifier,
    replies,
    clock,
  );
  reads = createReadCache({ reactions: engagement.reactions, comments: engagement.comments, bus });
  const spamStore = createSpamStore(store);
  const spam = {
    store: spamStore,
    filter: createSpamFilter({
      store: spamStore,
      holdLinksFromNew: spamConfig.HOLD_LINKS_FROM_NEW,
      ...(spamConfig.SPAM_MODEL_FILE ? { modelFile: spamConfig.SPAM_MODEL_FILE } : {}),
      log,
    }),
  };
  const moderation = createModeration({
    store,
    comments: engagement.comments,
    mode: moderationMode,
    spam: spamStore,
  });

  const prune = () =>
    Promise.all([
      events.pruneBefore(new Date(Date.now() - eventRetentionMs)),
      engagement.subscribers.prune(),
      engagement.comments.pruneSpam(new Date(Date.now() - spamRetentionMs)),
    ]).catch((error) => log.warn({ err: error }, "old records could not be pruned"));
  void prune();
  const pruning = setInterval(prune, pruneEveryMs);
  pruning.unref();

  return {
    engagement,
    reads,
    moderation,
    spam,
    stop() {
      reads?.close();
      clearInterval(pruning);
    },
  };
}
