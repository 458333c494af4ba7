import type { Store } from "../db/store.ts";
import { isPublicHost, type RemoteFetch } from "../lib/safe-fetch.ts";
import { nowIso } from "../lib/time.ts";
import type { Logger } from "./logging.ts";
import { advertisedEndpoint, linksOf } from "./webmention-pages.ts";

/*
 * The site's own webmentions (docs/fediverse.md, "Webmention"): on
 * publishing, each page a new or changed item links to that advertises an
 * endpoint is told, once per item and page, through the guarded fetch.
 */

const fetchTimeoutMs = 10_000;
/** How a page is fetched: the source of a mention, or a page that may take one. */
export const pageLimits = { timeoutMs: fetchTimeoutMs, maxBytes: 1024 * 1024, maxRedirects: 3 };

export function webmentionSender({
  store: { db },
  siteUrl,
  remoteFetch,
  allowPrivateAddresses,
  log,
}: {
  store: Store;
  siteUrl: string;
  remoteFetch: RemoteFetch;
  /** Only the tests: sites on loopback mention each other. */
  allowPrivateAddresses: boolean;
  log: Pick<Logger, "info">;
}) {
  const site = new URL(siteUrl);

  /** The endpoint a page advertises, or null. */
  async function endpointOf(target: URL): Promise<URL | null> {
    const answer = await remoteFetch(target.href, {
      ...pageLimits,
      headers: { accept: "text/html, */*;q=0.1" },
    });
    return answer.status < 200 || answer.status >= 300 ? null : advertisedEndpoint(answer);
  }

  /**
   * Sends a webmention for each page `item` links to, once per page; the
   * record is written first, so only one instance sends it.
   */
  return async function send(item: { path: string; html: string }) {
    // A receiver checks the mention by fetching our page: a site on
    // localhost or a private address (a first run, a test) would only tell
    // strangers of pages they cannot read.
    if (!allowPrivateAddresses && !isPublicHost(site.hostname)) return;
    const source = new URL(item.path, site).href;
    const targets = new Map<string, URL>();
    for (const link of await linksOf(item.html, source)) {
      if (link.origin !== site.origin) targets.set(link.href, link);
    }
    for (const target of targets.values()) {
      const claimed = await db
        .insertInto("webmentions_sent")
        .values({ path: item.path, target: target.href, outcome: "sending", sent_at: nowIso() })
        .onConflict((conflict) => conflict.columns(["path", "target"]).doNothing())
        .returning("target")
        .executeTakeFirst();
      if (!claimed) continue;
      let outcome: string;
      try {
        const endpoint = await endpointOf(target);
        if (!endpoint) {
          outcome = "no endpoint";
        } else {
          const answer = await remoteFetch(endpoint.href, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ source, target: target.href }).toString(),
            timeoutMs: fetchTimeoutMs,
            maxBytes: 64 * 1024,
            maxRedirects: 0,
          });
          outcome =
            answer.status >= 200 && answer.status < 300 ? "sent" : `refused ${answer.status}`;
        }
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        outcome = `failed: ${message}`.slice(0, 200);
      }
      await db
        .updateTable("webmentions_sent")
        .set({ outcome, sent_at: nowIso() })
        .where("path", "=", item.path)
        .where("target", "=", target.href)
        .execute();
      log.info({ item: item.path, target: target.href, outcome }, "a webmention was sent");
    }
  };
}
