import type { FastifyInstance } from "fastify";
import { indexedBytes, startsWith } from "../db/columns.ts";
import type { Db, Store } from "../db/store.ts";
import { acceptForms } from "../lib/action-page.ts";
import { countByAddress } from "../lib/address-limit.ts";
import { networkOf } from "../lib/address-scope.ts";
import { isPublicHost, type RemoteFetch } from "../lib/safe-fetch.ts";
import { nowIso } from "../lib/time.ts";
import { holdWhileAlive } from "../outbox/delivery-rules.ts";
import type { Logger } from "./logging.ts";
import { isPage, readSource, samePage, webAddress } from "./webmention-pages.ts";
import { mentionQueue } from "./webmention-queue.ts";
import { mentionRecords } from "./webmention-records.ts";
import { pageLimits, webmentionSender } from "./webmention-sending.ts";

/*
 * Webmention (docs/fediverse.md, "Webmention"): another site tells us a page
 * of theirs links to one of our items. The endpoint only records the claim,
 * within its sender's and its site's share of the queue; a few at once
 * (webmention-queue.ts), the source is then fetched through the guarded fetch
 * (private addresses refused outside tests, size, time and redirect limits),
 * checked for a link to the target, and its h-entry read (webmention-pages.ts).
 * It shows under the item once the owner
 * approves it (or at once with MODERATION=off). A source that answers 410 or
 * 404, or no longer links, takes its mention away; one down for a while, or a
 * check that fails (a page that cannot be parsed, the database), leaves a
 * mention checked before as it was. On publishing, the site sends
 * webmentions of its own (webmention-sending.ts).
 */

/** The endpoint's address on the site. */
const webmentionPath = "/webmention";
/** The header every page carries to advertise it. */
export const webmentionLink = (siteUrl: string) =>
  `<${new URL(webmentionPath, siteUrl).href}>; rel="webmention"`;

/** Mentions one address may send a minute (its network ten times as many: `countByAddress`). */
const perMinutePerAddress = 30;
/**
 * Mentions of one item from one site shown without the owner's approval: a
 * site makes pages at will (`?1`, `?2`, … each a page that links to the
 * item), and each would show, so past these the next waits for the owner.
 */
const shownPerSiteMax = 3;
/**
 * Mentions of one item shown without the owner's approval in a day, from every
 * site together: a site is its host, and one domain's names are without end
 * (`a.evil.example`, `b.evil.example`, …), so past these a flood waits for the owner.
 */
const shownPerItemPerDay = 20;

/**
 * A page's address and those of the folders above it, as a block may name
 * them: an account's pages sit under its address (`…/users/ann/statuses/1`).
 */
function withFolders(url: URL): string[] {
  const parts = url.pathname.split("/").filter((part) => part !== "");
  const folders = parts.map((_, count) => `${url.origin}/${parts.slice(0, count + 1).join("/")}`);
  return [url.href, `${url.origin}/`, ...folders];
}

export type Webmentions = ReturnType<typeof createWebmentions>;

