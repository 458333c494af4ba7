import { type FormEvent, useRef, useState } from "react";
import { toast } from "sonner";
import type { BanScope, ConsoleComment } from "../../../contract/console.ts";
import { limits } from "../../../contract/limits.ts";
import { ConfirmButton } from "../confirm-button.tsx";
import { act, type Call, consoleApi, useBusy } from "../console-api.ts";
import { useRefusal } from "../refusal.tsx";
import { buttonClass, dangerClass, inputClass, primaryClass, Radios, When } from "../ui.tsx";

/**
 * A comment's name for buttons and regions: its writer and its number, since
 * one name may write many comments ("the comment of Asha (#12)").
 */
function commentName(comment: ConsoleComment): string {
  return `the comment of ${comment.userName} (#${comment.id})`;
}

/**
 * The owner's answer to a published comment, posted with "Author" in the
 * owner's name (docs/decisions/016-owner-voice.md). Answering a reply joins
 * its thread and starts with "@" and the name it answers, as on the reading
 * pages (docs/product.md, "Replies").
 */
function ReplyForm({
  comment,
  onPosted,
  onCancel,
}: {
  comment: ConsoleComment;
  /** Closes the form and reloads the list (resolves once it has). */
  onPosted: () => Promise<void>;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState(comment.replyTo ? `@${comment.userName} ` : "");
  const [sending, busyWhile] = useBusy();
  const refusal = useRefusal(["content"]);
  const { problem, ...marked } = refusal.field("content");
  const problemId = `reply-problem-${comment.id}`;

  function post(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const content = draft.trim();
    if (content === "" || sending) return;
    refusal.clear();
    let posted: number | undefined;
    void busyWhile(
      async () => {
        try {
          const answer = await consoleApi("POST /admin/comments/:id/reply", {
            params: { id: comment.id },
            body: { content },
          });
          posted = answer.comment.id;
          toast.success("Reply posted");
          await onPosted();
        } catch (error) {
          refusal.refused(error);
        }
      },
      // The posted reply, once listed, as on the reading pages (else Reply, its neighbour).
      () => document.querySelector(`[data-comment-id="${posted}"]`),
    );
  }

  return (
    <form onSubmit={post} className="mt-3 space-y-2">
      <textarea
        aria-label="Write a reply"
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? problemId : undefined}
        {...marked}
        // biome-ignore lint/a11y/noAutofocus: the owner just asked to reply here.
        autoFocus
        value={draft}
        maxLength={limits.commentMax}
        onChange={(event) => setDraft(event.target.value)}
        rows={3}
        className={`${inputClass} w-full`}
      />
      {problem ? (
        <p id={problemId} className="text-sm wrap-anywhere text-red-300">
          {problem}
        </p>
      ) : null}
      {refusal.problem}
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={primaryClass} disabled={draft.trim() === "" || sending}>
          Post reply
        </button>
        <button type="button" className={buttonClass} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Told after an action has taken, so the list reloads; resolves once it has (useBusy then places the focus). */
export type Changed = () => Promise<void>;

/**
 * What the owner can do to one comment, each in one click: answer a published
 * one, approve a held one or publish one kept as spam, reject it (it goes, for
 * its writer too), mark it as spam, delete it, or ban its writer, which asks
 * first (docs/decisions/010-moderation-and-spam.md). Approving, marking as
 * spam, rejecting and banning teach the spam filter
 * (docs/decisions/025-spam-that-learns.md).
 */
function CommentActions({ comment, onChanged }: { comment: ConsoleComment; onChanged: Changed }) {
  const [busy, busyWhile] = useBusy();
  const [replying, setReplying] = useState(false);
  const replyButton = useRef<HTMLButtonElement>(null);
  const [banScope, setBanScope] = useState<BanScope>("browser");
  const run = (call: Call, done: string) => busyWhile(() => act(call, done, onChanged));
  const who = comment.userName;
  const which = commentName(comment);
  const params = { id: comment.id };
  /** A button that acts at once; its name says which comment. */
  const button = (
    label: string,
    className: string,
    call: Call,
    done: string,
    name = `${label} ${which}`,
  ) => (
    <button
      type="button"
      className={className}
      disabled={busy}
      onClick={() => run(call, done)}
      aria-label={name}
    >
      {label}
    </button>
  );
  return (
    <>
      <div className="flex flex-wrap gap-2">
        {comment.status === "published" && (
          <button
            ref={replyButton}
            type="button"
            className={buttonClass}
            disabled={busy}
            aria-expanded={replying}
            onClick={() => setReplying((open) => !open)}
          >
            Reply
          </button>
        )}
        {comment.status !== "published" &&
          button(
            comment.status === "spam" ? "Publish" : "Approve",
            primaryClass,
            ["POST /admin/comments/:id/approve", { params }],
            "Comment approved",
          )}
        {comment.status !== "spam" &&
          !comment.byOwner &&
          button(
            "Mark as spam",
            dangerClass,
            ["POST /admin/comments/:id/spam", { params }],
            "Marked as spam: the filter learnt from it",
            `Mark as spam: ${which}`,
          )}
        {comment.status === "pending"
          ? button(
              "Reject",
              dangerClass,
              ["POST /admin/comments/:id/reject", { params }],
              "Comment rejected",
            )
          : button(
              "Delete",
              dangerClass,
              ["DELETE /admin/comments/:id", { params }],
              "Comment deleted",
            )}
        {/* The owner's own comment: nobody to ban. */}
        {!comment.byOwner && (
          <ConfirmButton
            label="Ban"
            ariaLabel={`Ban the writer of ${which}`}
            title={`Ban ${who}?`}
            description="Whoever you ban can no longer comment, reply, edit or react, for 30 days, and is told so. Their comments stay. You can lift the ban at any time under Bans."
            confirmLabel="Ban for 30 days"
            disabled={busy}
            // The comment stays: Ban takes the focus back (useBusy).
            onConfirm={() =>
              run(
                ["POST /admin/comments/:id/ban", { params, body: { days: 30, scope: banScope } }],
                `${who} is banned for 30 days`,
              )
            }
          >
            {/* Whom a ban names (docs/moderation.md, "Bans"): the writer's browser, or its address. */}
            <div className="mt-4">
              <Radios
                legend="Whom to ban"
                value={banScope}
                onChange={setBanScope}
                className="space-y-2"
                options={[
                  [
                    "browser",
                    "This browser",
                    "The browser that wrote it, wherever it connects from. Nobody else is affected.",
                  ],
                  [
                    "address",
                    "This address",
                    `That browser and every other at the address comment #${comment.id} came from: it may be a whole office or a mobile network.`,
                  ],
                ]}
              />
            </div>
          </ConfirmButton>
        )}
        {comment.handle ? (
          <ConfirmButton
            label="Erase account"
            // Its name holds the words it shows (axe: label-content-name-mismatch).
            ariaLabel={`Erase account ${comment.handle} (#${comment.id})`}
            title={`Erase ${comment.handle}?`}
            description="Every comment and reply of this Fediverse account is deleted, with its picture, follow, likes, boosts and webmentions, and the account is blocked so that nothing it sends comes back. Lift the block on the Followers screen."
            confirmLabel="Erase and block"
            disabled={busy}
            onConfirm={() =>
              run(
                ["POST /admin/fediverse/erase", { body: { commentId: comment.id } }],
                `${comment.handle} is erased and blocked`,
              )
            }
          />
        ) : null}
      </div>
      {replying ? (
        <ReplyForm
          comment={comment}
          onPosted={() => {
            setReplying(false);
            return onChanged();
          }}
          onCancel={() => {
            setReplying(false);
            replyButton.current?.focus();
          }}
        />
      ) : null}
    </>
  );
}

const statusLabel: Record<ConsoleComment["status"], string | null> = {
  published: null,
  pending: "Awaiting approval",
  spam: "Kept as spam",
};

/** One comment as the console lists it, with its actions; a checkbox when it can be picked. */
export function CommentCard({
  comment,
  onChanged,
  selected,
  onSelect,
}: {
  comment: ConsoleComment;
  onChanged: Changed;
  /** Whether the comment is picked for a bulk action; undefined: it cannot be. */
  selected?: boolean;
  onSelect?: (selected: boolean) => void;
}) {
  return (
    <article
      aria-label={`Comment by ${comment.userName} (#${comment.id})`}
      data-comment-id={comment.id}
      tabIndex={-1}
      className="min-w-0 rounded-xl border border-line bg-panel p-4"
    >
      <div className="flex flex-wrap items-start justify-between gap-x-3 gap-y-1">
        <div className="flex min-w-0 items-start gap-3">
          {selected !== undefined && onSelect ? (
            <input
              type="checkbox"
              className="mt-1 size-5 shrink-0 accent-accent"
              checked={selected}
              onChange={(event) => onSelect(event.target.checked)}
              aria-label={`Select ${commentName(comment)}`}
            />
          ) : null}
          <p className="min-w-0 text-sm break-words">
            <span className="font-semibold text-slate-100">{comment.userName}</span>
            {comment.handle ? <span className="text-slate-400"> {comment.handle}</span> : null}
            <span className="text-slate-400"> on </span>
            <a className="text-accent underline" href={`/science/${comment.postId}`}>
              {comment.postTitle}
            </a>
            {statusLabel[comment.status] && (
              <span className="ml-2 inline-block rounded-full border border-line px-2 py-0.5 text-xs text-amber-300">
                {statusLabel[comment.status]}
              </span>
            )}
          </p>
        </div>
        <p className="text-xs text-slate-400">
          #{comment.id} · <When iso={comment.createdAt} />
        </p>
      </div>
      {comment.why ? (
        <p className="mt-1 text-sm break-words text-amber-200">Why: {comment.why}</p>
      ) : null}
      {comment.replyTo ? (
        <p className="mt-2 text-xs break-words text-slate-400">
          {comment.replyTo.userName
            ? `In reply to ${comment.replyTo.userName}: “${comment.replyTo.excerpt}”`
            : "In reply to a deleted comment"}
        </p>
      ) : null}
      <p className="mt-2 whitespace-pre-wrap break-words text-slate-200">{comment.content}</p>
      <div className="mt-3">
        <CommentActions comment={comment} onChanged={onChanged} />
      </div>
    </article>
  );
}
