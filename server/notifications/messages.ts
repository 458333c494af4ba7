import { escapeHtml } from "../../contract/html.ts";
import { plural } from "../../contract/plural.ts";
import type { CommentState, NotifiedComment } from "../comments/notifier.ts";
import type { CommentAction } from "../db/schema.ts";
import { dayMs } from "../lib/time.ts";
import { laidOut, oneLine, quoted } from "../outbox/mail-layout.ts";
import type { OutgoingMail } from "../outbox/mailer.ts";
import { actionLinkLifetimeMs } from "./action-tokens.ts";

/**
 * The owner's mails about new comments (docs/decisions/011-owner-notifications.md).
 * What a visitor typed (the name, the comment) is only ever text: escaped in
 * the HTML part, where it sits in its own box, and quoted line by line in the
 * plain-text part, so that a comment cannot pass itself off as part of the
 * mail (a fake "Delete" link, say).
 */

export type NoticeEntry = {
  comment: NotifiedComment;
  /** When it was written, in the owner's zone (`momentLabel`). */
  written: string;
  state: CommentState;
  postTitle: string;
  postUrl: string;
  /** The one-time links, by action. */
  links: Partial<Record<CommentAction, string>>;
};

const lifetimeDays = Math.round(actionLinkLifetimeMs / dayMs);

export function actionUrl(
  siteUrl: string,
  commentId: number,
  action: CommentAction,
  token: string,
): string {
  return `${siteUrl}/owner/comments/${commentId}/${action}?token=${encodeURIComponent(token)}`;
}

const actionLabels: Record<CommentAction, string> = {
  approve: "Approve",
  delete: "Delete",
};

function entryHtml(entry: NoticeEntry): string {
  const { comment } = entry;
  const links = (Object.keys(entry.links) as CommentAction[])
    .map((action) => {
      const href = entry.links[action] as string;
      return `<a href="${escapeHtml(href)}" style="display:inline-block;margin:0 8px 8px 0;background:${action === "delete" ? "#7f1d1d" : "#22c55e"};color:${action === "delete" ? "#fee2e2" : "#0b0f14"};font-weight:600;text-decoration:none;padding:8px 16px;border-radius:8px">${actionLabels[action]}…</a>`;
    })
    .join("");
  return `<p style="margin:0 0 8px"><strong style="color:#f8fafc">${escapeHtml(comment.userName)}</strong> on <a href="${escapeHtml(entry.postUrl)}" style="color:#22c55e">${escapeHtml(entry.postTitle)}</a>, ${escapeHtml(entry.written)}${entry.state === "held" ? ' <strong style="color:#fbbf24">(awaiting approval)</strong>' : ""}</p>
<div style="margin:0 0 12px;padding:12px 16px;border-left:3px solid #22c55e;background:#0b0f14;white-space:pre-wrap;word-break:break-word;color:#e2e8f0">${escapeHtml(comment.content)}</div>
${links ? `<p style="margin:0 0 20px">${links}</p>` : ""}`;
}

function entryText(entry: NoticeEntry): string {
  const { comment } = entry;
  const links = (Object.keys(entry.links) as CommentAction[])
    .map((action) => `${actionLabels[action]}: ${entry.links[action]}`)
    .join("\n");
  return `${comment.userName} on "${entry.postTitle}", ${entry.written}${entry.state === "held" ? " (awaiting approval)" : ""}
${entry.postUrl}

${quoted(comment.content)}
${links ? `\n${links}\n` : ""}`;
}

const footer = `Each link opens a page that asks you to confirm; it works once, for ${lifetimeDays} days. You get these mails because OWNER_EMAIL is set (NOTIFY_COMMENTS turns them off).`;

export function noticeMail(to: string, entry: NoticeEntry): OutgoingMail {
  const subject = oneLine(
    `${entry.state === "held" ? "Awaiting approval" : "New comment"} on "${entry.postTitle}" from ${entry.comment.userName}`,
  );
  const headers = { "Auto-Submitted": "auto-generated" };
  return laidOut({ to, subject, html: entryHtml(entry), text: entryText(entry), footer, headers });
}

export function digestMail(
  to: string,
  entries: NoticeEntry[],
  { deleted, more }: { deleted: number; more: number },
): OutgoingMail {
  const held = entries.filter((entry) => entry.state === "held").length;
  const count = entries.length + more;
  const subject = `${plural(count, "new comment")}${held ? `, ${held} awaiting approval` : ""} on Engage with Engineer`;
  const gone = [
    more > 0
      ? `${plural(more, "more is", "more are")} not shown here: npm run admin -- comments list --since ${entries[0]?.comment.createdAt.slice(0, 10) ?? ""} lists them all.`
      : "",
    deleted > 0
      ? `${deleted} more ${deleted === 1 ? "was" : "were"} deleted before this digest went out.`
      : "",
  ]
    .filter(Boolean)
    .join(" ");
  return laidOut({
    to,
    subject,
    html: `${entries.map(entryHtml).join('<hr style="border:0;border-top:1px solid #1f2a37;margin:0 0 20px">\n')}${gone ? `<p style="margin:0;color:#94a3b8">${escapeHtml(gone)}</p>` : ""}`,
    text: `${entries.map(entryText).join("\n---\n\n")}${gone ? `\n${gone}\n` : ""}`,
    footer,
    headers: { "Auto-Submitted": "auto-generated" },
  });
}
