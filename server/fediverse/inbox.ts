import type { Context, Federation, InboxContext, KvStore } from "@fedify/fedify";
import {
  Accept,
  type Actor,
  Announce,
  Article,
  Create,
  Delete,
  Follow,
  isActor,
  Like,
  Note,
  PUBLIC_COLLECTION,
  Reject,
  Undo,
  Update,
} from "@fedify/fedify/vocab";
import { commentContentSchema, rowIdParamSchema } from "../../contract/api.ts";
import type { CommentsRepository } from "../comments/repository.ts";
import type { RemoteFetch } from "../lib/safe-fetch.ts";
import type { CommentDefences } from "../moderation/defences.ts";
import { tooLongAddress } from "./activity-json.ts";
import { nameOf } from "./deadlines.ts";
import { type Deliverable, paths, siteActor } from "./federation.ts";
import type { createKvStore } from "./kv-store.ts";
import type { Logger } from "./logging.ts";
import { handleOf, noteMarkdown, remoteName } from "./note-text.ts";
import { writerPicture } from "./pictures.ts";
import { answerFollow } from "./publishing.ts";
import { remoteAccounts } from "./remote-accounts.ts";
import { type FediverseRepository, visitorOfActor } from "./repository.ts";
import { takenBack } from "./taken-back.ts";

/*
 * What other servers send to the site's inbox. Fedify has checked the
 * HTTP signature (an unsigned or wrongly signed post is answered 401 before
 * any of this runs) and that the activity's actor owns the key. Anything
 * from a blocked account or server is dropped. A Note in reply to an item
 * that takes comments, or to a comment in its discussion, becomes a comment
 * through the same defences as the site's own form: bans, rules, the spam
 * filter and moderation. Its writer's later Update edits it and Delete
 * removes it; an Update of the account itself renames its replies and follow.
 */

/** The comment functions the inbox uses (server/comments' repository). */
type InboxComments = Pick<
  CommentsRepository,
  "add" | "update" | "remove" | "removeAllBy" | "getForOwner" | "renameRemoteWriter"
>;

export type InboxDeps = {
  repository: FediverseRepository;
  comments: InboxComments;
  defences: Pick<
    CommentDefences,
    "judgeNew" | "recordScreening" | "judgeEdit" | "screenEdit" | "nameRefusal"
  >;
  /** Whether a science post of this id takes comments. */
  commentable: (postId: string) => boolean;
  /** Replies' pictures. */
  remoteFetch: RemoteFetch;
  /** A follower whose inbox is on a private address is never stored nor answered. */
  deliverable: Deliverable;
  siteUrl: string;
  log: Pick<Logger, "info" | "warn">;
  /** A like, boost, reply or removal changed what an item shows. */
  changed: (itemPath: string) => void;
  /** Forgets what Fedify cached of an account: its documents and keys (kv-store.ts). */
  forgetCached: (actorId: string) => Promise<void>;
  /** Takes the owner's answers to an erased account back from the Fediverse (service.ts). */
  answersErased: (answers: number[], actorId: null) => Promise<void>;
  /** Tells the queue the activity in hand failed (message-queue.ts, `failed`). */
  failed: (why: string) => void;
  /**
   * Where what was taken back before it arrived is remembered (taken-back.ts),
   * and Fedify's copies of documents (kv-store.ts).
   */
  kv: Pick<KvStore, "get" | "set"> & Pick<SiteKvStore, "forgetDocument">;
};

type SiteKvStore = ReturnType<typeof createKvStore>;

/** An id to keep: one fetched by its address may name itself by one too long (activity-json.ts). */
const keepable = (id: URL | null | undefined): id is URL => !!id && !tooLongAddress(id.href);

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

