import type { Config } from "../config.ts";
import type { Store } from "../db/store.ts";
import type { Engagement } from "../engagement/index.ts";
import type { OutboxRepository } from "../outbox/outbox-repository.ts";
import { type OutboxWorker, startOutboxLoop, type WorkerLog } from "../outbox/outbox-worker.ts";
import type { ActionRouteDeps } from "./action-routes.ts";
import { createActionTokens } from "./action-tokens.ts";
import { type ApproveComment, notificationComposers } from "./compose.ts";
import { loadPostTitles } from "./item-titles.ts";
import { createCommentNotifier, type WebhookBody } from "./notifier.ts";
import { callWebhook } from "./webhook.ts";

export type NotificationOptions = {
  /**
   * Approves a held comment; the mails offer an approve link only with it
   * (docs/decisions/011-owner-notifications.md).
   */
  approve?: ApproveComment;
  /** The time the hourly digest and the links' expiry are reckoned against (tests move it). */
  clock?: () => Date;
  /** How long one webhook call may take. */
  webhookTimeoutMs?: number;
  /** Post titles by id; defaults to the content folder's. */
  titles?: ReadonlyMap<string, string>;
};

const pruneEveryMs = 60 * 60 * 1000;

/**
 * The owner's notifications of new comments: the notifier the comments
 * repository calls in its transaction (before the store opens), then, once
 * it is open, the mails' composers for the outbox worker, the webhook
 * worker and the action links' routes.
 */
export function createNotifications(
  config: Pick<
    Config,
    "OWNER_EMAIL" | "notifyComments" | "WEBHOOK_URL" | "WEBHOOK_SECRET" | "siteUrl"
  >,
  {
    approve,
    clock = () => new Date(),
    webhookTimeoutMs = 10_000,
    titles = loadPostTitles(),
  }: NotificationOptions = {},
) {
  const { notifier, onQueued } = createCommentNotifier({
    ownerEmail: config.OWNER_EMAIL,
    mode: config.notifyComments,
    webhook: Boolean(config.WEBHOOK_URL && config.WEBHOOK_SECRET),
    siteUrl: config.siteUrl,
    titles,
    clock,
  });

  return {
    notifier,
    onQueued,

    attach(store: Store, engagement: Engagement) {
      const tokens = createActionTokens(store, clock);
      const routes: ActionRouteDeps = {
        store,
        engagement,
        tokens,
        titles,
        siteUrl: config.siteUrl,
        approve,
      };
      return {
        composers: notificationComposers({ tokens, titles, siteUrl: config.siteUrl, approve }),
        routes,

        /** Calls the webhook from the outbox, unpaced; none without WEBHOOK_URL. */
        start(outbox: OutboxRepository, log: WorkerLog, { pollMs }: { pollMs?: number } = {}) {
          const { WEBHOOK_URL: url, WEBHOOK_SECRET: secret } = config;
          const prune = () =>
            tokens
              .prune()
              .catch((error) => log.warn({ err: error }, "old action links could not be pruned"));
          void prune();
          const pruning = setInterval(prune, pruneEveryMs);
          pruning.unref();
          let webhooks: OutboxWorker | undefined;
          if (url && secret) {
            webhooks = startOutboxLoop({
              outbox,
              kinds: ["webhook"],
              ratePerMinute: 0,
              ...(pollMs ? { pollMs } : {}),
              log,
              async deliver(row) {
                if (row.payload === null) return { outcome: "failed", reason: "no payload" };
                const { type } = JSON.parse(row.payload) as Pick<WebhookBody, "type">;
                const delivery = await callWebhook({
                  url,
                  secret,
                  event: type,
                  deliveryId: String(row.id),
                  body: row.payload,
                  now: clock(),
                  timeoutMs: webhookTimeoutMs,
                });
                if (delivery.outcome !== "sent") {
                  log.warn(
                    { outbox: row.id, reason: delivery.reason },
                    "webhook call not accepted",
                  );
                }
                return delivery;
              },
            });
          }
          onQueued(() => webhooks?.wake());
          return {
            async stop() {
              clearInterval(pruning);
              await webhooks?.stop();
            },
          };
        },
      };
    },
  };
}
