import { useEffect, useState } from "react";
import { toast } from "sonner";
import type { ConsoleComment } from "../../../contract/console.ts";
import { consoleApi, errorMessage, useConsoleData } from "../console-api.ts";
import { ConfirmButton, dangerClass, inputClass, Loading, primaryClass, When } from "../ui.tsx";

function search(q: string, post: string) {
  return { q: q.trim() || undefined, post: post || undefined, limit: 100 };
}

/**
 * What the owner can do to one comment, each in one click: approve a held one
 * or publish one kept as spam, reject it (it goes, for its writer too), mark it
 * as spam, delete it, or ban its writer, which asks first
 * (docs/decisions/010-moderation-and-spam.md). Approving, marking as spam,
 * rejecting and banning teach the spam filter (docs/decisions/025-spam-that-learns.md).
 */
function CommentActions({
  comment,
  onChanged,
}: {
  comment: ConsoleComment;
  onChanged: () => void;
}) {
  const [busy, setBusy] = useState(false);
  async function act(call: () => Promise<unknown>, done: string) {
    setBusy(true);
    try {
      await call();
      toast.success(done);
      onChanged();
    } catch (error) {
      toast.error(errorMessage(error));
    } finally {
      setBusy(false);
    }
  }
  const who = comment.userName;
  const params = { id: comment.id };
  return (
    <div className="flex flex-wrap gap-2">
      {comment.status !== "published" && (
        <button
          type="button"
          className={primaryClass}
          disabled={busy}
          onClick={() =>
            act(
              () => consoleApi("POST /admin/comments/:id/approve", { params }),
              "Comment approved",
            )
          }
          aria-label={
            comment.status === "spam"
              ? `Publish the comment of ${who}`
              : `Approve the comment of ${who}`
          }
        >
          {comment.status === "spam" ? "Publish" : "Approve"}
        </button>
      )}
      {comment.status !== "spam" && (
        <button
          type="button"
          className={dangerClass}
          disabled={busy}
          onClick={() =>
            act(
              () => consoleApi("POST /admin/comments/:id/spam", { params }),
              "Marked as spam: the filter learnt from it",
            )
          }
          aria-label={`Mark the comment of ${who} as spam`}
        >
          Mark as spam
        </button>
      )}
      {comment.status === "pending" ? (
        <button
          type="button"
          className={dangerClass}
          disabled={busy}
          onClick={() =>
            act(() => consoleApi("POST /admin/comments/:id/reject", { params }), "Comment rejected")
          }
          aria-label={`Reject the comment of ${who}`}
        >
          Reject
        </button>
      ) : (
        <button
          type="button"
          className={dangerClass}
          disabled={busy}
          onClick={() =>
            act(() => consoleApi("DELETE /admin/comments/:id", { params }), "Comment deleted")
          }
          aria-label={`Delete the comment of ${who}`}
        >
          Delete
        </button>
      )}
      <ConfirmButton
        label="Ban"
        title={`Ban ${who}?`}
        description="Their browser and the address they wrote from can no longer comment or react, for 30 days. Lift it with: npm run admin -- visitor unban --comment ID."
        confirmLabel="Ban for 30 days"
        onConfirm={() =>
          act(
            () => consoleApi("POST /admin/comments/:id/ban", { params, body: { days: 30 } }),
            `${who} is banned for 30 days`,
          )
        }
      />
    </div>
  );
}

const statusLabel: Record<ConsoleComment["status"], string | null> = {
  published: null,
  pending: "Awaiting approval",
  spam: "Kept as spam",
};

