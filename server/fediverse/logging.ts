import { AsyncLocalStorage } from "node:async_hooks";
import { configureSync, type LogRecord } from "@logtape/logtape";
import type { Log } from "../lib/log.ts";

/*
 * Fedify writes its own log through LogTape; here that log goes to the
 * server's, as one line per record under `fedify` (docs/fediverse.md). Quiet
 * by default: its warnings and errors only, and everything it says when the
 * server logs at debug. LogTape is configured once per process, so with two
 * sites in one process (the tests) the last to load Fedify hears it.
 */

export type Logger = Log & { level: string; debug(object: unknown, message: string): void };

/** Longest message passed on: an activity quoted whole would flood the log. */
const messageMax = 1000;

const textOf = (record: LogRecord): string =>
  record.message
    .map((part) => {
      if (typeof part === "string") return part;
      try {
        return JSON.stringify(part) ?? String(part);
      } catch {
        return String(part);
      }
    })
    .join("")
    .slice(0, messageMax);

export function sendFedifyLogsTo(log: Logger): void {
  const verbose = log.level === "debug" || log.level === "trace";
  configureSync({
    reset: true,
    // Fedify reads each request's context from here; without it LogTape warns
    // "Context-local storage is not configured" on every ActivityPub request.
    contextLocalStorage: new AsyncLocalStorage(),
    sinks: {
      server: (record: LogRecord) => {
        const where = { fedify: record.category.join(".") };
        const message = textOf(record);
        if (record.level === "error" || record.level === "fatal") log.error(where, message);
        else if (record.level === "warning") log.warn(where, message);
        else if (record.level === "info") log.info(where, message);
        else log.debug(where, message);
      },
    },
    loggers: [
      { category: "fedify", sinks: ["server"], lowestLevel: verbose ? "debug" : "warning" },
      { category: ["logtape", "meta"], sinks: ["server"], lowestLevel: "warning" },
    ],
  });
}
