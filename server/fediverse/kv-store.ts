import { isDeepStrictEqual } from "node:util";
import type { KvKey, KvStore, KvStoreSetOptions } from "@fedify/fedify";
import { startsWith } from "../db/columns.ts";
import type { Store } from "../db/store.ts";
import { nowIso, toIso } from "../lib/time.ts";

/*
 * Fedify's key-value store on the site's own database (table fediverse_kv):
 * what it caches of remote actors and keys, and what it remembers to process
 * an activity once. A key is its parts as JSON; a value is JSON; an expired
 * value reads as missing and is deleted by `prune`.
 */

const encode = (key: KvKey) => JSON.stringify(key);
/** `["a","b"]` is the prefix of `["a","b","c"]` as `["a","b",`. */
const prefixOf = (key: KvKey) => `${encode(key).slice(0, -1)},`;

function expiryOf(options: KvStoreSetOptions | undefined): string | null {
  if (!options?.ttl) return null;
  return new Date(Date.now() + options.ttl.total("millisecond")).toISOString();
}

/**
 * Where Fedify caches remote documents and public keys, each under its
 * address, and remembers the activities it processed (under the origin
 * that received them and the activity's id, which names its account); and
 * where the inbox remembers what was taken back before it arrived (under its
 * writer's address, taken-back.ts).
 */
const documentPrefix: KvKey = ["_fedify", "remoteDocument"];
const cachePrefixes: KvKey[] = [
  documentPrefix,
  ["_fedify", "publicKey"],
  ["_fedify", "activityIdempotence"],
  ["deletedFirst"],
];

export function createKvStore(store: Store) {
  const { db } = store;
  const live = () => {
    const now = nowIso();
    return db
      .selectFrom("fediverse_kv")
      .select(["key", "value"])
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]));
  };

  async function write(key: KvKey, value: unknown, options?: KvStoreSetOptions, to = db) {
    const row = { value: JSON.stringify(value), expires_at: expiryOf(options) };
    await to
      .insertInto("fediverse_kv")
      .values({ key: encode(key), ...row })
      .onConflict((conflict) => conflict.column("key").doUpdateSet(row))
      .execute();
  }

  return {
    async get<T = unknown>(key: KvKey): Promise<T | undefined> {
      const row = await live().where("key", "=", encode(key)).executeTakeFirst();
      return row ? (JSON.parse(row.value) as T) : undefined;
    },
    set: (key, value, options) => write(key, value, options),
    async delete(key) {
      await db.deleteFrom("fediverse_kv").where("key", "=", encode(key)).execute();
    },
    async cas(key, expected, value, options) {
      return db.transaction().execute(async (trx) => {
        let query = trx
          .selectFrom("fediverse_kv")
          .select(["value", "expires_at"])
          .where("key", "=", encode(key));
        if (store.kind === "postgres") query = query.forUpdate();
        const row = await query.executeTakeFirst();
        const expired = row?.expires_at != null && toIso(row.expires_at) <= nowIso();
        const current = row && !expired ? JSON.parse(row.value) : undefined;
        if (!isDeepStrictEqual(current, expected)) return false;
        if (value !== undefined) await write(key, value, options, trx);
        else await trx.deleteFrom("fediverse_kv").where("key", "=", encode(key)).execute();
        return true;
      });
    },
    async *list(prefix) {
      let query = live();
      if (prefix) {
        const exact = encode(prefix);
        const start = prefixOf(prefix);
        query = query.where((eb) => eb.or([eb("key", "=", exact), startsWith("key", start)]));
      }
      for (const row of await query.orderBy("key").execute()) {
        yield { key: JSON.parse(row.key) as KvKey, value: JSON.parse(row.value) };
      }
    },
    /** Deletes what Fedify cached of an account: its documents, its keys, its activities' ids. */
    async forgetAbout(actorId: string) {
      const about = (address: unknown) =>
        typeof address === "string" &&
        (address === actorId ||
          address.startsWith(`${actorId}#`) ||
          address.startsWith(`${actorId}/`));
      /** A document it wrote (a post), wherever its server keeps posts (Misskey: /notes/…). */
      const writtenBy = (value: string) => {
        const { document } = JSON.parse(value) as { document?: Record<string, unknown> };
        return [document?.attributedTo, document?.actor]
          .flat()
          .some((by) => about(by && typeof by === "object" ? (by as { id?: unknown }).id : by));
      };
      for (const prefix of cachePrefixes) {
        const start = prefixOf(prefix);
        const rows = await db
          .selectFrom("fediverse_kv")
          .select(["key", "value"])
          .where(startsWith("key", start))
          .execute();
        const keys = rows
          .filter(
            ({ key, value }) =>
              (JSON.parse(key) as unknown[]).slice(prefix.length).some(about) ||
              (prefix === documentPrefix && writtenBy(value)),
          )
          .map((row) => row.key);
        if (keys.length > 0) await db.deleteFrom("fediverse_kv").where("key", "in", keys).execute();
      }
    },
    /** Deletes Fedify's copy of the document at `url`: a post its writer deleted. */
    async forgetDocument(url: string) {
      const key = encode([...documentPrefix, url]);
      await db.deleteFrom("fediverse_kv").where("key", "=", key).execute();
    },
    /** Deletes what has expired; returns how many. */
    async prune() {
      const result = await db
        .deleteFrom("fediverse_kv")
        .where("expires_at", "<=", nowIso())
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  } satisfies KvStore & Record<string, unknown>;
}
