import { type FormEvent, useState } from "react";
import type { Comment } from "../../../contract/api.ts";
import { limits } from "../../../contract/limits.ts";
import { CommentHeader, CommentText } from "./comment-view.ts";
import { useCommentActions, useComments } from "./use-comments.ts";

type CommentSectionProps = {
  postId: string;
  userName: string;
  onNeedName: () => void;
  onError: (error: unknown) => void;
  /** h4 under a card's h3 on a list page; h3 on an item's own page. */
  heading?: "h3" | "h4";
};

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
  const [draft, setDraft] = useState("");
  const [editing, setEditing] = useState<{ id: number; text: string } | null>(null);

  function post(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const content = draft.trim();
    if (content === "" || actions.add.isPending) return;
    actions.add.mutate({ content, userName }, { onSuccess: () => setDraft("") });
  }

  function saveEdit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!editing) return;
    const content = editing.text.trim();
    if (content === "") return;
    actions.edit.mutate(
      { id: editing.id, content, userName },
      { onSuccess: () => setEditing(null) },
    );
  }

  const comments = data?.comments ?? [];
  const own = (comment: Comment) => comment.mine && comment.userName === userName;

  return (
    <section aria-label="Comments" className="space-y-4">
      <Heading className="font-semibold text-slate-100">
        Comments {data ? <span className="text-slate-400">({comments.length})</span> : null}
      </Heading>
      {isPending ? <p className="text-sm text-slate-400">Loading comments…</p> : null}
      {isError ? <p className="text-sm text-slate-400">Comments could not be loaded.</p> : null}
      {data && comments.length === 0 ? (
        <p className="text-sm text-slate-400">No comments yet. Start the conversation.</p>
      ) : null}
      <ul className="space-y-3">
        {comments.map((comment) => (
          <li key={comment.id} className="comment">
            <CommentHeader comment={comment} />
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
                    onClick={() => setEditing(null)}
                    className="rounded-lg px-3 py-1.5 text-sm ring-1 ring-line hover:bg-white/5"
                  >
                    Cancel
                  </button>
                </div>
              </form>
            ) : (
              <CommentText content={comment.content} />
            )}
            {userName && own(comment) && editing?.id !== comment.id ? (
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
      {userName ? (
        <form onSubmit={post} className="space-y-2">
          <textarea
            aria-label="Write a comment"
            placeholder="Share a thought or a question…"
            value={draft}
            maxLength={limits.commentMax}
            onChange={(event) => setDraft(event.target.value)}
            rows={3}
            className={inputClasses}
          />
          <button
            type="submit"
            disabled={draft.trim() === "" || actions.add.isPending}
            className="rounded-lg bg-accent px-4 py-2 text-sm font-semibold text-ink disabled:opacity-60"
          >
            Post comment
          </button>
        </form>
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
