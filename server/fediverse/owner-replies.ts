import { z } from "zod";
import type { CommentEvent } from "../../contract/live-events.ts";
import { commentAnchor } from "../../contract/threads.ts";
import type { CommentsRepository } from "../comments/repository.ts";
import type { EventBus } from "../events/bus.ts";
import { jsonOf } from "../lib/json.ts";
import type { RemoteFetch } from "../lib/safe-fetch.ts";
import type { Deliverable } from "./federation.ts";
import type { Logger } from "./logging.ts";
import type { TakeBack } from "./message-queue.ts";
import type * as Sending from "./publishing.ts";
import type { FediverseRepository } from "./repository.ts";
import { notePath } from "./sent-records.ts";

/*
 * The owner's replies to comments from the Fediverse: each goes back as a
 * Note to its writer, and an edit or a deletion here follows it there.
 */

type OwnerRepliesDeps = {
  repository: FediverseRepository;
  comments: Pick<CommentsRepository, "getForOwner">;
  bus: Pick<EventBus, "subscribeAll">;
  queue: { enqueue(message: TakeBack, options: object): Promise<void> };
  remoteFetch: RemoteFetch;
  deliverable: Deliverable;
  /** Fedify loaded, with what sends through it (publishing.ts). */
  publishing: () => Promise<
    typeof Sending & { sender: Parameters<typeof Sending.sendOwnerReply>[0] }
  >;
  federation: () => Promise<unknown>;
  /** Whether the site shows the item at this path now: an answer under one gone is no Note. */
  onSite: (itemPath: string) => boolean;
  log: Logger;
};