function CommentList({
  label,
  comments,
  onChanged,
}: {
  label: string;
  comments: ConsoleComment[];
  onChanged: () => void;
}) {
  return (
    <ul className="space-y-3" aria-label={label}>
      {comments.map((comment) => (
        <li key={comment.id} className="rounded-xl border border-line bg-panel p-4">
          <article aria-label={`Comment by ${comment.userName}`}>
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <p className="text-sm">
                <span className="font-semibold text-slate-100">{comment.userName}</span>
                <span className="text-slate-400"> on </span>
                <a className="text-accent underline" href={`/science/${comment.postId}`}>
                  {comment.postTitle}
                </a>
                {statusLabel[comment.status] && (
                  <span className="ml-2 rounded-full border border-line px-2 py-0.5 text-xs text-amber-300">
                    {statusLabel[comment.status]}
                  </span>
                )}
              </p>
              <p className="text-xs text-slate-400">
                <When iso={comment.createdAt} />
              </p>
            </div>
            {comment.why && <p className="mt-1 text-sm text-amber-200">Why: {comment.why}</p>}
            {comment.replyTo ? (
              <p className="mt-2 text-xs text-slate-400">
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
        </li>
      ))}
    </ul>
  );
}

/**
 * Reloads the list whenever a comment is added, edited or deleted anywhere on
 * the site, and each time the stream (re)opens: a comment written while it was
 * opening, after the list was read, is in that reload. The newest reload wins.
 */
function useLiveComments(onChange: () => void): boolean {
  const [live, setLive] = useState(false);
  useEffect(() => {
    const source = new EventSource("/api/admin/events");
    source.addEventListener("ready", () => {
      setLive(true);
      onChange();
    });
    source.addEventListener("comment", () => onChange());
    source.onerror = () => setLive(false);
    return () => source.close();
  }, [onChange]);
  return live;
}

export function CommentsView() {
  const [q, setQ] = useState("");
  const [post, setPost] = useState("");
  const [query, setQuery] = useState(search("", ""));
  const { loaded, reload } = useConsoleData("GET /admin/comments", { query });
  const live = useLiveComments(reload);

  // Searching as one types, a moment after the last key.
  useEffect(() => {
    const timer = setTimeout(() => setQuery(search(q, post)), 250);
    return () => clearTimeout(timer);
  }, [q, post]);

  const posts = loaded.state === "ready" ? loaded.data.posts : [];
  return (
    <div className="space-y-5">
      <search aria-label="Search comments" className="flex flex-wrap items-end gap-3">
        <label className="flex flex-col gap-1 text-sm text-slate-300">
          Search text or name
          <input
            type="search"
            value={q}
            onChange={(event) => setQ(event.target.value)}
            className={inputClass}
          />
        </label>
        <label className="flex flex-col gap-1 text-sm text-slate-300">
          Post
          <select
            value={post}
            onChange={(event) => setPost(event.target.value)}
            className={inputClass}
          >
            <option value="">All posts</option>
            {posts.map((p) => (
              <option key={p.id} value={p.id}>
                {p.title}
              </option>
            ))}
          </select>
        </label>
        <p className="pb-2 text-sm text-slate-400" role="status">
          {live ? "Live: new comments appear here" : "Connecting…"}
        </p>
      </search>
      <Loading loaded={loaded}>
        {({ pending, comments, spam }) => (
          <div className="space-y-6">
            {pending.length > 0 && (
              <section aria-labelledby="pending-heading" className="space-y-3">
                <h2 id="pending-heading" className="text-lg font-semibold text-slate-100">
                  Awaiting approval ({pending.length})
                </h2>
                <CommentList
                  label="Comments awaiting approval, oldest first"
                  comments={pending}
                  onChanged={reload}
                />
              </section>
            )}
            {spam.length > 0 && (
              <section aria-labelledby="spam-heading" className="space-y-3">
                <h2 id="spam-heading" className="text-lg font-semibold text-slate-100">
                  Kept as spam ({spam.length})
                </h2>
                <CommentList
                  label="Comments kept as spam, newest first"
                  comments={spam}
                  onChanged={reload}
                />
              </section>
            )}
            {comments.length === 0 ? (
              <p className="text-slate-400">No comments match.</p>
            ) : (
              <CommentList label="Comments, newest first" comments={comments} onChanged={reload} />
            )}
          </div>
        )}
      </Loading>
    </div>
  );
}
