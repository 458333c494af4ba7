import { randomUUID } from "node:crypto";
import type { Context, Federation } from "@fedify/fedify";
import {
  Accept,
  Article,
  Create,
  Delete,
  Follow,
  Note,
  PUBLIC_COLLECTION,
  type Recipient,
  Reject,
  Tombstone,
  Update,
} from "@fedify/fedify/vocab";
import { articleOf, type Deliverable, everyone, instant, siteActor } from "./federation.ts";
import type { FediverseRepository } from "./repository.ts";
import { accountPath, notePath } from "./sent-records.ts";
import type { SiteItem } from "./site-items.ts";

/*
 * What the site sends through Fedify. At start (service.ts, `publish`) the
 * items the site shows now are compared with what followers were last sent:
 * a new item goes out as a Create, a changed one as an Update, one no longer
 * on the site as a Delete (its address then answers with a Tombstone). Each
 * is recorded before it is queued, in a way only one instance can win, so
 * several instances starting at once send it once. Fedify queues one
 * delivery per follower's server (shared inboxes), with retries and backoff,
 * in the site's database.
 */

/**
 * What sending needs: Fedify loaded, the record of what was sent, the site,
 * the log, and the check of an account's inboxes, made just before each
 * send to one account found here (to followers, the followers' list makes
 * it; a `Writer` was checked when it was looked up).
 */
type Sender = {
  federation: Federation<void>;
  repository: FediverseRepository;
  siteUrl: string;
  log: { info(object: unknown, message: string): void };
  deliverable: Deliverable;
};

const site = { identifier: siteActor };
const toFollowers = { preferSharedInbox: true } as const;

/**
 * An answer's Create, Update and Delete reach each server in the order they
 * were queued, one at a time (message-queue.ts): a Delete never overtakes
 * the Create of an answer deleted just after it was sent, retried or not.
 */
const inOrder = (note: URL) => ({ orderingKey: note.href });

/** A context on the site's own address, which can give its actor and objects. */
const contextOf = ({ federation, siteUrl }: Sender) =>
  federation.createContext(new Request(new URL(siteUrl)), undefined);

/** What each of the site's activities carries: a fresh id under `base`, the site as actor. */
const fromSite = (ctx: Context<void>, tag: string, base = ctx.getActorUri(siteActor)) => ({
  id: new URL(`#${tag}-${randomUUID()}`, base),
  actor: ctx.getActorUri(siteActor),
});

/** A new item (or one back on the site) as a Create, a changed one as an Update. */
export async function sendItem(
  sender: Sender,
  item: SiteItem,
  before: { deleted: boolean } | undefined,
): Promise<"created" | "updated"> {
  const ctx = contextOf(sender);
  const fresh = !before || before.deleted;
  // Mastodon puts in its followers' home timelines only a post published within the last
  // six hours, and an item is dated by its day alone (midnight, hours or days before it
  // goes): a new one goes as published now, unedited. Its address gives it with its day.
  const article = articleOf(ctx, item, sender.siteUrl, fresh ? instant() : undefined);
  const activity = new (fresh ? Create : Update)({
    ...fromSite(ctx, fresh ? "create" : "update", article.id ?? undefined),
    ...everyone(ctx),
    object: article,
    published: instant(),
  });
  await ctx.sendActivity(site, "followers", activity, toFollowers);
  return fresh ? "created" : "updated";
}

/** An item no longer on the site, as a Delete of its Article (which answers with a Tombstone). */
export async function sendDeletion(sender: Sender, path: string) {
  const ctx = contextOf(sender);
  const [, section = "", slug = ""] = path.split("/");
  const id = ctx.getObjectUri(Article, { section, slug });
  const object = new Tombstone({ id, deleted: instant() });
  await ctx.sendActivity(
    site,
    "followers",
    new Delete({ ...fromSite(ctx, "delete", id), ...everyone(ctx), object }),
    toFollowers,
  );
}

/**
 * The account itself, as an Update to every follower's server, signed with
 * its keys as they are now: Mastodon and others replace what they kept of
 * it, public key included, so later deliveries verify at the first try.
 * Recorded first under `accountPath`, so several instances send it once;
 * false when there was nothing to send or another instance sent it.
 * `digest`: the account's as it is now (repository.accountDigest).
 */
export async function sendAccountUpdate(
  sender: Sender,
  digest: () => Promise<string | null>,
): Promise<boolean> {
  const ctx = contextOf(sender);
  // Made with its keys, which are made now if there are none.
  const actor = await ctx.getActor(siteActor);
  const now = await digest();
  if (!actor || now === null) return false;
  if (!(await sender.repository.recordPublished(accountPath, now))) return false;
  const update = new Update({
    ...fromSite(ctx, "update"),
    ...everyone(ctx),
    object: actor,
    published: instant(),
  });
  await ctx.sendActivity(site, "followers", update, toFollowers);
  sender.log.info(
    { actor: actor.id?.href },
    "the site's account and its keys sent to its followers",
  );
  return true;
}

