import { randomUUID } from "node:crypto";
import type { Federation } from "@fedify/fedify";
import {
  Article,
  Create,
  Delete,
  Follow,
  Note,
  PUBLIC_COLLECTION,
  Reject,
  Tombstone,
  Update,
} from "@fedify/fedify/vocab";
import { articleOf, instant, siteActor } from "./federation.ts";
import { accountPath, type FediverseRepository, isItemPath } from "./repository.ts";
import type { SiteItem } from "./site-items.ts";

/*
 * At start, the items the site shows now are compared with what followers
 * were last sent: a new item goes out as a Create, a changed one as an
 * Update, one no longer on the site as a Delete (its address then answers
 * with a Tombstone). Each is recorded before it is queued, in a way only one
 * instance can win, so several instances starting at once send it once.
 * Fedify queues one delivery per follower's server (shared inboxes), with
 * retries and backoff, in the site's database.
 */

type Logger = { info(object: unknown, message: string): void };

/** Paths under which the owner's replies are recorded as sent, beside the items'. */
export const notePath = (commentId: number) => `/notes/${commentId}`;

export async function publishChanges({
  federation,
  repository,
  items,
  siteUrl,
  log,
  published,
}: {
  federation: Federation<void>;
  repository: FediverseRepository;
  items: ReadonlyMap<string, SiteItem>;
  siteUrl: string;
  log: Logger;
  /** Told of each item sent as new or changed (its webmentions go out then). */
  published?: (item: SiteItem) => void;
}): Promise<{ created: number; updated: number; deleted: number }> {
  const ctx = federation.createContext(new URL(siteUrl), undefined);
  const sender = { identifier: siteActor };
  const actor = ctx.getActorUri(siteActor);
  const options = { preferSharedInbox: true, orderingKey: undefined } as const;
  const sent = await repository.published();
  const counts = { created: 0, updated: 0, deleted: 0 };
  for (const item of items.values()) {
    const before = sent.get(item.path);
    if (before && !before.deleted && before.digest === item.digest) continue;
    if (!(await repository.recordPublished(item.path, item.digest))) continue;
    const article = articleOf(ctx, item, siteUrl);
    const fresh = !before || before.deleted;
    const Activity = fresh ? Create : Update;
    await ctx.sendActivity(
      sender,
      "followers",
      new Activity({
        id: new URL(`#${fresh ? "create" : "update"}-${randomUUID()}`, article.id ?? actor),
        actor,
        to: PUBLIC_COLLECTION,
        cc: ctx.getFollowersUri(siteActor),
        object: article,
        published: instant(),
      }),
      options,
    );
    counts[fresh ? "created" : "updated"] += 1;
    published?.(item);
  }
  for (const [path, before] of sent) {
    if (before.deleted || !isItemPath(path) || items.has(path)) continue;
    const [, section, slug] = path.split("/");
    if (!section || !slug) continue;
    if (!(await repository.recordPublished(path, before.digest, true))) continue;
    const id = ctx.getObjectUri(Article, { section, slug });
    await ctx.sendActivity(
      sender,
      "followers",
      new Delete({
        id: new URL(`#delete-${randomUUID()}`, id),
        actor,
        to: PUBLIC_COLLECTION,
        cc: ctx.getFollowersUri(siteActor),
        object: new Tombstone({ id, deleted: instant() }),
      }),
      options,
    );
    counts.deleted += 1;
  }
  if (counts.created + counts.updated + counts.deleted > 0) {
    log.info(counts, "items sent to the site's Fediverse followers");
  }
  return counts;
}

/**
 * The account itself, as an Update to every follower's server, signed with
 * its keys as they are now: Mastodon and others replace what they kept of
 * it, public key included, so later deliveries verify at the first try.
 * Recorded first under `accountPath`, so several instances send it once;
 * false when there was nothing to send or another instance sent it.
 */
export async function sendAccountUpdate({
  federation,
  repository,
  siteUrl,
  digest,
  log,
}: {
  federation: Federation<void>;
  repository: FediverseRepository;
  siteUrl: string;
  /** The account's digest as it is now (repository.accountDigest). */
  digest: () => Promise<string | null>;
  log: Logger;
}): Promise<boolean> {
  const probe = federation.createContext(new URL(siteUrl), undefined);
  const actorUri = probe.getActorUri(siteActor);
  const ctx = federation.createContext(new Request(actorUri), undefined);
  // Made with its keys, which are made now if there are none.
  const actor = await ctx.getActor(siteActor);
  const now = await digest();
  if (!actor || now === null) return false;
  if (!(await repository.recordPublished(accountPath, now))) return false;
  await ctx.sendActivity(
    { identifier: siteActor },
    "followers",
    new Update({
      id: new URL(`#update-${randomUUID()}`, actorUri),
      actor: actorUri,
      to: PUBLIC_COLLECTION,
      cc: ctx.getFollowersUri(siteActor),
      object: actor,
      published: instant(),
    }),
    { preferSharedInbox: true },
  );
  log.info({ actor: actorUri.href }, "the site's account and its keys sent to its followers");
  return true;
}

/**
 * The owner's reply to a comment that came from the Fediverse goes back to
 * its writer as a Note in reply to theirs (and to the owner's followers'
 * servers no further: it is a reply, shown under the item).
 */
export async function sendOwnerReply({
  federation,
  repository,
  siteUrl,
  comment,
  log,
}: {
  federation: Federation<void>;
  repository: FediverseRepository;
  siteUrl: string;
  comment: { id: number; parentId: number; html: string; createdAt: string };
  log: Logger;
}): Promise<boolean> {
  const answered = await repository.answeredBy(comment);
  if (!answered) return false;
  if (!(await repository.recordPublished(notePath(comment.id), answered.note_id))) return false;
  const ctx = federation.createContext(new URL(siteUrl), undefined);
  const actor = ctx.getActorUri(siteActor);
  const recipient = await ctx.lookupObject(answered.actor_id);
  if (!recipient || !("inboxId" in recipient) || !recipient.id) return false;
  const note = new Note({
    id: ctx.getObjectUri(Note, { id: String(comment.id) }),
    attribution: actor,
    to: PUBLIC_COLLECTION,
    cc: recipient.id,
    replyTarget: new URL(answered.note_id),
    content: comment.html,
    published: instant(comment.createdAt),
  });
  await ctx.sendActivity(
    { identifier: siteActor },
    recipient as never,
    new Create({
      id: new URL(`#create-${randomUUID()}`, note.id ?? actor),
      actor,
      to: PUBLIC_COLLECTION,
      cc: recipient.id,
      object: note,
      published: instant(),
    }),
  );
  log.info(
    { comment: comment.id, to: answered.actor_id },
    "the owner's reply was sent to the Fediverse",
  );
  return true;
}

/** Tells a removed follower's server that its Follow no longer stands. */
export async function rejectFollow(
  federation: Federation<void>,
  siteUrl: string,
  follower: { actorId: string; inbox: string; followId: string },
) {
  const ctx = federation.createContext(new URL(siteUrl), undefined);
  const actor = ctx.getActorUri(siteActor);
  await ctx.sendActivity(
    { identifier: siteActor },
    { id: new URL(follower.actorId), inboxId: new URL(follower.inbox) },
    new Reject({
      id: new URL(`#rejects/${randomUUID()}`, actor),
      actor,
      object: new Follow({
        id: new URL(follower.followId),
        actor: new URL(follower.actorId),
        object: actor,
      }),
    }),
  );
}