export function listenToInbox(federation: Federation<void>, deps: InboxDeps) {
  const { repository, comments, defences, log } = deps;
  const undone = takenBack(deps.kv);
  const { renameAccount, forgetAccount, removeReply } = remoteAccounts(deps);
  const site = new URL(deps.siteUrl);

  /** The values in the address of our own Article or Note that `id` is, or null. */
  function ours(ctx: Context<void>, type: typeof Article | typeof Note, id: URL | null) {
    const parsed = id?.search || id?.hash ? null : ctx.parseUri(id);
    return parsed?.type === "object" && parsed.class === type ? parsed.values : null;
  }

  /** `/science/pressure-cooker` for the Article's id, if it is one of ours. */
  function itemPathOf(ctx: Context<void>, objectId: URL | null): string | null {
    const item = ours(ctx, Article, objectId);
    const path = `/${item?.section}/${item?.slug}`;
    return item && /^\/[a-z0-9-]+\/[a-z0-9-]+$/.test(path) ? path : null;
  }

  async function blocked(actorId: URL | null): Promise<boolean> {
    if (!actorId) return true;
    if (await repository.isBlocked(actorId.href)) {
      log.info(
        { actor: actorId.href },
        "fediverse activity from a blocked account or server dropped",
      );
      return true;
    }
    return false;
  }

  /**
   * A Note's text as a comment's Markdown, without the mentions of the site
   * itself; null when the comment form would refuse it (nothing that shows,
   * screens of blank lines, a stack of marks on a character).
   */
  const markdownOf = (ctx: Context<void>, note: Note) => {
    const markdown = noteMarkdown(text(note.content) ?? "", {
      contentWarning: text(note.summary),
      dropMentionsOf: [ctx.getActorUri(siteActor).href, new URL("/about", site).href],
    });
    const written = commentContentSchema.safeParse(markdown);
    if (!written.success) {
      log.info(
        { note: note.id?.href },
        "a Fediverse post the comment form would refuse was ignored",
      );
    }
    return written.success ? written.data : null;
  };

  /** The post and thread a reply lands in, or null when it answers nothing of ours. */
  async function placeOf(
    ctx: Context<void>,
    target: URL | null,
  ): Promise<{ postId: string; parentId?: number } | null> {
    if (!target) return null;
    const itemPath = itemPathOf(ctx, target);
    if (itemPath) {
      const [, section, slug] = itemPath.split("/");
      return section === "science" && slug && deps.commentable(slug) ? { postId: slug } : null;
    }
    // The owner's Note answered, or a reply from the Fediverse that became a comment.
    const note = ours(ctx, Note, target)?.id;
    const ownId = note === undefined ? undefined : rowIdParamSchema.safeParse(note);
    if (ownId && !ownId.success) return null;
    const commentId = ownId ? ownId.data : (await repository.replyByNote(target.href))?.comment_id;
    if (commentId === undefined) return null;
    const parent = await comments.getForOwner(commentId);
    return parent ? { postId: parent.postId, parentId: parent.id } : null;
  }

  async function receiveNote(ctx: InboxContext<void>, activity: Create, note: Note) {
    const actorId = activity.actorId;
    if (!actorId || note.attributionId?.href !== actorId.href || !keepable(note.id)) return;
    // A post's address is its server's: one claiming another's would take the place of
    // that server's post here (its later reply dropped as a repeat, its replies in this thread).
    if (note.id.origin !== actorId.origin) return;
    // One for its addressees alone (a direct message, or for its writer's followers) is not
    // the site's to show anyone: Mastodon shows it to none but them.
    if (![...note.toIds, ...note.ccIds].some((id) => id.href === PUBLIC_COLLECTION.href)) {
      log.info({ note: note.id.href }, "a Fediverse note not addressed to the public was ignored");
      return;
    }
    if (await repository.replyByNote(note.id.href)) return;
    const noteId = note.id;
    const deletedFirst = () => undone.has(actorId, noteId);
    if (await deletedFirst()) {
      log.info({ note: note.id.href }, "a Fediverse note deleted before it arrived was ignored");
      return;
    }
    const place = await placeOf(ctx, note.replyTargetId);
    if (!place) {
      log.info({ note: note.id.href }, "a Fediverse note that answers nothing here was ignored");
      return;
    }
    const actor = await activity.getActor(ctx);
    if (!actor || !isActor(actor)) return;
    const handle = handleOf(actor);
    let userName = remoteName(actor.name, handle);
    const content = markdownOf(ctx, note);
    if (content === null) return;
    const visitorId = visitorOfActor(actorId.href);
    const judge = (handle = false) =>
      defences.judgeNew({
        handle,
        content,
        userName,
        visitorId,
        // Bans by address are by server here.
        ip: actorId.host,
        formToken: undefined,
        website: undefined,
        signed: true,
      });
    let verdict = await judge();
    // Someone elsewhere may bear the owner's name, or a name with a link in it: here they go
    // by their handle, held for the owner should it read as the owner's too.
    if (verdict.outcome === "refused" && defences.nameRefusal(userName) !== null) {
      userName = remoteName(handle, handle);
      verdict = await judge(true);
    }
    if (verdict.outcome === "refused") {
      log.info(
        { note: note.id.href, refusal: verdict.refusal.code },
        "a Fediverse reply was refused",
      );
      return;
    }
    // "Original post" links to the post's page at its own server: an address elsewhere would
    // be a link that neither the text rules nor the blocklist ever read.
    const given = note.url instanceof URL ? note.url : note.url?.href;
    const page = given?.origin === note.id.origin ? given : note.id;
    const comment = await comments.add({
      ...place,
      content,
      userName,
      visitorId,
      status: verdict.status,
      ipHash: verdict.ipHash,
      remote: {
        noteId: note.id.href,
        actorId: actorId.href,
        handle,
        name: userName,
        url: page.href,
        avatar: await writerPicture(actor, ctx, deps.remoteFetch, log),
      },
    });
    if (typeof comment === "string") return;
    // Its Delete, taken while this one was checked, found no comment yet: it goes now.
    if (await deletedFirst()) return removeReply(comment.id, actorId.href);
    await defences.recordScreening(comment.id, verdict.screening);
    deps.changed(`/science/${place.postId}`);
    log.info({ note: note.id.href, comment: comment.id }, "a Fediverse reply became a comment");
  }

  async function editNote(ctx: Context<void>, activity: Update, note: Note) {
    const actorId = activity.actorId;
    if (!actorId || !note.id) return;
    const reply = await repository.replyByNote(note.id.href);
    if (!reply || reply.actor_id !== actorId.href) return;
    const content = markdownOf(ctx, note);
    if (content === null || defences.judgeEdit(content)) return;
    const visitorId = visitorOfActor(actorId.href);
    const screening = await defences.screenEdit({ content, visitorId });
    const result = await comments.update({
      id: reply.comment_id,
      content,
      userName: reply.name,
      visitorId,
      verdict: screening.outcome,
    });
    if (typeof result === "string") return;
    if (result.status === screening.outcome) {
      await defences.recordScreening(result.comment.id, screening);
    }
    const edited = await comments.getForOwner(reply.comment_id);
    if (edited) deps.changed(`/science/${edited.postId}`);
  }

  federation
    .setInboxListeners(paths.inbox, paths.sharedInbox)
    .on(Follow, async (ctx, follow) => {
      if (!follow.id || follow.objectId?.href !== ctx.getActorUri(siteActor).href) return;
      // Unanswered, as the inbox drops it unread when it knows the block (docs/fediverse.md).
      if (await blocked(follow.actorId)) return;
      const follower = await follow.getActor(ctx);
      if (
        !keepable(follower?.id) ||
        !follower.inboxId ||
        (await deps.deliverable(follower)) !== "allowed"
      )
        return;
      await repository.follow({
        actorId: follower.id.href,
        handle: handleOf(follower),
        name: remoteName(follower.name, "") || null,
        inbox: follower.inboxId.href,
        sharedInbox: follower.endpoints?.sharedInbox?.href ?? null,
        followId: follow.id.href,
      });
      await answerFollow(ctx, Accept, follower, follow);
      log.info({ follower: follower.id.href }, "a Fediverse account follows the site");
    })
    .on(Undo, async (ctx, undo) => {
      const actorId = undo.actorId;
      if (!actorId) return;
      const object = await undo.getObject(ctx);
      if (object instanceof Follow) {
        if (await repository.unfollow(actorId.href, object.id?.href)) {
          log.info({ follower: actorId.href }, "a Fediverse account stopped following the site");
        }
      } else if ((object instanceof Like || object instanceof Announce) && object.id) {
        await undone.remember(actorId, object.id);
        const path = itemPathOf(ctx, object.objectId);
        const kind = object instanceof Like ? "like" : "announce";
        const reaction = { activityId: object.id.href, kind, path, actorId: actorId.href } as const;
        if ((await repository.unreact(reaction)) && path) deps.changed(path);
      }
    })
    .on(Create, async (ctx, create) => {
      if (await blocked(create.actorId)) return;
      const object = await create.getObject(ctx);
      if (!(object instanceof Note || object instanceof Article)) return;
      // Never its words: a log outlives the post's deletion, and logs hold nothing anyone typed.
      log.info(
        {
          type: object instanceof Note ? "Note" : "Article",
          id: object.id?.href,
          inReplyTo: object.replyTargetId?.href,
          actor: create.actorId?.href,
        },
        "a Fediverse post arrived",
      );
      if (object instanceof Note) await receiveNote(ctx, create, object);
    })
    .on(Update, async (ctx, update) => {
      const actorId = update.actorId;
      if (await blocked(actorId)) return;
      // Its account: what Fedify cached of it is old now, and never read for the new one.
      const itself = actorId !== null && update.objectId?.href === actorId.href;
      if (itself) await deps.kv.forgetDocument(actorId.href);
      const object = await update.getObject(ctx);
      if (object instanceof Note) await editNote(ctx, update, object);
      else if (itself && isActor(object) && object.id?.href === actorId.href) {
        await renameAccount(ctx, object as Actor & { id: URL });
      }
    })
    .on(Delete, async (_ctx, deletion) => {
      const actorId = deletion.actorId;
      const objectId = deletion.objectId;
      if (!actorId || !objectId) return;
      if (objectId.href === actorId.href) return forgetAccount(actorId.href);
      // Remembered before the comment is looked for: its Create, had at the same time or
      // retried later, finds this once it has been added (`receiveNote`).
      await undone.remember(actorId, objectId);
      // Fetched by its address when it came, its words are in Fedify's cache a while more.
      if (objectId.origin === actorId.origin) await deps.kv.forgetDocument(objectId.href);
      const reply = await repository.replyByNote(objectId.href);
      if (!reply || reply.actor_id !== actorId.href) return;
      await removeReply(reply.comment_id, actorId.href);
      log.info({ note: objectId.href }, "a Fediverse reply was deleted by its writer");
    })
    .on(Like, (ctx, like) => react(ctx, like, "like"))
    .on(Announce, (ctx, announce) => react(ctx, announce, "announce"))
    .on(Accept, () => {})
    .on(Reject, () => {})
    .onError((_ctx, error) => {
      log.warn({ err: error }, "a Fediverse activity could not be processed");
      deps.failed(nameOf(error));
    });

  async function react(ctx: Context<void>, activity: Like | Announce, kind: "like" | "announce") {
    const actorId = activity.actorId;
    if (!activity.id || !actorId || (await blocked(actorId))) return;
    // An id at another server would take the place of that server's like (ids are kept once).
    if (activity.id.origin !== actorId.origin) return;
    const path = itemPathOf(ctx, activity.objectId);
    if (!path) return;
    const reaction = { activityId: activity.id.href, kind, path, actorId: actorId.href };
    if ((await undone.has(actorId, activity.id)) || !(await repository.react(reaction))) return;
    // Its Undo, taken at the same time, found nothing yet to take back.
    if (await undone.has(actorId, activity.id)) await repository.unreact(reaction);
    deps.changed(path);
  }

  /** Forgets an account its server says is gone, though its Delete could not be verified (routes.ts). */
  return { forgetAccount };
}
