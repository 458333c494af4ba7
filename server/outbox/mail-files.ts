import { readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import type { KyselyPlugin } from "kysely";
import type { Config } from "../config.ts";
import type { Store } from "../db/store.ts";

/*
 * Without SMTP_URL, each mail is a file in DATA_DIR/outbox/ named after its
 * outbox row (mailer.ts), which lives as long as the row. Small, with nothing
 * of the mail transport, since every process that opens the store needs it:
 * the server and each command of the command line.
 */

/**
 * Without SMTP_URL, the store whose deletions of outbox rows (queue.ts alone
 * deletes them) delete their mail files too, in whichever process deletes
 * them: the server or the command line.
 */
export function withMailFiles(store: Store, config: Pick<Config, "SMTP_URL" | "DATA_DIR">): Store {
  if (config.SMTP_URL) return store;
  const plugin = onOutboxDeleted((ids) => removeMailFiles(config.DATA_DIR, () => new Set(ids)));
  return { ...store, db: store.db.withPlugin(plugin) };
}

/**
 * A Kysely plugin that changes no query, so that the transactions of the
 * modules above, which delete through `forget`, carry it too: what a store
 * does with the ids of the outbox rows it deleted (`withMailFiles` above).
 */
export type OnOutboxDeleted = KyselyPlugin & { outboxDeleted(ids: number[]): Promise<void> };
const onOutboxDeleted = (outboxDeleted: (ids: number[]) => Promise<void>) =>
  ({
    outboxDeleted,
    transformQuery: ({ node }) => node,
    transformResult: async ({ result }) => result,
  }) satisfies OnOutboxDeleted;

/**
 * Without SMTP_URL: deletes the mail files in `DATA_DIR/outbox/` of which any
 * row is among those `gone` names, asked once with every row the files carry.
 * The files are read and removed without letting the event loop go: a
 * deletion calls this inside its transaction, whose write lock (SQLite's,
 * which the command line waits on) must not be held across other requests.
 */
export async function removeMailFiles(
  dataDir: string,
  gone: (ids: number[]) => ReadonlySet<number> | Promise<ReadonlySet<number>>,
): Promise<void> {
  const folder = path.resolve(dataDir, "outbox");
  const read = <T>(io: () => T, otherwise: T): T => {
    try {
      return io();
    } catch {
      return otherwise; // No folder yet, or a file another process removed first.
    }
  };
  // Each file's name, without its extension, with its rows.
  const files = new Map<string, number[]>();
  for (const name of read(() => readdirSync(folder), [])) {
    const [, base, first, extension] = /^(.*-row(\d+))\.(eml|rows)$/.exec(name) ?? [];
    if (!base) continue;
    const rows = files.get(base) ?? [Number(first)];
    files.set(base, rows);
    if (extension === "rows") {
      const listed = read(() => readFileSync(path.join(folder, name), "utf8"), "");
      rows.push(...listed.split(" ").filter(Boolean).map(Number));
    }
  }
  const removed = await gone([...new Set([...files.values()].flat())]);
  for (const [base, rows] of files) {
    if (!rows.some((id) => removed.has(id))) continue;
    // The list last: a removal stopped between the two still finds the mail's rows.
    rmSync(path.join(folder, `${base}.eml`), { force: true });
    rmSync(path.join(folder, `${base}.rows`), { force: true });
  }
}
