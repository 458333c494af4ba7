import { plural } from "../../../contract/plural.ts";
import { useLive } from "../live.tsx";

/**
 * The Overview's call to work the held queue: how many comments wait, as a
 * link to them, kept current by the console's live stream.
 */
export function AwaitingApproval() {
  const { pending } = useLive();
  if (pending === null) return null;
  if (pending === 0) {
    return <p className="mb-5 text-sm text-slate-400">No comment is awaiting approval.</p>;
  }
  return (
    <p className="mb-5">
      <a
        href="/admin/comments?status=pending"
        className="inline-flex items-center gap-2 rounded-xl border border-amber-300/40 bg-amber-300/10 px-4 py-3 font-semibold text-amber-200 hover:bg-amber-300/20"
      >
        {plural(pending, "comment")} awaiting approval
        <span aria-hidden="true">→</span>
      </a>
    </p>
  );
}
