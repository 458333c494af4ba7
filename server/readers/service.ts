import { hash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { isbot } from "isbot";
import type { ConversionKind } from "../../contract/readers.ts";
import type { Store } from "../db/store.ts";
import { addressScope } from "../lib/address-scope.ts";
import {
  addDays,
  type Batch,
  createReadersRepository,
  dayOf,
  type ReadersRepository,
  type Visit,
} from "./repository.ts";
import { countryOf, deviceOf, originOf } from "./sources.ts";

/**
 * Readership counted without cookies (docs/product.md, "Readers";
 * docs/decisions/044-readers-without-cookies.md). Each instance counts in
 * memory and writes what it counted in one transaction every few seconds; a
 * crash loses at most those seconds. A reader is a hash of the day's salt,
 * the site, the IP address and the user agent, which are then forgotten.
 */

/** The parts of a request the counting reads: its address and headers. */
export type ReaderRequest = { ip: string; headers: IncomingHttpHeaders };

/** What an instance holds until its next write; a visit's country is found as it is written. */
type Pending = Omit<Batch, "visits"> & {
  visits: (Omit<Visit, "country"> & { timeZone: string })[];
};

export type ViewReport = { path: string; referrer: string; query: string; timeZone: string };

export type ReadersOptions = {
  store: Store;
  /** ANALYTICS=off counts nothing and writes nothing. */
  enabled: boolean;
  /** ANALYTICS_RAW_DAYS: raw rows are kept this many days, then only the day's roll-up. */
  rawDays: number;
  /** ANALYTICS_VIEWS_PER_MINUTE_PER_IP: views and reads counted per minute from one address. */
  perMinutePerAddress?: number;
  siteUrl: string;
  /** The console session's cookie: a browser that carries it is the owner's, never counted. */
  ownerCookie: string;
  clock?: () => Date;
  /** How often an instance writes what it counted (5 s). */
  flushMs?: number;
  /** Rows kept in memory while the database cannot take them, beyond which the oldest are dropped. */
  maxPending?: number;
};

const userAgentMax = 512;

/**
 * isbot's answer by user agent, for the few thousand agents last seen: its
 * pattern is long, and every view would run it on the same few hundred
 * browsers' agents. Held in memory only, with nothing about who sent them.
 */
const botAnswers = new Map<string, boolean>();
function isBot(userAgent: string): boolean {
  let answer = botAnswers.get(userAgent);
  if (answer === undefined) {
    answer = isbot(userAgent);
    if (botAnswers.size >= 5000) botAnswers.clear();
    botAnswers.set(userAgent, answer);
  }
  return answer;
}

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? "";
}

/** Carries the console's session cookie, whatever its state: the owner's browser. */
function hasCookie(headers: IncomingHttpHeaders, name: string): boolean {
  const cookies = header(headers, "cookie");
  if (!cookies.includes(name)) return false;
  return cookies.split(";").some((pair) => pair.trim().startsWith(`${name}=`));
}

