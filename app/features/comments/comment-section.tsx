import { type FormEvent, type ReactNode, useEffect, useRef, useState } from "react";
import type { Comment } from "../../../contract/api.ts";
import { limits } from "../../../contract/limits.ts";
import { aroundFold, commentAnchor, countOf } from "../../../contract/threads.ts";
import { CommentComposer } from "./comment-composer.tsx";
import { FoldingCommentText } from "./comment-fold.tsx";
import { refusalMessage } from "./comment-messages.ts";
import {
  addCommentButton,
  CommentHeader,
  commentsLabel,
  DeletedComment,
  foldedLabel,
  inputClasses,
  replyButton,
  showMoreButton,
  smallButton,
  whose,
} from "./comment-view.ts";
import { useCommentActions, useComments, useMoreComments } from "./use-comments.ts";

const editButton = "rounded-lg px-3 py-1.5 text-sm max-sm:min-h-11 max-sm:min-w-11";
const editButtonId = (id: number) => `${commentAnchor(id)}-edit`;

type CommentSectionProps = {
  postId: string;
  /** The post's title, which names the section. */
  title: string;
  userName: string;
  onNeedName: () => void;
  onError: (error: unknown) => void;
  /** h4 under a card's h3 on a list page; h3 on an item's own page. */
  heading?: "h3" | "h4";
  /**
   * The server's copy of the comments (an item's page, a card), shown in
   * their place until the live ones arrive, then gone: its ids are theirs.
   */
  served?: ReactNode;
};