export function createOwnerReplies({
  repository,
  comments,
  bus,
  queue,
  remoteFetch,
  deliverable,
  publishing,
  federation,
  onSite,
  log,
}: OwnerRepliesDeps) {
  /**
   * The owner's reply as the Note it becomes (its comment's HTML, the Note
   * it answers and whom), or null when it answers no comment from the
   * Fediverse, or is under an item no longer on the site. Once sent, it
   * answers what its record says, whatever left its thread since (else the
   * next writer up would be named instead); taken back, its writer erased or
   * its item gone, it is a tombstone.
   */
  async function ownerNote(id: number) {
    const comment = await comments.getForOwner(id);
    const shown = comment?.byOwner && !comment.deleted && comment.status === "published";
    if (!shown || !comment.parentId) return null;
    const page = `/science/${encodeURIComponent(comment.postId)}`;
    if (!onSite(page)) return null;
    const sent = await repository.sent(notePath(id));
    const [note_id = "", writer] = sent?.digest.split(" ") ?? [];
    const answered = sent
      ? { note_id, actor_id: writer ?? (await repository.replyByNote(note_id))?.actor_id }
      : await repository.answeredBy({ id, parentId: comment.parentId });
    if (sent?.deleted || !answered?.actor_id) return null;
    return {
      html: comment.html,
      page: `${page}#${commentAnchor(id)}`,
      published: comment.createdAt,
      updated: comment.updatedAt,
      inReplyTo: answered.note_id,
      to: answered.actor_id,
    };
  }

  /** The owner's reply to a Fediverse comment goes back as a Note; Fedify loads only then. */
  async function ownerReplied(commentId: number) {
    if (!(await ownerNote(commentId))) return;
    const { sendOwnerReply, sender } = await publishing();
    await sendOwnerReply(sender, commentId, writerOf);
  }

  /**
   * An owner's reply sent to the Fediverse, then edited or deleted here, goes
   * out as an Update to its writer's server or as a Delete (`takeBack`),
   * recorded first (an edit by its time) so one instance sends it. A reply
   * recorded before writers were (its digest the answered Note alone) finds
   * its writer by that Note while its comment is still here. A reply never
   * sent sends nothing.
   */
  async function ownerReplyChanged(commentId: number, change: "update" | "delete") {
    const sent = await repository.sent(notePath(commentId));
    if (!sent || sent.deleted) return;
    const [answered = "", writer] = sent.digest.split(" ");
    const writerId = writer ?? (await repository.replyByNote(answered))?.actor_id ?? null;
    if (change === "delete") {
      // Its record keeps its address and time, nothing of whom it answered.
      if (await repository.recordPublished(notePath(commentId), "", true)) {
        await takeBack([commentId], writerId);
      }
      return;
    }
    const edited = (await ownerNote(commentId))?.updated;
    if (!writerId || edited === undefined) return;
    const digest = `${answered} ${writerId} ${edited}`;
    if (!(await repository.recordPublished(notePath(commentId), digest))) return;
    const to = await writerOf(writerId);
    if (!to) return;
    const { sendOwnerReplyEdit, sender } = await publishing();
    await sendOwnerReplyEdit(sender, commentId, to);
  }

  /**
   * Where an account takes deliveries, looked up now through the guarded
   * fetch and cached nowhere: its inbox, on its own server (which the fetch
   * has just reached) and at a public address. Null when it cannot be found,
   * as after its deletion.
   */
  async function writerOf(actorId: string): Promise<Sending.Writer | null> {
    const answer = await remoteFetch(actorId, {
      headers: { accept: "application/activity+json" },
      maxBytes: 256 * 1024,
    }).catch(() => null);
    const found = jsonOf(
      answer?.status === 200 ? answer.body.toString() : null,
      z.object({ id: z.literal(actorId), inbox: z.string() }),
    );
    const inbox = found ? URL.parse(found.inbox) : null;
    if (inbox?.origin !== new URL(actorId).origin) return null;
    return (await deliverable({ id: new URL(actorId), inboxId: inbox })) === "allowed"
      ? { actorId, inbox: inbox.href }
      : null;
  }

  /**
   * The owner's answers (their comments' ids), deleted here or their writer
   * erased, leave the Fediverse: a `TakeBack` waits in the queue, which the
   * command line writes too, until a server with Fedify loaded takes it.
   */
  async function takeBack(answers: number[], writer: string | null) {
    if (answers.length === 0) return;
    await queue.enqueue({ type: "ewe:take-back", answers, writer } satisfies TakeBack, {});
    void federation().catch((error: unknown) =>
      log.warn({ err: error }, "the owner's answers could not be taken back yet"),
    );
  }

  /**
   * A Delete of each answer, naming nobody, to followers' servers and to the
   * writer's inbox when given and found now (through the guarded fetch). The
   * inbox is then held only by the deliveries waiting in the queue.
   */
  async function sendTakeBack({ answers, writer }: TakeBack) {
    const to = writer ? await writerOf(writer) : null;
    const { sendOwnerReplyDeletion, sender } = await publishing();
    for (const id of answers) await sendOwnerReplyDeletion(sender, id, to);
  }

  const failed = (commentId: number, action: string) => (error: unknown) =>
    log.warn(
      { err: error, comment: commentId, action },
      "the owner's reply, or its change, could not be sent to the Fediverse",
    );

  /**
   * Deleted comments, looked up together once the events of one commit are
   * delivered: a browser's or a spammer's thousands deleted at once are one
   * read per 500, not a read each that every other request waits behind.
   */
  const deleted = new Set<number>();
  async function takeBackDeleted() {
    const ids = [...deleted];
    deleted.clear();
    await withdraw(ids).catch(failed(ids[0] ?? 0, "deleted"));
  }

  /**
   * Of these comments, the owner's answers sent to the Fediverse and not taken
   * back leave it as a deleted one does, each recorded first so that one
   * instance sends its Delete once: its comment deleted, or its item gone
   * from the site (service.ts, `publish`).
   */
  async function withdraw(ids: readonly number[]) {
    for (const id of await repository.notesStillSent(ids)) {
      await ownerReplyChanged(id, "delete").catch(failed(id, "deleted"));
    }
  }

  const unsubscribe = bus.subscribeAll((event) => {
    if (event.type !== "comment") return;
    // The site's own event, as its journal reads it (server/events/journal.ts).
    const data = JSON.parse(event.data) as CommentEvent;
    if (data.action === "deleted") {
      if (deleted.size === 0) setImmediate(() => void takeBackDeleted());
      deleted.add(data.commentId);
      return;
    }
    const ownersReply = "comment" in data && data.comment.byOwner && data.comment.parentId !== null;
    if (!ownersReply) return;
    const sending =
      data.action === "added"
        ? ownerReplied(data.commentId)
        : ownerReplyChanged(data.commentId, "update");
    sending.catch(failed(data.commentId, data.action));
  });

  return { ownerNote, takeBack, sendTakeBack, withdraw, stop: unsubscribe };
}
