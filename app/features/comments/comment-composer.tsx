import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useRef, useState } from "react";
import type { Endpoints } from "../../../contract/endpoints.ts";
import { limits } from "../../../contract/limits.ts";
import { ApiError } from "../../lib/api-client.ts";
import { type LoadedComments, withNew } from "../../lib/comment-list.ts";
import { useFormGuard } from "../../lib/form-guard.tsx";
import { itemKeys } from "../../lib/query-keys.ts";
import { refusalMessage } from "./comment-messages.ts";
import {
  commentPlaceholder,
  composerOptions,
  inputClasses,
  notifyCheckbox,
  notifyLabel,
  notifyText,
} from "./comment-view.ts";

const refusalClasses =
  "rounded-lg border border-amber-400/40 bg-amber-400/10 px-3 py-2 text-sm text-amber-200";

/** The call the composer makes, as the contract describes it. */
type Post = Endpoints["POST /items/science/:id/comments"];

/** A refusal's words about the address for reply mails ("body.notifyEmail: Enter a valid…"). */
const emailRefusal = /^body\.notifyEmail: (.*)$/s;

/** The address for reply mails, remembered in this browser for the next comment (docs/product.md, "Reply mails"). */
const replyEmailKey = "ewe:reply-email";

function rememberedEmail(): string {
  try {
    return localStorage.getItem(replyEmailKey) ?? "";
  } catch {
    return "";
  }
}

function rememberEmail(email: string) {
  try {
    localStorage.setItem(replyEmailKey, email);
  } catch {
    // Storage refused (private mode, full): the address is simply typed again.
  }
}

/**
 * The form for a new comment, which posts it. The draft is this component's
 * own state, so a keystroke redraws the form alone, not every comment above
 * it: typing stays light however long the discussion is.
 */