export function createWebmentions({
  store,
  siteUrl,
  remoteFetch,
  allowPrivateAddresses,
  items,
  moderation,
  log,
  changed,
  blocked = async () => false,
  breaksRules = () => false,
}: {
  store: Store;
  siteUrl: string;
  remoteFetch: RemoteFetch;
  /** Only the tests: sites on loopback mention each other. */
  allowPrivateAddresses: boolean;
  /** Whether an item of this path exists. */
  items: () => ReadonlyMap<string, unknown>;
  moderation: () => "off" | "first" | "all";
  log: Pick<Logger, "info" | "warn">;
  /** What an item shows changed. */
  changed: (itemPath: string) => void;
  /** Whether any of these addresses names a blocked account or server (blocks.ts). */
  blocked?: (addresses: readonly string[]) => Promise<boolean>;
  /**
   * Whether words from elsewhere break a rule a comment's keeps (the blocklist…), or the
   * author's `name` is one a commenter may not take (the owner's): held then.
   */
  breaksRules?: (text: string, name: string | null) => boolean;
}) {
  const { db } = store;
  const site = new URL(siteUrl);
  /** The item a target names, or a reason to refuse it. */
  function itemOf(target: URL): string | null {
    if (target.origin !== site.origin || target.search) return null;
    const path = target.pathname.replace(/\/$/, "");
    return items().has(path) ? path : null;
  }

  /**
   * Where a check writes: the store, or on PostgreSQL the transaction that holds the
   * mention's row (`check`), with the items it changed told once it has committed.
   */
  type Writer = { db: Db; changed: (itemPath: string) => void };

  async function forget(id: number, path: string, why: string, to: Writer) {
    const gone = await to.db.deleteFrom("webmentions").where("id", "=", id).executeTakeFirst();
    if (Number(gone.numDeletedRows) > 0) {
      log.info({ webmention: id, why }, "a webmention was removed");
      to.changed(path);
    }
  }

  /**
   * A source that cannot be read for now (down, or any answer but 200, 404 and
   * 410), or a check that failed: a new mention goes, one checked before stays
   * as it was.
   */
  async function unreachable(
    row: { id: number; path: string; status: string },
    why: string,
    to: Writer,
  ) {
    if (row.status === "unverified") return forget(row.id, row.path, why, to);
    await to.db
      .updateTable("webmentions")
      .set({ verified_at: nowIso() })
      .where("id", "=", row.id)
      .execute();
    log.info({ webmention: row.id, why }, "a webmention stays as it was");
  }

  /** Checks one mention against its source now. */
  async function verify(
    row: {
      id: number;
      source: string;
      target: string;
      path: string;
      status: string;
      content: string | null;
      author_name: string | null;
      author_url: string | null;
    },
    to: Writer,
  ) {
    const source = new URL(row.source);
    const target = new URL(row.target);
    let answer: Awaited<ReturnType<RemoteFetch>>;
    try {
      answer = await remoteFetch(source.href, {
        ...pageLimits,
        headers: { accept: "text/html, application/xhtml+xml;q=0.9, */*;q=0.1" },
      });
    } catch (error) {
      log.info({ err: error, source: source.href }, "a webmention's source could not be fetched");
      return unreachable(row, "its source could not be fetched", to);
    }
    if (answer.status === 404 || answer.status === 410) {
      return forget(row.id, row.path, `its source answered ${answer.status}`, to);
    }
    if (answer.status !== 200) return unreachable(row, `its source answered ${answer.status}`, to);
    // A page of a server or an account the owner blocked, or one it redirects to, is not read.
    if (await blocked([source, new URL(answer.url)].flatMap(withFolders))) {
      return forget(row.id, row.path, "its source is blocked", to);
    }
    const html = answer.body.toString("utf8");
    // Only a page is read for its links: a text, a feed or a file that names the item links to nothing.
    const page = isPage(String(answer.headers["content-type"] ?? ""));
    const read = page ? await readSource(html, new URL(answer.url)) : null;
    if (!read?.links.some((link) => samePage(link, target))) {
      return forget(row.id, row.path, "its source does not link to the item", to);
    }
    const entry = await read.entry(target);
    if (entry.authorUrl && (await blocked(withFolders(new URL(entry.authorUrl))))) {
      return forget(row.id, row.path, "its author is blocked", to);
    }
    const mode = moderation();
    // What a comment could not say waits for the owner, whatever the setting: its words,
    // and apart from them its addresses, which are the mention's own, not links it adds.
    const lines = (parts: (string | null)[]) => parts.filter((part) => part !== null).join("\n");
    const suspect =
      breaksRules(lines([entry.authorName, entry.content]), entry.authorName) ||
      breaksRules(lines([source.href, answer.url, entry.authorUrl]), null);
    // The site trusted is the one whose page was read: a trusted site's page that
    // redirects (an open redirect, a page moved away) passes on no trust.
    /** Mentions shown but this one: of the source's site, of its item too, or of its item this day. */
    const shown = async (of: { site?: true; item?: true; day?: true }) => {
      let shown = to.db
        .selectFrom("webmentions")
        .select((eb) => eb.fn.countAll().as("count"))
        .where("status", "=", "published")
        .where("id", "!=", row.id);
      if (of.site) shown = shown.where(startsWith("source", `${source.origin}/`));
      if (of.item) shown = shown.where("path", "=", row.path);
      if (of.day)
        shown = shown.where("received_at", ">=", new Date(Date.now() - 86_400_000).toISOString());
      return Number((await shown.executeTakeFirstOrThrow()).count);
    };
    const trusted =
      !suspect &&
      (mode === "off" ||
        (mode === "first" &&
          new URL(answer.url).origin === source.origin &&
          (row.status === "published" || (await shown({ site: true })) > 0))) &&
      // One site's pages under one item, past a few, are the owner's to let through, and
      // so are an item's mentions from every site past a day's.
      (await shown({ site: true, item: true })) < shownPerSiteMax &&
      (await shown({ item: true, day: true })) < shownPerItemPerDay;
    // An approved mention stays so while it says the same under the same name and link; changed, it waits again.
    const status =
      trusted ||
      (row.status === "published" &&
        row.content === entry.content &&
        row.author_name === entry.authorName &&
        row.author_url === entry.authorUrl)
        ? "published"
        : "pending";
    await to.db
      .updateTable("webmentions")
      .set({
        status,
        kind: entry.kind,
        author_name: entry.authorName,
        author_url: entry.authorUrl,
        content: entry.content,
        verified_at: nowIso(),
      })
      .where("id", "=", row.id)
      .execute();
    log.info({ webmention: row.id, status }, "a webmention was verified");
    if (status === "published" || row.status === "published") to.changed(row.path);
  }

  const queue = mentionQueue({
    store,
    log,
    /**
     * Checks one mention waiting, read again: another instance may have checked it. On
     * PostgreSQL it is claimed as the outbox claims a row, locked for as long as the check
     * takes, so one instance checks it and fetches its source; "elsewhere" when another holds it.
     */
    async check(id) {
      const waiting = (from: Db) =>
        from
          .selectFrom("webmentions")
          .select([
            "id",
            "source",
            "target",
            "path",
            "status",
            "content",
            "author_name",
            "author_url",
          ])
          .where("id", "=", id)
          .where("verified_at", "is", null);
      const checked = async (row: Parameters<typeof verify>[0], to: Writer) => {
        try {
          await verify(row, to);
        } catch (error) {
          // A page it cannot read, or the database a moment: as a source down.
          log.warn({ err: error, webmention: row.id }, "a webmention could not be verified");
          await unreachable(row, "it could not be verified", to);
        }
      };
      if (store.kind === "sqlite") {
        const row = await waiting(db).executeTakeFirst();
        if (row) await checked(row, { db, changed });
        return undefined;
      }
      const paths = new Set<string>();
      const taken = await db.transaction().execute(async (trx) => {
        const row = await waiting(trx).forUpdate().skipLocked().executeTakeFirst();
        if (!row) {
          const there = await waiting(trx).executeTakeFirst();
          return there ? "elsewhere" : undefined;
        }
        await holdWhileAlive.execute(trx);
        await checked(row, { db: trx, changed: (path) => paths.add(path) });
        return undefined;
      });
      for (const path of paths) changed(path);
      return taken;
    },
  });

  return {
    /** Checks every mention waiting (webmention-queue.ts). */
    wake: queue.wake,

    /** Tells the pages an item links to that it mentions them (webmention-sending.ts). */
    send: webmentionSender({ store, siteUrl, remoteFetch, allowPrivateAddresses, log }),

    ...mentionRecords(store, changed),

    /** The receiving endpoint, in a scope of its own (it reads forms). */
    routes: async (app: FastifyInstance) => {
      await app.register(async (scope) => {
        acceptForms(scope, 8192);
        const mentions = countByAddress(scope, {
          name: "webmentions",
          max: perMinutePerAddress,
          timeWindow: 60_000,
        });
        scope.post(webmentionPath, async (request, reply) => {
          const refuse = (code: number, error: string, message: string) =>
            reply.code(code).send({ error: { code: error, message } });
          const invalid = (message: string) => refuse(400, "validation_failed", message);
          if (!(request.body instanceof URLSearchParams)) {
            return refuse(
              415,
              "unsupported_media_type",
              "Send source and target as application/x-www-form-urlencoded.",
            );
          }
          const form = request.body;
          const [sources, targets] = [form.getAll("source"), form.getAll("target")];
          if (sources.length !== 1 || targets.length !== 1) {
            return invalid("Give one source and one target.");
          }
          const source = webAddress(sources[0] ?? "");
          const target = webAddress(targets[0] ?? "");
          if (!source || !target)
            return invalid(
              `The source and target must be http(s) addresses, each at most ${indexedBytes.link} characters once %-escaped.`,
            );
          if (source.origin === site.origin) {
            return invalid("The source must be a page of another site.");
          }
          // Never fetched (the guarded fetch refuses it): refused now, not queued.
          if (!allowPrivateAddresses && !isPublicHost(source.hostname)) {
            return invalid("The source must be a page on the public web.");
          }
          if (!allowPrivateAddresses && source.port !== "") {
            return invalid("The source must be a page on the web's own port (80 or 443).");
          }
          const path = itemOf(target);
          if (!path) return invalid("The target is not a page of this site that takes mentions.");
          const tooMany = await mentions(request);
          if (tooMany) {
            reply.header("retry-after", String(tooMany.retryAfter));
            return refuse(
              429,
              "rate_limited",
              `Too many webmentions from ${tooMany.from}; try later.`,
            );
          }
          const network = networkOf(request.ip);
          const refusal = await queue.refusal(network, source);
          if (refusal) {
            reply.header("retry-after", "300");
            return refuse(429, "rate_limited", refusal);
          }
          const { id } = await db
            .insertInto("webmentions")
            .values({
              source: source.href,
              // The item's own address: one mention of it from a page, however it was written.
              target: new URL(path, site).href,
              path,
              status: "unverified",
              kind: "mention",
              received_at: nowIso(),
            })
            .onConflict((conflict) =>
              conflict.columns(["source", "target"]).doUpdateSet({ verified_at: null }),
            )
            .returning("id")
            .executeTakeFirstOrThrow();
          queue.sent(Number(id), network);
          void queue.wake();
          return reply.code(202).send({ status: "accepted" });
        });
      });
    },
  };
}
