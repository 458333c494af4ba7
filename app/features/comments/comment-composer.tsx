import { type FormEvent, useRef, useState } from "react";
import type { AddCommentRequest, Comment } from "../../../contract/api.ts";
import { limits } from "../../../contract/limits.ts";
import { ApiError } from "../../lib/api-client.ts";
import { inputClasses, refusalMessage } from "./comment-messages.ts";
import { useFormToken } from "./use-comments.ts";

/**
 * The form for a new comment. The draft is this component's own state, so a
 * keystroke redraws the form alone, not every comment above it: typing stays
 * light however long the discussion is.
 */
export function CommentComposer({
  postId,
  userName,
  byOwner,
  send,
  reply,
}: {
  postId: string;
  userName: string;
  /** The signed-in owner's comments wait for no form timing (docs/decisions/016-owner-voice.md). */
  byOwner: boolean;
  send: (body: AddCommentRequest) => Promise<{ comment: Comment }>;
  /**
   * A reply (docs/product.md, "Replies"): the comment it answers, the text the
   * box starts with ("@Name " when answering a reply), and what to do once sent.
   */
  reply?: { parentId: number; start: string; onSent: () => void };
}) {
  const [draft, setDraft] = useState(reply?.start ?? "");
  const [sending, setSending] = useState(false);
  const [formMessage, setFormMessage] = useState<string | null>(null);
  const [held, setHeld] = useState(false);
  const honeypot = useRef<HTMLInputElement>(null);
  const formToken = useFormToken(true);
  const refusalId = `comment-refusal-${postId}${reply ? `-${reply.parentId}` : ""}`;

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
        ...(reply ? { parentId: reply.parentId } : {}),
      });
      setDraft("");
      setHeld(comment.awaitingApproval);
      formToken.renew();
      if (reply && !comment.awaitingApproval) reply.onSent();
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
        aria-label={reply ? "Write a reply" : "Write a comment"}
        aria-describedby={formMessage ? refusalId : undefined}
        // biome-ignore lint/a11y/noAutofocus: the reader just asked to reply here.
        autoFocus={reply !== undefined}
        placeholder={reply ? "Your answer…" : "Share a thought or a question…"}
        value={draft}
        maxLength={limits.commentMax}
        onChange={(event) => setDraft(event.target.value)}
        rows={3}
        className={inputClasses}
      />
      {formMessage ? (
        <p
          id={refusalId}
          role="alert"
          className="rounded-lg border border-amber-400/40 bg-amber-400/10 px-3 py-2 text-sm text-amber-200"
        >
          {formMessage}
        </p>
      ) : null}
      <p role="status" className="text-sm text-slate-400">
        {held
          ? `Thank you! Your ${reply ? "reply" : "comment"} will appear for everyone once the site owner approves it; until then only you can see it.`
          : ""}
      </p>
      <button
        type="submit"
        disabled={draft.trim() === "" || sending}
        className="rounded-lg bg-accent px-4 py-2 text-sm font-semibold text-ink disabled:opacity-60"
      >
        {reply ? "Post reply" : "Post comment"}
      </button>
    </form>
  );
}