export function createReaders({
  store,
  enabled,
  rawDays,
  perMinutePerAddress = 120,
  siteUrl,
  ownerCookie,
  clock = () => new Date(),
  flushMs = 5000,
  maxPending = 500_000,
}: ReadersOptions) {
  const repository: ReadersRepository = createReadersRepository(store);
  const site = new URL(siteUrl);
  const siteHost = site.hostname.toLowerCase();
  let pending: Pending = { visits: [], views: [], reads: [], conversions: [] };
  /** The day's salt, loaded once per day (and instance). */
  let salt: { day: string; value: Promise<string> } | null = null;
  /** Readers this instance has written a visit for today, and their engaged reads. */
  let seen = { day: "", visits: new Set<string>(), reads: new Set<string>() };

  function saltOf(day: string): Promise<string> {
    if (salt?.day !== day) {
      const value = repository.saltOf(day);
      salt = { day, value };
      // A failed read is tried again by the next request.
      value.catch(() => {
        if (salt?.value === value) salt = null;
      });
    }
    return salt.value;
  }

  /**
   * Views and reads counted from one address in the current minute (an IPv6
   * address by its /64). A flood from one address stops being counted at the
   * limit; the addresses held are bounded too, and a new address beyond that
   * bound waits for the next minute. Nothing of this is written anywhere.
   */
  let window = { minute: -1, counts: new Map<string, number>() };
  const addressesHeld = 100_000;
  function withinLimit(ip: string): boolean {
    const minute = Math.floor(clock().getTime() / 60_000);
    if (window.minute !== minute) window = { minute, counts: new Map() };
    const key = addressScope(ip);
    const count = (window.counts.get(key) ?? 0) + 1;
    if (count > perMinutePerAddress) return false;
    if (count === 1 && window.counts.size >= addressesHeld) return false;
    window.counts.set(key, count);
    return true;
  }

  /**
   * Whether a request may be counted: analytics on, no Global Privacy
   * Control or Do Not Track, not a prefetch or prerender, not a bot, not the
   * owner's browser; a view or a read also within its address's limit (a
   * conversion is not held to it: it has passed its own form's limits).
   */
  function countable(request: ReaderRequest, limited = true): string | null {
    if (!enabled) return null;
    const { headers } = request;
    if (header(headers, "sec-gpc").trim() === "1" || header(headers, "dnt").trim() === "1")
      return null;
    if (/prefetch|prerender/i.test(header(headers, "sec-purpose") + header(headers, "purpose")))
      return null;
    const userAgent = header(headers, "user-agent").slice(0, userAgentMax);
    if (!userAgent || isBot(userAgent)) return null;
    if (hasCookie(headers, ownerCookie)) return null;
    if (limited && !withinLimit(request.ip)) return null;
    return userAgent;
  }

  async function readerOf(request: ReaderRequest, userAgent: string, day: string) {
    const daySalt = await saltOf(day);
    return hash(
      "sha256",
      `${daySalt}\u0000${site.origin}\u0000${request.ip}\u0000${userAgent}`,
      "base64url",
    ).slice(0, 22);
  }

  function today(now: Date) {
    const day = dayOf(now);
    if (seen.day !== day) seen = { day, visits: new Set(), reads: new Set() };
    return day;
  }

  /** Keeps memory bounded: a set that grew past its size is forgotten (the database dedupes). */
  function remember(set: Set<string>, key: string): boolean {
    if (set.has(key)) return false;
    if (set.size >= 200_000) set.clear();
    set.add(key);
    return true;
  }

  let writing: Promise<void> = Promise.resolve();
  function flush(): Promise<void> {
    writing = writing.then(async () => {
      const batch = pending;
      const size =
        batch.visits.length + batch.views.length + batch.reads.length + batch.conversions.length;
      if (size === 0) return;
      pending = { visits: [], views: [], reads: [], conversions: [] };
      try {
        const visits: Visit[] = [];
        for (const { timeZone, ...visit } of batch.visits) {
          visits.push({ ...visit, country: await countryOf(timeZone) });
        }
        await repository.write({ ...batch, visits });
      } catch (error) {
        // Kept for the next write, unless the database has been away long
        // enough that memory would run out: then the oldest go first.
        pending = {
          visits: [...batch.visits, ...pending.visits].slice(-maxPending),
          views: [...batch.views, ...pending.views].slice(-maxPending),
          reads: [...batch.reads, ...pending.reads].slice(-maxPending),
          conversions: [...batch.conversions, ...pending.conversions].slice(-maxPending),
        };
        throw error;
      }
    });
    return writing;
  }

  const retentionBefore = (now: Date) => addDays(dayOf(now), -rawDays);

  /**
   * The day's work: rolls up every finished day, deletes the raw rows older
   * than ANALYTICS_RAW_DAYS and salts of past days. A day is rolled up ten
   * minutes after it ends, when every instance has written its last views.
   */
  async function maintain(): Promise<{ rolled: string[]; pruned: number }> {
    const now = clock();
    const through = dayOf(new Date(now.getTime() - 10 * 60_000 - 86_400_000));
    const rolled = await repository.rollUp(through, now.toISOString());
    const pruned = await repository.prune(retentionBefore(now));
    await saltOf(dayOf(now));
    return { rolled, pruned };
  }

  return {
    enabled,
    repository,
    rawDays,

    /** A page view from the beacon; `path` is a page of the site. Resolves whether it was counted. */
    async view(request: ReaderRequest, report: ViewReport): Promise<boolean> {
      const userAgent = countable(request);
      if (!userAgent) return false;
      const now = clock();
      const day = today(now);
      const reader = await readerOf(request, userAgent, day);
      const at = now.toISOString();
      if (remember(seen.visits, reader)) {
        const origin = originOf(report, siteHost);
        pending.visits.push({
          day,
          reader,
          startedAt: at,
          entryPath: report.path,
          ...origin,
          // Its country is found when it is written: the first finding makes ICU's table.
          timeZone: report.timeZone,
          device: deviceOf(userAgent),
        });
      }
      pending.views.push({ day, at, reader, path: report.path });
      return true;
    },

    /** An engaged read of an article: its end reached, or 30 s in view. */
    async read(request: ReaderRequest, path: string): Promise<boolean> {
      const userAgent = countable(request);
      if (!userAgent) return false;
      const day = today(clock());
      const reader = await readerOf(request, userAgent, day);
      if (remember(seen.reads, `${reader} ${path}`)) pending.reads.push({ day, reader, path });
      return true;
    },

    /**
     * What brings clients: a subscription, an enquiry, a booking, a comment or
     * a question, attributed to the entry page and source of the reader's
     * visit that day, through the day's hash and nothing else. Call it once
     * the thing is done; it never fails the request that did it.
     */
    async attribute(request: ReaderRequest, kind: ConversionKind): Promise<void> {
      try {
        const userAgent = countable(request, false);
        if (!userAgent) return;
        const now = clock();
        const day = today(now);
        const reader = await readerOf(request, userAgent, day);
        pending.conversions.push({ day, at: now.toISOString(), reader, kind });
      } catch {
        // Counting is never worth a reader's failed enquiry.
      }
    },

    /** Writes what this instance counted (the timer does it every few seconds). */
    flush,

    maintain,

    /** Starts the timers: a write every few seconds, the roll-up and retention every hour. */
    start(log: { warn(object: unknown, message: string): void }) {
      if (!enabled) return { stop: async () => {} };
      const writer = setInterval(() => {
        flush().catch((error) => log.warn({ err: error }, "readers' counts could not be written"));
      }, flushMs);
      writer.unref();
      const daily = () =>
        maintain().catch((error) =>
          log.warn({ err: error }, "readers' days could not be rolled up"),
        );
      void daily();
      const hourly = setInterval(daily, 60 * 60_000);
      hourly.unref();
      return {
        async stop() {
          clearInterval(writer);
          clearInterval(hourly);
          await flush().catch((error) =>
            log.warn({ err: error }, "readers' last counts could not be written"),
          );
        },
      };
    },
  };
}

export type Readers = ReturnType<typeof createReaders>;
