import { type FormEvent, useEffect, useRef, useState } from "react";
import type { AddCommentRequest, Comment } from "../../../contract/api.ts";
import { limits } from "../../../contract/limits.ts";
import { ApiError } from "../../lib/api-client.ts";
import { CommentHeader, CommentText } from "./comment-view.ts";
import { useCommentActions, useComments, useFormToken, useMoreComments } from "./use-comments.ts";

type CommentSectionProps = {
  postId: string;
  userName: string;
  onNeedName: () => void;
  onError: (error: unknown) => void;
  /** h4 under a card's h3 on a list page; h3 on an item's own page. */
  heading?: "h3" | "h4";
};

/**
 * What the form says when the server refuses a comment: its own message (a
 * spam defence, a ban, the reserved name: docs/product.md, "Spam and
 * moderation"). Too many writes are the panel's notice to show.
 */
function refusalMessage(error: unknown): string | null {
  if (error instanceof ApiError) {
    if (error.code === "rate_limited") return null;
    if (error.status >= 400 && error.status < 500) return error.message;
  }
  return "Your comment could not be sent. Check your connection and try again.";
}

const inputClasses =
  "w-full rounded-lg border border-line bg-ink px-3 py-2 text-sm text-slate-100 placeholder:text-slate-500";

export function CommentSection({
  postId,
  userName,
  onNeedName,
  onError,
  heading: Heading = "h4",
}: CommentSectionProps) {
  const { data, isPending, isError } = useComments(postId);
  const actions = useCommentActions(postId, onError);
  const more = useMoreComments(postId);
  const list = useRef<HTMLUListElement>(null);
  // The comments shown before "Show more comments": focus goes to the first new one.
  const [shownBefore, setShownBefore] = useState<ReadonlySet<number> | null>(null);
  const [editing, setEditing] = useState<{ id: number; text: string } | null>(null);
  const [editMessage, setEditMessage] = useState<string | null>(null);

  function saveEdit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!editing) return;
    const content = editing.text.trim();
    if (content === "") return;
    setEditMessage(null);
    actions.edit.mutate(
      { id: editing.id, content, userName },
      {
        onSuccess: () => setEditing(null),
        onError: (error) => setEditMessage(refusalMessage(error)),
      },
    );
  }

  const comments = data?.comments ?? [];
  // The signed-in owner may change any comment (docs/decisions/016-owner-voice.md).
  const own = (comment: Comment) =>
    data?.owner !== undefined || (userName !== "" && comment.mine && comment.userName === userName);

  function showMore() {
    if (!data?.next || more.isPending) return;
    const before = new Set(comments.map((comment) => comment.id));
    more.mutate(data.next, { onSuccess: () => setShownBefore(before) });
  }

  useEffect(() => {
    if (!shownBefore) return;
    setShownBefore(null);
    // The first comment the page brought; if it brought none (they were
    // deleted meanwhile), the last one, where the button was.
    const first = comments.find((comment) => !shownBefore.has(comment.id)) ?? comments.at(-1);
    if (first) list.current?.querySelector<HTMLElement>(`[data-comment-id="${first.id}"]`)?.focus();
  }, [shownBefore, comments]);

  return (
    <section aria-label="Comments" className="space-y-4">
      <Heading className="font-semibold text-slate-100">
        Comments {data ? <span className="text-slate-400">({data.total})</span> : null}
      </Heading>
      {isPending ? <p className="text-sm text-slate-400">Loading comments…</p> : null}
      {isError ? <p className="text-sm text-slate-400">Comments could not be loaded.</p> : null}
      {data && comments.length === 0 ? (
        <p className="text-sm text-slate-400">No comments yet. Start the conversation.</p>
      ) : null}
      <ul ref={list} className="space-y-3">
        {comments.map((comment) => (
          <li key={comment.id} className="comment" data-comment-id={comment.id} tabIndex={-1}>
            <CommentHeader comment={comment} awaitingApproval={comment.awaitingApproval} />
            {editing?.id === comment.id ? (
              <form onSubmit={saveEdit} className="mt-3 space-y-2">
                <textarea
                  aria-label="Edit comment"
                  value={editing.text}
                  maxLength={limits.commentMax}
                  onChange={(event) => setEditing({ id: comment.id, text: event.target.value })}
                  rows={3}
                  className={inputClasses}
                />
                {editMessage ? (
                  <p role="alert" className="text-sm text-amber-200">
                    {editMessage}
                  </p>
                ) : null}
                <div className="flex gap-2">
                  <button
                    type="submit"
                    disabled={editing.text.trim() === "" || actions.edit.isPending}
                    className="rounded-lg bg-accent px-3 py-1.5 text-sm font-semibold text-ink disabled:opacity-60"
                  >
                    Update
                  </button>
                  <button
                    type="button"
                    onClick={() => {
                      setEditing(null);
                      setEditMessage(null);
                    }}
                    className="rounded-lg px-3 py-1.5 text-sm ring-1 ring-line hover:bg-white/5"
                  >
                    Cancel
                  </button>
                </div>
              </form>
            ) : (
              <CommentText html={comment.html} />
            )}
            {own(comment) && editing?.id !== comment.id ? (
              <div className="mt-3 flex gap-2">
                <button
                  type="button"
                  onClick={() => setEditing({ id: comment.id, text: comment.content })}
                  className="rounded-lg px-3 py-1 text-xs ring-1 ring-line hover:bg-white/5"
                >
                  Edit
                </button>
                <button
                  type="button"
                  onClick={() => actions.remove.mutate(comment.id)}
                  className="rounded-lg px-3 py-1 text-xs text-red-300 ring-1 ring-red-400/40 hover:bg-red-400/10"
                >
                  Delete
                </button>
              </div>
            ) : null}
          </li>
        ))}
      </ul>
      {data?.next ? (
        <div className="space-y-2">
          <button
            type="button"
            onClick={showMore}
            aria-disabled={more.isPending}
            className="rounded-lg px-4 py-2 text-sm font-semibold text-accent ring-1 ring-line hover:bg-white/5 aria-disabled:opacity-60"
          >
            Show more comments
          </button>
          {more.isError ? (
            <p role="alert" className="text-sm text-amber-200">
              More comments could not be loaded. Check your connection and try again.
            </p>
          ) : null}
        </div>
      ) : null}
      {userName ? (
        <CommentComposer
          postId={postId}
          userName={userName}
          byOwner={data?.owner !== undefined}
          send={actions.add.mutateAsync}
        />
      ) : (
        <button
          type="button"
          onClick={onNeedName}
          className="rounded-lg px-4 py-2 text-sm font-semibold text-accent ring-1 ring-accent/50 hover:bg-accent/10"
        >
          Add a comment
        </button>
      )}
    </section>
  );
}

