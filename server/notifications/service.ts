import { z } from "zod";
import { momentLabel } from "../../contract/time-zones.ts";
import type { CommentState, NotifiedComment } from "../comments/notifier.ts";
import type { Config } from "../config.ts";
import type { OwnerActor } from "../db/owner-actor.ts";
import type { CommentAction, OutboxKind } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { jsonOf } from "../lib/json.ts";
import type { Log } from "../lib/log.ts";
import type { HourlyRetention } from "../lib/retention.ts";
import type { Deliver, Delivery, OutboxRow } from "../outbox/delivery-rules.ts";
import { type ComposeMail, type OutboxWorker, startOutboxLoop } from "../outbox/outbox-worker.ts";
import type { OutboxRepository } from "../outbox/queue.ts";
import type { ActionRouteDeps } from "./action-routes.ts";
import { createActionTokens } from "./action-tokens.ts";
import { type CommentActions, commentsById, mailPayloadOf, webhookPayloadOf } from "./compose.ts";
import { actionUrl, digestMail, type NoticeEntry, noticeMail } from "./messages.ts";
import { createCommentNotifier, postUrl, webhookBody } from "./notifier.ts";
import { callWebhook } from "./webhook.ts";

/** A burst of comments still makes a mail one can read; the rest are counted, for `comments list`. */
const digestEntriesMax = 100;

/** How long one webhook call may take. */
const webhookTimeoutMs = 10_000;

/**
 * What a webhook row stands for: a call about a comment is written from the
 * comment as it is now, and none is made once it is gone; other modules'
 * calls (an enquiry's) carry their body whole, and their module deletes the
 * row with what it is about.
 */
async function webhookCall(
  row: OutboxRow,
  db: Parameters<Deliver>[1],
  settings: { siteUrl: string; titles: ReadonlyMap<string, string> },
): Promise<{ event: string; body: string } | Exclude<Delivery, { outcome: "sent" }>> {
  const reference = webhookPayloadOf(row.payload);
  if (reference) {
    const comment = (await commentsById(db, [reference.commentId])).get(reference.commentId);
    if (!comment) {
      return { outcome: "cancelled", reason: "the comment was deleted before the call went out" };
    }
    const body = webhookBody(comment, reference, settings);
    return { event: body.type, body: JSON.stringify(body) };
  }
  const type = jsonOf(row.payload, z.object({ type: z.string() }))?.type;
  if (type === undefined || row.payload === null) {
    return { outcome: "failed", reason: "a malformed webhook call" };
  }
  return { event: type, body: row.payload };
}

/**
 * The owner's notifications of new comments: the notifier the comments
 * repository calls in its transaction, then the mails' composers for the
 * outbox worker, the webhook worker and the action links' routes.
 */
export function createNotifications(
  config: Pick<
    Config,
    "OWNER_EMAIL" | "notifyComments" | "WEBHOOK_URL" | "WEBHOOK_SECRET" | "siteUrl"
  >,
  {
    clock,
    titles,
  }: {
    /** The time the hourly digest and the links' expiry are reckoned against (tests move it). */
    clock: () => Date;
    /** Post titles by id. */
    titles: ReadonlyMap<string, string>;
  },
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

    /**
     * The mails' composers, the webhook worker and the action links' routes, on
     * the open store. `act` approves or deletes a comment, as the mails' links
     * ask (docs/decisions/011-owner-notifications.md).
     */
    attach(
      store: Store,
      unsigned: OwnerActor,
      act: CommentActions,
      /** The owner's zone (the Bookings hours'), which the mails and link pages give times in. */
      ownerZone: () => Promise<string>,
    ) {
      const tokens = createActionTokens(store, clock);
      const { siteUrl } = config;
      const written = async (comment: NotifiedComment) =>
        momentLabel(Date.parse(comment.createdAt), await ownerZone());
      const routes: ActionRouteDeps = { store, tokens, titles, siteUrl, unsigned, act, written };
      /**
       * The owner's mails for the outbox worker: `comment_notice` (one comment) and
       * `comment_digest` (every comment of the hour, claimed as one batch). The
       * comment is read when the mail is written, so an edit shows and a comment
       * deleted meanwhile is left out; the action links are minted then too, so
       * their tokens never rest in the outbox.
       */
      async function entryFor(comment: NotifiedComment, state: CommentState): Promise<NoticeEntry> {
        const link = async (action: CommentAction) =>
          actionUrl(siteUrl, comment.id, action, await tokens.mint(comment.id, action));
        const links: NoticeEntry["links"] = {};
        if (state === "held") links.approve = await link("approve");
        links.delete = await link("delete");
        return {
          comment,
          written: await written(comment),
          state,
          postTitle: titles.get(comment.postId) ?? comment.postId,
          postUrl: postUrl(siteUrl, comment.postId),
          links,
        };
      }

      const composers: Partial<Record<OutboxKind, ComposeMail>> = {
        async comment_notice(row, db) {
          const payload = mailPayloadOf(row.payload);
          if (!payload || !row.email)
            return { outcome: "failed", reason: "a malformed notification" };
          const comment = (await commentsById(db, [payload.commentId])).get(payload.commentId);
          if (!comment) {
            return {
              outcome: "cancelled",
              reason: "the comment was deleted before the mail went out",
            };
          }
          return noticeMail(row.email, await entryFor(comment, payload.state));
        },

        async comment_digest(row, db, batch) {
          if (!row.email) return { outcome: "failed", reason: "a malformed notification" };
          const payloads = batch
            .map((member) => mailPayloadOf(member.payload))
            .filter((payload) => payload !== null);
          const comments = await commentsById(
            db,
            payloads.map((payload) => payload.commentId),
          );
          const present = payloads
            .toSorted((a, b) => a.commentId - b.commentId)
            .filter((payload) => comments.has(payload.commentId));
          if (present.length === 0) {
            return { outcome: "cancelled", reason: "the comments were deleted before the digest" };
          }
          const entries: NoticeEntry[] = [];
          for (const payload of present.slice(0, digestEntriesMax)) {
            entries.push(
              await entryFor(comments.get(payload.commentId) as NotifiedComment, payload.state),
            );
          }
          return digestMail(row.email, entries, {
            deleted: batch.length - present.length,
            more: present.length - entries.length,
          });
        },
      };
      return {
        composers,
        routes,

        /** Calls the webhook from the outbox, unpaced; none without WEBHOOK_URL. */
        start(
          outbox: OutboxRepository,
          log: Log,
          { pollMs, retryBaseMs }: { pollMs?: number; retryBaseMs?: number },
          retention: HourlyRetention,
        ) {
          const { WEBHOOK_URL: url, WEBHOOK_SECRET: secret } = config;
          retention.add(() => tokens.prune(), {
            failure: "old action links could not be pruned",
          });
          let webhooks: OutboxWorker | undefined;
          if (url && secret) {
            webhooks = startOutboxLoop({
              outbox,
              kinds: ["webhook"],
              ratePerMinute: 0,
              ...(pollMs ? { pollMs } : {}),
              ...(retryBaseMs ? { retryBaseMs } : {}),
              log,
              async deliver(row, db) {
                const call = await webhookCall(row, db, { siteUrl: config.siteUrl, titles });
                if ("outcome" in call) return call;
                const delivery = await callWebhook({
                  url,
                  secret,
                  event: call.event,
                  deliveryId: String(row.id),
                  body: call.body,
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
              await webhooks?.stop();
            },
          };
        },
      };
    },
  };
}
