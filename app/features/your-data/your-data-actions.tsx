import { AlertDialog } from "radix-ui";
import { useEffect, useRef, useState } from "react";
import { plural } from "../../../contract/plural.ts";
import type { DeleteYourDataResponse } from "../../../contract/your-data.ts";
import { ApiError, api } from "../../lib/api-client.ts";
import { useHydrated } from "../../lib/use-enhanced.ts";

/** How much this browser owns; `replies`: how many of its comments answer another (docs/product.md, "Replies"). */
type Held = {
  cookie: boolean;
  comments: number;
  replies: number;
  reactions: number;
  /** Calls booked from this browser (docs/product.md, "Book a call"). */
  bookings: number;
};

/** ", and 1 booked call": said only when this browser booked any. */
const calls = (count: number) =>
  count === 0 ? "" : `, and ${plural(count, "booked call", "booked calls")}`;

type State =
  | { phase: "checking" }
  | { phase: "known"; held: Held; deleted?: DeleteYourDataResponse["deleted"] }
  | { phase: "unknown" };

function describe(held: Held): string {
  if (!held.cookie) {
    return "This browser has no visitor cookie, so it owns no comments or reactions here.";
  }
  if (held.comments + held.reactions === 0) {
    return held.bookings === 0
      ? "This browser owns no comments or reactions here."
      : `This browser owns no comments or reactions here${calls(held.bookings)}.`;
  }
  const replies =
    held.replies === 0
      ? ""
      : held.replies === held.comments
        ? ` (${held.replies === 1 ? "a reply" : "all replies"})`
        : ` (${plural(held.replies, "reply", "replies")} among them)`;
  return `This browser owns ${plural(held.comments, "comment", "comments")}${replies} and ${plural(held.reactions, "reaction", "reactions")}${calls(held.bookings)}.`;
}

function refusal(error: unknown): string {
  if (error instanceof ApiError && error.status === 429) {
    return "Too many requests from this browser in a short time. Please try again in a minute.";
  }
  if (error instanceof ApiError && error.status === 0) {
    return "The site could not be reached. Please check your connection and try again.";
  }
  // Each kind goes in its own transaction: a failure may come after some went.
  return "Something went wrong on our side, and part of it may be deleted already. Please try again in a moment to delete the rest.";
}

const buttonClass =
  "inline-flex items-center rounded-lg px-4 py-2 text-sm font-semibold ring-1 ring-red-400/60 text-red-200 hover:bg-red-500/10";

/**
 * The "Your data" page's live part (docs/product.md, "Your data"): how much
 * this browser owns, and the deletion of all of it after a confirmation. The
 * page works without it: the link below leads to a confirmation page whose
 * plain form does the same deletion.
 */
export function YourDataActions() {
  const hydrated = useHydrated();
  const [state, setState] = useState<State>({ phase: "checking" });
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const statusRef = useRef<HTMLParagraphElement>(null);

  useEffect(() => {
    api("GET /your-data").then(
      (data) =>
        setState({
          phase: "known",
          held: {
            cookie: data.visitorCookie,
            comments: data.comments.length,
            replies: data.comments.filter((comment) => comment.parentId !== null).length,
            reactions: data.reactions.length,
            bookings: data.bookings.length,
          },
        }),
      () => setState({ phase: "unknown" }),
    );
  }, []);

  async function deleteEverything() {
    setBusy(true);
    setError(null);
    try {
      const { deleted } = await api("POST /your-data/delete", { body: { confirm: true } });
      setState((previous) => ({
        phase: "known",
        held: {
          cookie: previous.phase === "known" ? previous.held.cookie : true,
          comments: 0,
          replies: 0,
          reactions: 0,
          bookings: 0,
        },
        deleted,
      }));
      setConfirming(false);
    } catch (caught) {
      setError(refusal(caught));
    } finally {
      setBusy(false);
    }
  }

  const held = state.phase === "known" ? state.held : null;
  const deleted = state.phase === "known" ? state.deleted : undefined;
  const nothingToDelete = held !== null && held.comments + held.reactions + held.bookings === 0;

  return (
    <div className="not-prose mt-4 space-y-4">
      <p ref={statusRef} role="status" tabIndex={-1} className="text-slate-300 outline-none">
        {deleted
          ? `Deleted ${plural(deleted.comments, "comment", "comments")} and ${plural(deleted.reactions, "reaction", "reactions")}${calls(deleted.bookings)}. Pages open elsewhere update within a second.`
          : state.phase === "known"
            ? describe(state.held)
            : state.phase === "unknown"
              ? "What this browser owns could not be checked just now."
              : ""}
      </p>
      {hydrated ? (
        <AlertDialog.Root open={confirming} onOpenChange={setConfirming}>
          <AlertDialog.Trigger className={buttonClass} disabled={nothingToDelete}>
            Delete all my comments, reactions and booked calls
          </AlertDialog.Trigger>
          <AlertDialog.Portal>
            <AlertDialog.Overlay className="fixed inset-0 z-50 animate-fade-in bg-black/60 backdrop-blur-sm" />
            <AlertDialog.Content
              // Once everything went, the button that opened the dialog is
              // disabled and cannot take the focus back: the sentence that
              // says what was deleted takes it, rather than the page's body.
              onCloseAutoFocus={(event) => {
                if (!deleted) return;
                event.preventDefault();
                statusRef.current?.focus();
              }}
              className="fixed top-1/2 left-1/2 z-50 w-[min(92vw,28rem)] -translate-x-1/2 -translate-y-1/2 animate-fade-in rounded-2xl border border-line bg-panel p-6 text-slate-200 shadow-2xl shadow-black/60"
            >
              <AlertDialog.Title className="text-xl font-semibold text-slate-100">
                Delete all your comments, reactions and booked calls?
              </AlertDialog.Title>
              <AlertDialog.Description className="mt-3 text-sm text-slate-300">
                {held && held.comments + held.reactions > 0
                  ? `The ${plural(held.comments, "comment", "comments")} and ${plural(held.reactions, "reaction", "reactions")} this browser made will be removed for everyone, on every page.`
                  : "Every comment and reaction this browser made will be removed for everyone, on every page."}
                {held && held.bookings > 0
                  ? ` The ${plural(held.bookings, "call", "calls")} booked from it will be deleted too; a call still ahead is cancelled first, and both calendars are told.`
                  : ""}{" "}
                This cannot be undone.
              </AlertDialog.Description>
              {error ? (
                <p role="alert" className="mt-3 text-sm text-red-300">
                  {error}
                </p>
              ) : null}
              <div className="mt-6 flex justify-end gap-3">
                <AlertDialog.Cancel className="rounded-lg px-4 py-2 text-sm font-medium ring-1 ring-line hover:bg-white/5">
                  Cancel
                </AlertDialog.Cancel>
                <button
                  type="button"
                  disabled={busy}
                  onClick={deleteEverything}
                  className="rounded-lg bg-red-600 px-4 py-2 text-sm font-semibold text-white hover:bg-red-500 disabled:opacity-70"
                >
                  {busy ? "Deleting..." : "Delete everything"}
                </button>
              </div>
            </AlertDialog.Content>
          </AlertDialog.Portal>
        </AlertDialog.Root>
      ) : (
        <a href="/your-data/delete" className={buttonClass}>
          Delete all my comments, reactions and booked calls
        </a>
      )}
    </div>
  );
}