export function CommentComposer({
  postId,
  userName,
  byOwner,
  onError,
  reply,
}: {
  postId: string;
  userName: string;
  /** The signed-in owner's comments wait for no form timing (docs/decisions/016-owner-voice.md). */
  byOwner: boolean;
  /** Told of a failed post, beside the form's own message (a ban, a rate limit). */
  onError: (error: unknown) => void;
  /**
   * A reply (docs/product.md, "Replies"): the comment it answers, the text the
   * box starts with ("@Name " when answering a reply), and what to do once sent.
   */
  reply?: { parentId: number; start: string; onSent: (id: number) => void };
}) {
  const [draft, setDraft] = useState(reply?.start ?? "");
  const [sending, setSending] = useState(false);
  const [formMessage, setFormMessage] = useState<string | null>(null);
  const [held, setHeld] = useState(false);
  const [notify, setNotify] = useState(false);
  const [email, setEmail] = useState("");
  const [emailProblem, setEmailProblem] = useState<string | null>(null);
  const emailField = useRef<HTMLInputElement>(null);
  const [confirming, setConfirming] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const queryClient = useQueryClient();
  const guard = useFormGuard("GET /comments/form-token", { atOnce: true });
  const formKey = `${postId}${reply ? `-${reply.parentId}` : ""}`;
  const refusalId = `comment-refusal-${formKey}`;
  const emailRefusalId = `comment-email-refusal-${formKey}`;
  const notifyEmail = notify && !byOwner ? email.trim() : "";

  async function post(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const content = draft.trim();
    if (content === "" || sending || (notify && !byOwner && notifyEmail === "")) return;
    setSending(true);
    setFormMessage(null);
    setEmailProblem(null);
    setHeld(false);
    try {
      const token = byOwner ? undefined : await guard.ready();
      // Posted here in the contract's shape, not through api(): a reply's path
      // stays short (docs/architecture.md). A refusal is the site's ApiError still.
      const response = await fetch(`/api/items/science/${encodeURIComponent(postId)}/comments`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          content,
          userName,
          formToken: token,
          website: guard.website(),
          ...(reply ? { parentId: reply.parentId } : {}),
          ...(notifyEmail ? { notifyEmail } : {}),
        } satisfies Post["body"]),
      });
      const answer = await response.json().catch(() => null);
      if (!response.ok) throw ApiError.of(response, answer);
      const { comment } = answer as Post["response"];
      // The live event may have brought it first, without knowing it is ours.
      // New, it is the latest, below the fold: the writer sees it at once.
      queryClient.setQueryData<LoadedComments>(itemKeys.comments(postId), (data) =>
        data ? withNew(data, comment) : data,
      );
      if (notifyEmail) rememberEmail(notifyEmail);
      setConfirming(notifyEmail !== "");
      setDraft("");
      setHeld(comment.awaitingApproval);
      guard.renew();
      if (reply && !comment.awaitingApproval) reply.onSent(comment.id);
    } catch (error) {
      console.error("Posting a comment failed:", error);
      onError(error);
      // A refused address is said beside its own field, which takes the focus (below);
      // the rest, without the API's field names, beside the box.
      // One answer may name the address more than once ("not valid; too long
      // before the @"): its first words go beside it, as formRefusal does.
      const parts = (refusalMessage(error) ?? "").split("; ");
      const address = parts.map((part) => emailRefusal.exec(part)?.[1]).find(Boolean);
      setEmailProblem(address ?? null);
      const rest = parts.filter((part) => !emailRefusal.test(part));
      setFormMessage(rest.map((part) => part.replace(/^body\.\w+: /, "")).join("; ") || null);
      // The server spends a token on any answer, a refusal too.
      guard.renew();
    } finally {
      setSending(false);
      // The button, disabled while sending, dropped the focus: the box takes it for the
      // next comment, or to read the refusal it is described by.
      if (document.activeElement === document.body) box.current?.focus();
    }
  }

  useEffect(() => {
    if (emailProblem) emailField.current?.focus();
  }, [emailProblem]);

  // The served page draws this form's place the same way (comment-view.ts, `waitingComposer`).
  return (
    <form onSubmit={post} className="relative space-y-2">
      {guard.honeypot}
      <textarea
        ref={box}
        aria-label={reply ? "Write a reply" : "Write a comment"}
        aria-describedby={formMessage ? refusalId : undefined}
        // biome-ignore lint/a11y/noAutofocus: the reader just asked to reply here.
        autoFocus={reply !== undefined}
        placeholder={reply ? "Your answer…" : commentPlaceholder}
        value={draft}
        maxLength={limits.commentMax}
        onChange={(event) => setDraft(event.target.value)}
        rows={3}
        className={inputClasses}
      />
      {formMessage ? (
        <p id={refusalId} role="alert" className={refusalClasses}>
          {formMessage}
        </p>
      ) : null}
      {byOwner ? null : (
        <div className={composerOptions}>
          <label className={notifyLabel}>
            <input
              type="checkbox"
              checked={notify}
              onChange={(event) => {
                setNotify(event.target.checked);
                if (event.target.checked && email === "") setEmail(rememberedEmail());
              }}
              className={notifyCheckbox}
            />
            {notifyText}
          </label>
          {notify ? (
            // Wide enough to read the address, on a line of its own when the row has no room.
            <label className="inline-flex min-w-48 flex-1 items-center gap-2">
              <span className="sr-only">Email for replies</span>
              <input
                ref={emailField}
                type="email"
                required
                autoComplete="email"
                placeholder="you@example.com"
                aria-invalid={emailProblem ? true : undefined}
                aria-describedby={emailProblem ? emailRefusalId : undefined}
                value={email}
                maxLength={limits.emailMax}
                onChange={(event) => {
                  setEmail(event.target.value);
                  setEmailProblem(null);
                }}
                className={`${inputClasses} min-w-0 flex-1 py-1`}
              />
            </label>
          ) : null}
        </div>
      )}
      {emailProblem ? (
        <p id={emailRefusalId} role="alert" className={refusalClasses}>
          {emailProblem}
        </p>
      ) : null}
      <p role="status" className="text-sm text-slate-400">
        {[
          held
            ? `Thank you! Your ${reply ? "reply" : "comment"} will appear for everyone once the site owner approves it; until then only you can see it.`
            : "",
          confirming
            ? "If this address is new here, we sent it a mail: press Confirm in it to receive replies."
            : "",
        ]
          .filter(Boolean)
          .join(" ")}
      </p>
      <button
        type="submit"
        disabled={draft.trim() === "" || sending || (notify && !byOwner && notifyEmail === "")}
        className="btn-primary"
      >
        {reply ? "Post reply" : "Post comment"}
      </button>
    </form>
  );
}
