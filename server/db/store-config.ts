import path from "node:path";
import type { Config } from "../config.ts";
import type { StoreOptions } from "./store.ts";

type StoreConfig = Pick<Config, "DATABASE_URL" | "DATA_DIR">;

/** The SQLite file of a configuration without DATABASE_URL. */
export function sqliteFileOf(config: Pick<Config, "DATA_DIR">): string {
  return path.resolve(config.DATA_DIR, "engage.sqlite");
}

/** PostgreSQL when DATABASE_URL is set, else `${DATA_DIR}/engage.sqlite`. */
export function storeOptionsOf(config: StoreConfig): StoreOptions {
  return config.DATABASE_URL
    ? { kind: "postgres", connectionString: config.DATABASE_URL }
    : { kind: "sqlite", file: sqliteFileOf(config) };
}
