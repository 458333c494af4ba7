import { useCallback, useEffect, useState } from "react";
import type { CommentStatusFilter, ConsoleComment } from "../../../contract/console.ts";
import { plural } from "../../../contract/plural.ts";
import { ConfirmButton } from "../confirm-button.tsx";
import { act, consoleApi, useBusy, useConsoleData, useSettled } from "../console-api.ts";
import { Empty, List, Pager, usePages } from "../data.tsx";
import { useLive } from "../live.tsx";
import { Choice, Input, Loading, primaryClass, Radios } from "../ui.tsx";
import { type Changed, CommentCard } from "./comment-card.tsx";

type Filter = CommentStatusFilter | "all";

const filters: { value: Filter; label: string }[] = [
  { value: "all", label: "All" },
  { value: "pending", label: "Awaiting approval" },
  { value: "published", label: "Published" },
  { value: "spam", label: "Spam" },
];

/** The filter the address asks for (`?status=pending`, the Overview's link), else all. */
function filterOfAddress(): Filter {
  const status = new URLSearchParams(window.location.search).get("status");
  return filters.some((f) => f.value === status) ? (status as Filter) : "all";
}

function search(q: string, post: string, filter: Filter, after: string | undefined) {
  return {
    q: q.trim() || undefined,
    post: post || undefined,
    status: filter === "all" ? undefined : filter,
    limit: 100,
    after,
  };
}

/** The held queue, oldest first, with checkboxes to approve or reject many at once. */
function HeldQueue({ pending, onChanged }: { pending: ConsoleComment[]; onChanged: Changed }) {
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [busy, busyWhile] = useBusy();
  // A comment approved or rejected elsewhere leaves the selection with it.
  useEffect(() => {
    setSelected((current) => {
      const kept = [...current].filter((id) => pending.some((c) => c.id === id));
      return kept.length === current.size ? current : new Set(kept);
    });
  }, [pending]);

  const all = pending.length > 0 && pending.every((c) => selected.has(c.id));
  const pick = (id: number, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  const bulk = (action: "approve" | "reject") =>
    busyWhile(
      () =>
        act(
          () => consoleApi("POST /admin/comments/bulk", { body: { action, ids: [...selected] } }),
          ({ done }) =>
            `${plural(done, "comment")} ${action === "approve" ? "approved" : "rejected"}`,
          () => {
            setSelected(new Set());
            return onChanged();
          },
        ),
      // The first held comment left, else (the queue gone) the line that took its place.
      () => document.querySelector("[aria-labelledby=pending-heading] li"),
    );

  return (
    <section aria-labelledby="pending-heading" className="space-y-3">
      <h2 id="pending-heading" className="text-lg font-semibold text-slate-100">
        Awaiting approval ({pending.length})
      </h2>
      <div className="flex flex-wrap items-center gap-3">
        <label className="flex items-center gap-2 text-sm text-slate-300">
          <input
            type="checkbox"
            className="size-5 accent-accent"
            checked={all}
            onChange={(event) =>
              setSelected(new Set(event.target.checked ? pending.map((c) => c.id) : []))
            }
          />
          Select all held comments
        </label>
        <button
          type="button"
          className={primaryClass}
          disabled={busy || selected.size === 0}
          onClick={() => void bulk("approve")}
        >
          Approve selected ({selected.size})
        </button>
        <ConfirmButton
          label={`Reject selected (${selected.size})`}
          title={`Reject ${plural(selected.size, "comment")}?`}
          description="They are removed, from their writers' pages too. This cannot be undone."
          confirmLabel="Reject them"
          disabled={busy || selected.size === 0}
          onConfirm={() => void bulk("reject")}
        />
      </div>
      <ul className="space-y-3" aria-label="Comments awaiting approval, oldest first">
        {pending.map((comment) => (
          <li key={comment.id}>
            <CommentCard
              comment={comment}
              onChanged={onChanged}
              selected={selected.has(comment.id)}
              onSelect={(on) => pick(comment.id, on)}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}

export function CommentsView() {
  const [q, setQ] = useState("");
  const [post, setPost] = useState("");
  const [filter, setFilter] = useState<Filter>(filterOfAddress);
  // Searching as one types, a moment after the last key; a filter at once.
  const [settledQ, settledPost] = [useSettled(q), useSettled(post)];
  // A list of more than a page goes on from where the page before ended; another
  // search, post or filter starts again from the first.
  const pages = usePages(JSON.stringify([settledQ.trim(), settledPost, filter]));
  const query = search(settledQ, settledPost, filter, pages.after);
  const { loaded, reload } = useConsoleData("GET /admin/comments", { query });
  const { recount, connected: live } = useLive();
  const changed = useCallback(() => {
    recount();
    return reload();
  }, [reload, recount]);

  function choose(next: Filter) {
    setFilter(next);
    const url = new URL(window.location.href);
    if (next === "all") url.searchParams.delete("status");
    else url.searchParams.set("status", next);
    history.replaceState(null, "", url);
  }

  const data = loaded.state === "ready" ? loaded.data : null;
  const listLabel =
    filter === "published"
      ? "Published comments, newest first"
      : filter === "spam"
        ? "Spam, newest first"
        : "Comments, newest first";
  return (
    <div className="min-w-0 space-y-5">
      <search aria-label="Search comments" className="flex flex-wrap items-end gap-3">
        <Input
          label="Search text or name"
          type="search"
          value={q}
          onChange={setQ}
          className="min-w-0"
        />
        <Choice
          label="Post"
          value={post}
          onChange={setPost}
          className="w-full min-w-0 sm:w-72"
          options={[["", "All posts"], ...(data?.posts ?? []).map((p) => [p.id, p.title] as const)]}
        />
        <Radios
          legend="Show"
          pills
          value={filter}
          onChange={choose}
          options={filters.map(({ value, label }) => [
            value,
            data && value !== "all" ? `${label} (${data.counts[value]})` : label,
          ])}
        />
        <p className="pb-2 text-sm text-slate-400" role="status">
          {live ? "Live: new comments appear here" : "Connecting…"}
        </p>
      </search>
      <Loading loaded={loaded}>
        {({ pending, comments, next }) => (
          <div className="space-y-6">
            {pending.length > 0 ? (
              <HeldQueue pending={pending} onChanged={changed} />
            ) : pages.number === 1 && (filter === "all" || filter === "pending") ? (
              <Empty>No comment is awaiting approval.</Empty>
            ) : null}
            {filter !== "pending" ? (
              <List
                items={comments}
                label={listLabel}
                empty={pending.length > 0 ? "No other comments match." : "No comments match."}
              >
                {(comment) => (
                  <li key={comment.id}>
                    <CommentCard comment={comment} onChanged={changed} />
                  </li>
                )}
              </List>
            ) : null}
            <Pager label="Pages of comments" pages={pages} next={next} />
          </div>
        )}
      </Loading>
    </div>
  );
}