/**
 * The form for a new comment. The draft is this component's own state, so a
 * keystroke redraws the form alone, not every comment above it: typing stays
 * light however long the discussion is.
 */
function CommentComposer({
  postId,
  userName,
  byOwner,
  send,
}: {
  postId: string;
  userName: string;
  /** The signed-in owner's comments wait for no form timing (docs/decisions/016-owner-voice.md). */
  byOwner: boolean;
  send: (body: AddCommentRequest) => Promise<{ comment: Comment }>;
}) {
  const [draft, setDraft] = useState("");
  const [sending, setSending] = useState(false);
  const [formMessage, setFormMessage] = useState<string | null>(null);
  const [held, setHeld] = useState(false);
  const honeypot = useRef<HTMLInputElement>(null);
  const formToken = useFormToken(true);

  async function post(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const content = draft.trim();
    if (content === "" || sending) return;
    setSending(true);
    setFormMessage(null);
    setHeld(false);
    try {
      const token = byOwner ? undefined : await formToken.ready();
      const { comment } = await send({
        content,
        userName,
        formToken: token,
        website: honeypot.current?.value ?? "",
      });
      setDraft("");
      setHeld(comment.awaitingApproval);
      formToken.renew();
    } catch (error) {
      setFormMessage(refusalMessage(error));
      if (error instanceof ApiError && error.code === "form_token_invalid") formToken.renew();
    } finally {
      setSending(false);
    }
  }

  return (
    <form onSubmit={post} className="relative space-y-2">
      {/* A field people never see; only programs fill it (docs/product.md, "Spam and moderation"). */}
      <div aria-hidden="true" className="absolute -left-[9999px] h-px w-px overflow-hidden">
        <label>
          Website
          <input ref={honeypot} type="text" name="website" tabIndex={-1} autoComplete="off" />
        </label>
      </div>
      <textarea
        aria-label="Write a comment"
        aria-describedby={formMessage ? `comment-refusal-${postId}` : undefined}
        placeholder="Share a thought or a question…"
        value={draft}
        maxLength={limits.commentMax}
        onChange={(event) => setDraft(event.target.value)}
        rows={3}
        className={inputClasses}
      />
      {formMessage ? (
        <p
          id={`comment-refusal-${postId}`}
          role="alert"
          className="rounded-lg border border-amber-400/40 bg-amber-400/10 px-3 py-2 text-sm text-amber-200"
        >
          {formMessage}
        </p>
      ) : null}
      <p role="status" className="text-sm text-slate-400">
        {held
          ? "Thank you! Your comment will appear for everyone once the site owner approves it; until then only you can see it."
          : ""}
      </p>
      <button
        type="submit"
        disabled={draft.trim() === "" || sending}
        className="rounded-lg bg-accent px-4 py-2 text-sm font-semibold text-ink disabled:opacity-60"
      >
        Post comment
      </button>
    </form>
  );
}
