import { hash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { isbot } from "isbot";
import { isItemPath } from "../../content/sections.ts";
import type { ConversionKind } from "../../contract/readers.ts";
import type { Store } from "../db/store.ts";
import { remembered } from "../lib/remembered.ts";
import type { HourlyRetention } from "../lib/retention.ts";
import { addDays } from "../lib/time.ts";
import { addressWindow } from "./address-window.ts";
import {
  countView,
  lastViewAt,
  maxPending,
  mergedViews,
  nothingPending,
  viewRows,
} from "./pending.ts";
import {
  createReadersRepository,
  dayIn,
  type ReadersRepository,
  readingNowMs,
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

type ViewReport = { path: string; referrer: string; query: string; timeZone: string };

type ReadersOptions = {
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
  /**
   * The owner's zone, whose midnights begin the days (the Bookings hours' zone,
   * else BOOKING_TIMEZONE's…): read with each write, each roll-up and each report.
   */
  ownerZone?: () => Promise<string>;
  clock?: () => Date;
  /** How often an instance writes what it counted (5 s). */
  flushMs?: number;
};

const userAgentMax = 512;

/**
 * Pages opened from a link in a mail the site sent (a subscription's confirmation,
 * unsubscribing): no one reads them, and a visit begun there would give the
 * subscription confirmed on it to that page and the mail, not to the writing
 * the reader subscribed from.
 */
const mailLinkPages = new Set(["/newsletter/confirm", "/unsubscribe"]);

/**
 * isbot's answer by user agent, for the few thousand agents last seen: its
 * pattern is long, and every view would run it on the same few hundred
 * browsers' agents. Held in memory only, with nothing about who sent them.
 */
const isBot = remembered(isbot, 5000);

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
  ownerZone = async () => "UTC",
  clock = () => new Date(),
  flushMs = 5000,
}: ReadersOptions) {
  const repository: ReadersRepository = createReadersRepository(store);
  const site = new URL(siteUrl);
  const siteHost = site.hostname.toLowerCase();
  // Read once: a URL works its origin out again at each read.
  const siteOrigin = site.origin;
  let pending = nothingPending();
  /**
   * The salt of the day in progress on the owner's date `date`, and that day, loaded
   * once per date (and instance); `known` once it has been read.
   */
  type DaySalt = { day: string; salt: string };
  let salt: { date: string; value: Promise<DaySalt>; known?: DaySalt } | null = null;
  /** Readers this instance has written a visit for today, and their engaged reads. */
  let seen = { day: "", visits: new Set<string>(), reads: new Set<string>() };
  const seenOn = (day: string) => {
    if (seen.day !== day) seen = { day, visits: new Set(), reads: new Set() };
    return seen;
  };

  /** The owner's zone as last read: null until the first read, which the first view waits for. */
  let zone: string | null = null;
  let zoneRead: Promise<string> | null = null;
  function readZone(): Promise<string> {
    zoneRead ??= ownerZone()
      .then((found) => (zone = found))
      .finally(() => {
        zoneRead = null;
      });
    return zoneRead;
  }

  function saltOf(date: string): Promise<DaySalt> {
    if (salt?.date !== date) {
      const value = repository.saltOf(date);
      const loading: NonNullable<typeof salt> = { date, value };
      salt = loading;
      value.then(
        (known) => {
          loading.known = known;
        },
        // A failed read is tried again by the next request.
        () => {
          if (salt === loading) salt = null;
        },
      );
    }
    return salt.value;
  }

  const withinLimit = addressWindow(perMinutePerAddress);

  /**
   * Whether a request may be counted: analytics on, no Global Privacy
   * Control or Do Not Track, not a prefetch or prerender, not a bot, not the
   * owner's browser; a view or a read also within its address's limit (a
   * conversion is not held to it: it has passed its own form's limits).
   */
  function countable(request: ReaderRequest, now: number, limited = true): string | null {
    if (!enabled) return null;
    const { headers } = request;
    if (header(headers, "sec-gpc").trim() === "1" || header(headers, "dnt").trim() === "1")
      return null;
    if (/prefetch|prerender/i.test(header(headers, "sec-purpose") + header(headers, "purpose")))
      return null;
    const userAgent = header(headers, "user-agent").slice(0, userAgentMax);
    if (!userAgent || isBot(userAgent)) return null;
    if (hasCookie(headers, ownerCookie)) return null;
    if (limited && !withinLimit(request.ip, now)) return null;
    return userAgent;
  }

  const readerWith = (daySalt: string, request: ReaderRequest, userAgent: string) =>
    hash(
      "sha256",
      `${daySalt}\u0000${siteOrigin}\u0000${request.ip}\u0000${userAgent}`,
      "base64url",
    ).slice(0, 22);

  /**
   * `take(reader, day)` once the reader's hash is known, with the day in
   * progress: at once when the owner's zone and the day's salt have been read
   * (every view but the first few of a day), so the beacon can be answered in
   * the same turn; otherwise once they have.
   */
  function withReader<T>(
    request: ReaderRequest,
    userAgent: string,
    now: number,
    take: (reader: string, day: string) => T,
  ): T | Promise<T> {
    if (zone === null) return readZone().then(() => withReader(request, userAgent, now, take));
    const date = dateAt(now, zone);
    const known = salt?.date === date ? salt.known : undefined;
    if (known !== undefined) return take(readerWith(known.salt, request, userAgent), known.day);
    return saltOf(date).then((daySalt) =>
      take(readerWith(daySalt.salt, request, userAgent), daySalt.day),
    );
  }

  /** The owner's date at `now`, worked out once a second: a busy second's views share it. */
  let second = { at: Number.NaN, zone: "", date: "" };
  function dateAt(now: number, zone: string): string {
    const at = now - (now % 1000);
    if (second.at !== at || second.zone !== zone) second = { at, zone, date: dayIn(at, zone) };
    return second.date;
  }

  /** Keeps memory bounded: a set that grew past its size is forgotten (the database dedupes). */
  function remember(set: Set<string>, key: string): boolean {
    if (set.has(key)) return false;
    if (set.size >= 200_000) set.clear();
    set.add(key);
    return true;
  }

  /**
   * When the readers this instance wrote to `reader_now` stop reading now, a
   * write's last view's time plus 30 minutes each: the first write after
   * one (at most the few seconds between writes later) deletes them.
   */
  const expiring: number[] = [];
  async function forgetDue() {
    const now = clock().getTime();
    if ((expiring[0] ?? now) >= now) return;
    while ((expiring[0] ?? now) < now) expiring.shift();
    await repository.forgetReading(new Date(now - readingNowMs).toISOString());
  }

  let writing: Promise<void> = Promise.resolve();
  function flush(): Promise<void> {
    // After the one before, done or failed: a write that failed (its counts
    // kept) must not fail every write after it.
    writing = writing
      .catch(() => undefined)
      .then(async () => {
        const batch = pending;
        const size =
          batch.visits.length + batch.views.size + batch.reads.length + batch.conversions.length;
        if (size === 0) return forgetDue();
        pending = nothingPending();
        // The owner's zone read again, for the views to come: a change shows within a write.
        await readZone().catch(() => undefined);
        try {
          const visits: Visit[] = [];
          for (const { timeZone, ...visit } of batch.visits) {
            visits.push({ ...visit, country: await countryOf(timeZone) });
          }
          await repository.write({ ...batch, visits, views: viewRows(batch.views) });
        } catch (error) {
          // Kept for the next write, unless the database has been away long
          // enough that memory would run out: then the oldest go first.
          pending = {
            visits: [...batch.visits, ...pending.visits].slice(-maxPending),
            views: mergedViews(batch.views, pending.views),
            reads: [...batch.reads, ...pending.reads].slice(-maxPending),
            conversions: [...batch.conversions, ...pending.conversions].slice(-maxPending),
          };
          throw error;
        }
        const last = lastViewAt(batch.views);
        if (last !== null) expiring.push(last + readingNowMs);
        await forgetDue();
      });
    return writing;
  }

  /**
   * The day's work, once something is counted (the owner's date loads ICU's date data): rolls up
   * every finished day ten minutes after the owner's midnight that ends it, when every instance
   * has written its last views; deletes the raw rows older than ANALYTICS_RAW_DAYS and old salts.
   */
  async function maintain(): Promise<{ rolled: string[] }> {
    if (!(await repository.countedAny())) return { rolled: [] };
    const now = clock();
    const zone = await readZone();
    const date = dayIn(now, zone);
    const through = addDays(dayIn(now.getTime() - 10 * 60_000, zone), -1);
    const rolled = await repository.rollUp(through, now.toISOString(), zone);
    await repository.prune(addDays(date, -rawDays));
    // Those a stopped instance would have deleted, and missed.
    await repository.forgetReading(new Date(now.getTime() - readingNowMs).toISOString());
    await saltOf(date);
    return { rolled };
  }

  return {
    repository,

    /**
     * A page view from the beacon; `path` is a page of the site. Whether it
     * was counted: at once, or (the day's salt still being read) a promise.
     */
    view(request: ReaderRequest, report: ViewReport): boolean | Promise<boolean> {
      if (mailLinkPages.has(report.path)) return false;
      const now = clock().getTime();
      const userAgent = countable(request, now);
      if (!userAgent) return false;
      return withReader(request, userAgent, now, (reader, day) => {
        if (remember(seenOn(day).visits, reader)) {
          const origin = originOf(report, siteHost);
          pending.visits.push({
            day,
            reader,
            entryPath: report.path,
            ...origin,
            // Its country is found when it is written: the first finding makes ICU's table.
            timeZone: report.timeZone,
            device: deviceOf(userAgent),
          });
        }
        countView(pending.views, day, report.path, reader, now);
        return true;
      });
    },

    /**
     * An engaged read of an article or post: its end reached, or 30 s in view (at
     * once, or a promise). Other pages send none, and none sent for them is counted.
     */
    read(request: ReaderRequest, path: string): boolean | Promise<boolean> {
      if (!isItemPath(path)) return false;
      const now = clock().getTime();
      const userAgent = countable(request, now);
      if (!userAgent) return false;
      return withReader(request, userAgent, now, (reader, day) => {
        if (remember(seenOn(day).reads, `${reader} ${path}`))
          pending.reads.push({ day, reader, path });
        return true;
      });
    },

    /**
     * What brings clients: a subscription, an enquiry, a booking, a comment or
     * a question, attributed to the entry page and source of the reader's
     * visit that day, through the day's hash and nothing else, and stored as
     * one more in that day's count. Call it once the thing is done; it never
     * fails the request that did it.
     */
    async attribute(request: ReaderRequest, kind: ConversionKind): Promise<void> {
      try {
        const now = clock().getTime();
        const userAgent = countable(request, now, false);
        if (!userAgent) return;
        // Its day alone: a time could match it to the enquiry or comment it counts.
        // The hash is held until the write finds the visit's entry page and source.
        const { reader, day } = await withReader(request, userAgent, now, (reader, day) => ({
          reader,
          day,
        }));
        pending.conversions.push({ day, reader, kind });
      } catch {
        // Counting is never worth a reader's failed enquiry.
      }
    },

    /** Writes what this instance counted (the timer does it every few seconds). */
    flush,

    /**
     * The owner's zone, read afresh, and the day in progress in it at `at`: the
     * owner's date then, or a later day still running (repository.dayInProgress).
     */
    async today(at: Date = clock()): Promise<{ zone: string; day: string }> {
      const zone = await readZone();
      return { zone, day: await repository.dayInProgress(dayIn(at, zone)) };
    },

    maintain,

    /** Starts the timers: a write every few seconds, the roll-up and retention every hour. */
    start(log: { warn(object: unknown, message: string): void }, retention: HourlyRetention) {
      if (!enabled) return { stop: async () => {} };
      // Read now, so that the first view need not wait for it.
      readZone().catch(() => undefined);
      const writer = setInterval(() => {
        flush().catch((error) => log.warn({ err: error }, "readers' counts could not be written"));
      }, flushMs);
      writer.unref();
      // The first with the first write: the owner's date loads ICU's date data, not a start's.
      retention.add(maintain, {
        failure: "readers' days could not be rolled up",
        firstAfterMs: flushMs,
      });
      return {
        async stop() {
          clearInterval(writer);
          await flush().catch((error) =>
            log.warn({ err: error }, "readers' last counts could not be written"),
          );
        },
      };
    },
  };
}

export type Readers = ReturnType<typeof createReaders>;
