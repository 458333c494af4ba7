import { useEffect, useState } from "react";
import { toast } from "sonner";
import type { ConsoleComment, ConsoleCommentsResponse } from "../../../contract/console.ts";
import { consoleApi, errorMessage, useConsoleData } from "../console-api.ts";
import { dangerClass, inputClass, Loading, When } from "../ui.tsx";

function searchPath(q: string, post: string): string {
  const params = new URLSearchParams();
  if (q.trim()) params.set("q", q.trim());
  if (post) params.set("post", post);
  params.set("limit", "100");
  return `/comments?${params}`;
}

/**
 * What the owner can do to one comment. Moderation's approve, reject and ban
 * join Delete here, each calling its console route.
 */
function CommentActions({
  comment,
  onChanged,
}: {
  comment: ConsoleComment;
  onChanged: () => void;
}) {
  const [busy, setBusy] = useState(false);
  async function remove() {
    setBusy(true);
    try {
      await consoleApi("DELETE", `/comments/${comment.id}`);
      toast.success("Comment deleted");
      onChanged();
    } catch (error) {
      toast.error(errorMessage(error));
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="flex gap-2">
      <button
        type="button"
        className={dangerClass}
        disabled={busy}
        onClick={remove}
        aria-label={`Delete the comment of ${comment.userName}`}
      >
        Delete
      </button>
    </div>
  );
}

/** Reloads the list whenever a comment is added, edited or deleted anywhere on the site. */
function useLiveComments(onChange: () => void): boolean {
  const [live, setLive] = useState(false);
  useEffect(() => {
    const source = new EventSource("/api/admin/events");
    source.addEventListener("ready", () => setLive(true));
    source.addEventListener("comment", () => onChange());
    source.onerror = () => setLive(false);
    return () => source.close();
  }, [onChange]);
  return live;
}

export function CommentsView() {
  const [q, setQ] = useState("");
  const [post, setPost] = useState("");
  const [path, setPath] = useState(searchPath("", ""));
  const { loaded, reload } = useConsoleData<ConsoleCommentsResponse>(path);
  const live = useLiveComments(reload);

  // Searching as one types, a moment after the last key.
  useEffect(() => {
    const timer = setTimeout(() => setPath(searchPath(q, post)), 250);
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
        {({ comments }) =>
          comments.length === 0 ? (
            <p className="text-slate-400">No comments match.</p>
          ) : (
            <ul className="space-y-3" aria-label="Comments, newest first">
              {comments.map((comment) => (
                <li key={comment.id} className="rounded-xl border border-line bg-panel p-4">
                  <article aria-label={`Comment by ${comment.userName}`}>
                    <div className="flex flex-wrap items-baseline justify-between gap-2">
                      <p className="text-sm">
                        <span className="font-semibold text-slate-100">{comment.userName}</span>
                        <span className="text-slate-400"> on </span>
                        <a className="text-accent underline" href="/science">
                          {comment.postTitle}
                        </a>
                      </p>
                      <p className="text-xs text-slate-400">
                        <When iso={comment.createdAt} />
                      </p>
                    </div>
                    <p className="mt-2 whitespace-pre-wrap break-words text-slate-200">
                      {comment.content}
                    </p>
                    <div className="mt-3">
                      <CommentActions comment={comment} onChanged={reload} />
                    </div>
                  </article>
                </li>
              ))}
            </ul>
          )
        }
      </Loading>
    </div>
  );
}