export function CommentSection({
  postId,
  title,
  userName,
  onNeedName,
  onError,
  heading: Heading = "h4",
  served,
}: CommentSectionProps) {
  const { data, isPending, isError } = useComments(postId);
  const actions = useCommentActions(postId, onError);
  const more = useMoreComments(postId);
  const section = useRef<HTMLElement>(null);
  // The comments shown before "Show more comments": focus goes to the first new one.
  const [shownBefore, setShownBefore] = useState<ReadonlySet<number> | null>(null);
  const [editing, setEditing] = useState<{ id: number; text: string } | null>(null);
  const [editMessage, setEditMessage] = useState<string | null>(null);
  // The thread a reply is being written in, and the comment it answers.
  const [replying, setReplying] = useState<{ thread: number; to: Comment } | null>(null);
  // A reply just published: its form is gone, and focus goes to the reply.
  const [sentReply, setSentReply] = useState<number | null>(null);
  // Where the focus goes once the control that had it is gone (an edit opened or closed, a
  // comment deleted): the first of these selectors that finds something in the section.
  const [focusNext, setFocusNext] = useState<string[] | null>(null);

  function startReply(thread: number, to: Comment) {
    if (!userName && data?.owner === undefined) {
      onNeedName();
      return;
    }
    setReplying({ thread, to });
  }

  function saveEdit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!editing) return;
    const content = editing.text.trim();
    if (content === "") return;
    setEditMessage(null);
    actions.edit.mutate(
      { id: editing.id, content, userName },
      {
        onSuccess: () => stopEditing(editing.id),
        onError: (error) => setEditMessage(refusalMessage(error)),
      },
    );
  }

  /** Opens a comment's text in a box, which takes the focus from its Edit button. */
  function startEditing(comment: Comment) {
    setEditing({ id: comment.id, text: comment.content });
    setFocusNext(['textarea[aria-label="Edit comment"]']);
  }

  /** Closes the edit; the focus goes back to the comment's Edit button. */
  function stopEditing(id: number) {
    setEditing(null);
    setEditMessage(null);
    setFocusNext([`#${editButtonId(id)}`]);
  }

  /**
   * Deletes a comment; the focus goes to what took its place ("Comment deleted", or the
   * comment after it), else the one before it, else the comment box.
   */
  function remove(id: number) {
    const items = [...(section.current?.querySelectorAll<HTMLElement>("[data-comment-id]") ?? [])];
    const ids = items.map((item) => `[data-comment-id="${item.dataset.commentId}"]`);
    const at = items.findIndex((item) => item.dataset.commentId === String(id));
    actions.remove.mutate(id, {
      onSettled: () =>
        setFocusNext([
          ...ids.slice(at),
          ...ids.slice(0, at).reverse(),
          'textarea[aria-label="Write a comment"]',
        ]),
    });
  }

  const comments = data?.comments ?? [];
  // The signed-in owner may change any comment (docs/decisions/016-owner-voice.md).
  const own = (comment: Comment) =>
    data?.owner !== undefined || (userName !== "" && comment.mine && comment.userName === userName);

  function showMore() {
    if (!data?.fold || more.isPending) return;
    const before = new Set(comments.map((comment) => comment.id));
    more.mutate(data.fold, { onSuccess: () => setShownBefore(before) });
  }

  useEffect(() => {
    if (!shownBefore) return;
    setShownBefore(null);
    // The first comment the page brought; if it brought none (they were
    // deleted meanwhile), the last one, where the button was.
    const first = comments.find((comment) => !shownBefore.has(comment.id)) ?? comments.at(-1);
    if (first)
      section.current?.querySelector<HTMLElement>(`[data-comment-id="${first.id}"]`)?.focus();
  }, [shownBefore, comments]);

  useEffect(() => {
    if (sentReply === null) return;
    setSentReply(null);
    section.current?.querySelector<HTMLElement>(`[data-comment-id="${sentReply}"]`)?.focus();
  }, [sentReply]);

  useEffect(() => {
    if (!focusNext) return;
    setFocusNext(null);
    const found = focusNext.map((selector) =>
      section.current?.querySelector<HTMLElement>(selector),
    );
    found.find(Boolean)?.focus();
  }, [focusNext]);

  /** One comment's header, text and actions; `thread`: the comment its thread starts with. */
  function renderComment(comment: Comment, thread: number) {
    if (comment.deleted) return <DeletedComment held={comment.held} />;
    return (
      <>
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
                className={`${editButton} bg-accent font-semibold text-ink disabled:opacity-60`}
              >
                Update
              </button>
              <button
                type="button"
                onClick={() => stopEditing(comment.id)}
                className={`${editButton} ring-1 ring-line hover:bg-white/5`}
              >
                Cancel
              </button>
            </div>
          </form>
        ) : (
          <FoldingCommentText id={comment.id} html={comment.html} />
        )}
        {editing?.id !== comment.id ? (
          <div className="mt-3 flex flex-wrap gap-2">
            {comment.awaitingApproval ? null : (
              <button
                type="button"
                onClick={() => startReply(thread, comment)}
                aria-expanded={replying?.to.id === comment.id}
                className={replyButton}
              >
                Reply
              </button>
            )}
            {own(comment) ? (
              <>
                <button
                  id={editButtonId(comment.id)}
                  type="button"
                  onClick={() => startEditing(comment)}
                  className={`${smallButton} ring-1 ring-line hover:bg-white/5`}
                >
                  Edit
                </button>
                <button
                  type="button"
                  onClick={() => remove(comment.id)}
                  className={`${smallButton} text-red-300 ring-1 ring-red-400/40 hover:bg-red-400/10`}
                >
                  Delete
                </button>
              </>
            ) : null}
          </div>
        ) : null}
      </>
    );
  }

  /** A comment's place in the list, where a link to it (`#comment-N`) and focus land. */
  const commentItem = (comment: Comment, content: ReactNode) => (
    <li
      key={comment.id}
      id={commentAnchor(comment.id)}
      className="comment"
      data-comment-id={comment.id}
      tabIndex={-1}
    >
      {content}
    </li>
  );

  /** A thread: its first comment, its replies under it, and the reply form when open. */
  function renderThread({ start, replies }: { start: Comment; replies: Comment[] }) {
    const open = replying?.thread === start.id;
    return commentItem(
      start,
      <>
        {renderComment(start, start.id)}
        {replies.length > 0 || open ? (
          <ul className="comment-replies" aria-label={`Replies to ${whose(start)}`}>
            {replies.map((reply) => commentItem(reply, renderComment(reply, start.id)))}
          </ul>
        ) : null}
        {open ? (
          <div className="mt-3">
            <CommentComposer
              key={replying.to.id}
              postId={postId}
              userName={userName}
              byOwner={data?.owner !== undefined}
              onError={onError}
              reply={{
                parentId: replying.to.id,
                start: replying.to.id === start.id ? "" : `@${replying.to.userName} `,
                onSent: (id) => {
                  setReplying(null);
                  setSentReply(id);
                },
              }}
            />
          </div>
        ) : null}
      </>,
    );
  }

  if (isPending && served) return served;
  const { above, below } = aroundFold(comments, data?.fold?.after ?? null);
  const foldedCount = data ? data.total - countOf(comments) : 0;

  return (
    <section ref={section} aria-label={commentsLabel(title)} className="space-y-4">
      <Heading className="font-semibold text-slate-100">
        Comments {data ? <span className="text-slate-400">({data.total})</span> : null}
      </Heading>
      {isPending ? <p className="text-sm text-slate-400">Loading comments…</p> : null}
      {isError ? <p className="text-sm text-slate-400">Comments could not be loaded.</p> : null}
      {data && comments.length === 0 ? (
        <p className="text-sm text-slate-400">No comments yet. Start the conversation.</p>
      ) : null}
      <ul className="space-y-3">{above.map(renderThread)}</ul>
      {data?.fold ? (
        <div className="comments-fold space-y-2">
          {foldedCount > 0 ? (
            <p className="text-sm text-slate-400">{foldedLabel(foldedCount)}</p>
          ) : null}
          <button
            type="button"
            onClick={showMore}
            aria-disabled={more.isPending}
            className={`${showMoreButton} aria-disabled:opacity-60`}
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
      {below.length > 0 ? <ul className="space-y-3">{below.map(renderThread)}</ul> : null}
      {userName ? (
        <CommentComposer
          postId={postId}
          userName={userName}
          byOwner={data?.owner !== undefined}
          onError={onError}
        />
      ) : (
        <button type="button" onClick={onNeedName} className={addCommentButton}>
          Add a comment
        </button>
      )}
    </section>
  );
}
