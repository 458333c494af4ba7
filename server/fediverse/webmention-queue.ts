import { startsWith } from "../db/columns.ts";
import type { Store } from "../db/store.ts";
import type { Logger } from "./logging.ts";

/*
 * The mentions waiting to be checked (docs/fediverse.md, "Webmention"), kept
 * fair: each network that sends them and each site whose pages they are holds
 * a share of the queue, and a few are checked at once, at most one of a site's
 * pages or of a network's mentions at a time, the sender whose last turn is
 * oldest first. A network's or a site's slow pages hold one check, not all.
 */

/** Mentions waiting to be checked, past which new ones are refused for a while. */
const waitingMax = 1000;
/**
 * Mentions one network (an IPv4 address, an IPv6 /48) may have waiting at
 * once, and mentions of one site's pages (its host): a sender's share of the
 * queue. A legitimate sender rarely has more than a few waiting.
 */
const waitingPerSenderMax = 20;
/**
 * Checks at once: each is a fetch of up to 10 seconds, and on PostgreSQL a connection
 * that holds its claim meanwhile (server/startup.ts opens as many more).
 */
export const checksAtOnce = 4;

/** A source's site, as its share is counted: its host (and port, only in tests). */
const siteOf = (source: string) => new URL(source).host;

export function mentionQueue({
  store: { db },
  check,
  log,
}: {
  store: Store;
  /**
   * Checks the mention of this row, if it still waits; a throw leaves it waiting.
   * "elsewhere": another instance is checking it (its claim, on PostgreSQL).
   */
  check: (id: number) => Promise<"elsewhere" | undefined>;
  log: Pick<Logger, "warn">;
}) {
  /**
   * The network that sent each mention waiting, by row: this process's since
   * its start (a mention waiting from before a restart, or received by another
   * instance, is its site's turn).
   */
  const sentFrom = new Map<number, string>();
  const waitingFrom = (network: string) =>
    [...sentFrom.values()].filter((from) => from === network).length;

  /** How many mentions wait to be checked, on every instance: all, or those of one site's pages. */
  async function waiting(ofSite?: string) {
    let query = db
      .selectFrom("webmentions")
      .select((eb) => eb.fn.countAll().as("count"))
      .where("verified_at", "is", null);
    if (ofSite !== undefined) {
      query = query.where((eb) =>
        eb.or([
          startsWith("source", `http://${ofSite}/`),
          startsWith("source", `https://${ofSite}/`),
        ]),
      );
    }
    return Number((await query.executeTakeFirstOrThrow()).count);
  }

  /** The mentions being checked, by row: their site and whose turn each is. */
  const checking = new Map<number, { site: string; turn: string }>();
  /**
   * The mentions another instance was found checking, left to it until the next wake:
   * else a lane would claim them again and again while that check's fetch lasts.
   */
  const elsewhere = new Set<number>();
  /** When each sender (its network, or the site of a mention of unknown sender) last had a turn. */
  const turns = new Map<string, number>();
  let turnCount = 0;

  /**
   * The next mention to check, marked as being checked, or null when every one
   * waiting is, or is of a site or a network being checked. The sender whose
   * last turn is oldest goes first, so one with many waiting takes its turns
   * among the others, not ahead of them.
   */
  async function nextDue() {
    const due = await db
      .selectFrom("webmentions")
      .select(["id", "source"])
      .where("verified_at", "is", null)
      .orderBy("id")
      .limit(2 * waitingMax)
      .execute();
    // None waiting: those another instance checked are not counted for their senders either.
    if (due.length === 0) sentFrom.clear();
    const stillDue = new Set(due.map((row) => row.id));
    for (const id of elsewhere) if (!stillDue.has(id)) elsewhere.delete(id);
    const busy = new Set([...checking.values()].flatMap(({ site, turn }) => [site, turn]));
    const senders = new Set<string>();
    let next: { id: number; site: string; turn: string; last: number } | null = null;
    for (const { id, source } of due) {
      const site = siteOf(source);
      const turn = sentFrom.get(id) ?? site;
      senders.add(turn);
      if (checking.has(id) || elsewhere.has(id) || busy.has(site) || busy.has(turn)) continue;
      const last = turns.get(turn) ?? 0;
      if (!next || last < next.last) next = { id, site, turn, last };
    }
    for (const sender of turns.keys()) if (!senders.has(sender)) turns.delete(sender);
    if (!next) return null;
    checking.set(next.id, next);
    turns.set(next.turn, ++turnCount);
    return next.id;
  }

  /** Checks mentions as they come due, until none is left for it. */
  async function lane() {
    for (let id = await nextDue(); id !== null; id = await nextDue()) {
      try {
        if ((await check(id)) === "elsewhere") elsewhere.add(id);
      } finally {
        checking.delete(id);
        sentFrom.delete(id);
      }
      // Its site and network are free again: a lane that found nothing to take may now.
      fill();
    }
  }

  let lanes = 0;
  const whenIdle: (() => void)[] = [];
  function fill() {
    while (lanes < checksAtOnce) {
      lanes += 1;
      lane()
        .catch((error: unknown) => log.warn({ err: error }, "webmentions could not be verified"))
        .finally(() => {
          lanes -= 1;
          if (lanes === 0) for (const resolve of whenIdle.splice(0)) resolve();
        });
    }
  }

  return {
    /**
     * Why a mention of `source` from `network` is refused for now, or null:
     * the queue is full, or that network's or that site's share of it.
     */
    async refusal(network: string, source: URL): Promise<string | null> {
      const [all, ofSite] = await Promise.all([waiting(), waiting(siteOf(source.href))]);
      if (all >= waitingMax) return "Too many webmentions are waiting; try later.";
      if (waitingFrom(network) >= waitingPerSenderMax) {
        return "Too many webmentions from your network are waiting; try later.";
      }
      if (ofSite >= waitingPerSenderMax) {
        return "Too many webmentions of that site's pages are waiting; try later.";
      }
      return null;
    },

    /** Counts a mention recorded, by its row, for the network that sent it. */
    sent(id: number, network: string) {
      sentFrom.set(id, network);
    },

    /**
     * Checks every mention waiting, a few at once: resolves once none is left
     * (one whose check failed on the database stays for the next wake).
     */
    wake(): Promise<void> {
      const idle = new Promise<void>((resolve) => whenIdle.push(resolve));
      elsewhere.clear();
      fill();
      return idle;
    },
  };
}