/**
 * The owner's reply to a comment that came from the Fediverse goes back to
 * its writer as the Note the site serves for it (federation.ts), in reply
 * to theirs (and to the owner's followers' servers no further: it is a
 * reply, shown under the item). The writer is looked up by `writerOf`
 * (owner-replies.ts), through the guarded fetch alone: Fedify's lookup, when
 * it cannot read the account, asks its server by WebFinger through the global
 * fetch, which reads an answer of any size for as long as it lasts.
 */
export async function sendOwnerReply(
  sender: Sender,
  commentId: number,
  writerOf: (actorId: string) => Promise<Writer | null>,
): Promise<boolean> {
  const ctx = contextOf(sender);
  const note = await ctx.getObject(Note, { id: String(commentId) });
  const [answered, writer] = [note?.replyTargetId, note?.ccId];
  if (!note?.id || !answered || !writer) return false;
  // Sent once: a record made before writers were kept names the answered Note alone.
  const before = await sender.repository.sent(notePath(commentId));
  if (before?.digest.split(" ")[0] === answered.href) return false;
  const sent = `${answered.href} ${writer.href}`;
  if (!(await sender.repository.recordPublished(notePath(commentId), sent))) return false;
  const to = await writerOf(writer.href);
  if (!to) {
    sender.log.info({ comment: commentId }, "the owner's reply found no inbox for its writer");
    return false;
  }
  const recipient = { id: new URL(to.actorId), inboxId: new URL(to.inbox) };
  // Read again: deleted during the lookup, its Delete may be queued already, and a Create
  // queued after it would reach the writer after it.
  const current = await ctx.getObject(Note, { id: String(commentId) });
  if (!current?.id) {
    sender.log.info({ comment: commentId }, "the owner's reply was deleted before it went out");
    return false;
  }
  const create = new Create({
    ...fromSite(ctx, "create", current.id),
    to: PUBLIC_COLLECTION,
    cc: recipient.id,
    object: current,
    published: instant(),
  });
  await ctx.sendActivity(site, recipient, create, inOrder(current.id));
  sender.log.info(
    { comment: commentId, to: writer.href },
    "the owner's reply was sent to the Fediverse",
  );
  return true;
}

/**
 * An account to deliver to: its address and its inbox's, looked up just
 * before, and its inbox checked then (owner-replies.ts, `writerOf`).
 */
export type Writer = { actorId: string; inbox: string };

/** The owner's reply, edited here, to its writer: an Update with the Note as it now reads. */
export async function sendOwnerReplyEdit(sender: Sender, commentId: number, writer: Writer) {
  const ctx = contextOf(sender);
  const note = await ctx.getObject(Note, { id: String(commentId) });
  if (!note?.id) return;
  const recipient = { id: new URL(writer.actorId), inboxId: new URL(writer.inbox) };
  const to = { to: PUBLIC_COLLECTION, cc: recipient.id };
  const update = new Update({ ...fromSite(ctx, "update", note.id), ...to, object: note });
  await ctx.sendActivity(site, recipient, update, inOrder(note.id));
  const logged = { comment: commentId, to: writer.actorId };
  sender.log.info(logged, "the owner's edited reply was sent to the Fediverse");
}

/**
 * The owner's reply deleted here, or its writer erased: a Delete of it as a
 * Tombstone naming nobody, to followers' servers (the Note was public: they
 * may hold a copy) and to the writer's inbox when it was found.
 */
export async function sendOwnerReplyDeletion(
  sender: Sender,
  commentId: number,
  writer: Writer | null,
) {
  const ctx = contextOf(sender);
  const id = ctx.getObjectUri(Note, { id: String(commentId) });
  const object = new Tombstone({ id, deleted: instant() });
  const deletion = new Delete({ ...fromSite(ctx, "delete", id), ...everyone(ctx), object });
  if (writer) {
    const recipient = { id: new URL(writer.actorId), inboxId: new URL(writer.inbox) };
    await ctx.sendActivity(site, recipient, deletion, inOrder(id));
  }
  await ctx.sendActivity(site, "followers", deletion, { ...toFollowers, ...inOrder(id) });
  sender.log.info({ comment: commentId }, "the owner's reply was taken back from the Fediverse");
}

/** Accepts or rejects a Follow, to its follower's inbox. */
export async function answerFollow(
  ctx: Context<void>,
  Answer: typeof Accept | typeof Reject,
  follower: Recipient,
  follow: Follow,
) {
  const tag = Answer === Accept ? "accept" : "reject";
  await ctx.sendActivity(site, follower, new Answer({ ...fromSite(ctx, tag), object: follow }));
}

/** Tells a removed follower's server that its Follow no longer stands. */
export async function rejectFollow(
  sender: Sender,
  follower: { actorId: string; inbox: string; followId: string },
) {
  const ctx = contextOf(sender);
  const actor = new URL(follower.actorId);
  const recipient = { id: actor, inboxId: new URL(follower.inbox) };
  if ((await sender.deliverable(recipient)) !== "allowed") return;
  const follow = new Follow({
    id: new URL(follower.followId),
    actor,
    object: ctx.getActorUri(siteActor),
  });
  await answerFollow(ctx, Reject, recipient, follow);
}
