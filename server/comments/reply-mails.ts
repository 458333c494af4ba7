import type { HtmlToTextOptions } from "html-to-text";
import type { Kysely } from "kysely";
import { z } from "zod";
import { escapeHtml } from "../../contract/html.ts";
import type { Database } from "../db/schema.ts";
import { jsonOf } from "../lib/json.ts";
import type { StandingLinks } from "../lib/tokens.ts";
import {
  colours,
  isolated,
  layout,
  linkMail,
  markedLink,
  oneLine,
  tokenLink,
} from "../outbox/mail-layout.ts";
import type { OutgoingMail } from "../outbox/mailer.ts";
import type { ComposeMail } from "../outbox/outbox-worker.ts";
import { renderComment } from "./markdown.ts";
import type { ReplyMailPayload } from "./reply-watches.ts";

/**
 * The readers' reply mails (docs/product.md, "Reply mails"): the
 * confirmation, one reply, or a digest of several. A reply travels as the
 * text its writer typed, never as HTML; links are built from SITE_URL and
 * tokens we issued.
 */

/** The reply on its post's own page, marked as followed from a reply mail. */
const replyUrl = (siteUrl: string, postId: string, replyId: number) =>
  markedLink(siteUrl, `/science/${encodeURIComponent(postId)}#comment-${replyId}`, "reply");

export function replyConfirmationMail(to: string, token: string, siteUrl: string): OutgoingMail {
  return linkMail({
    to,
    subject: "Confirm reply notifications from Engage with Engineer",
    lead: "Someone, hopefully you, left this address under a comment on Engage with Engineer, to be told when someone replies.",
    ask: "Open the link and press Confirm to receive those replies by mail",
    label: "Confirm reply notifications",
    link: tokenLink(siteUrl, "/replies/confirm", token),
    footer:
      "The link works for 48 hours. If you did not ask for this, ignore this mail: nothing more will be sent to you.",
  });
}

/** A reply as a mail shows it: its HTML as the site rendered it, and its text. */
type MailedReply = { id: number; postId: string; userName: string; html: string; text: string };

export function replyMail(
  to: string,
  replies: MailedReply[],
  {
    token,
    thread,
    siteUrl,
    titles,
  }: {
    /** A watch's token (its thread), or without `thread` the address's (every thread). */
    token: string;
    /** The comment that starts the one thread the replies are in; none for a digest of several. */
    thread?: number;
    siteUrl: string;
    titles: ReadonlyMap<string, string>;
  },
): OutgoingMail {
  const first = replies[0] as MailedReply;
  const title = (postId: string) => titles.get(postId) ?? postId;
  // One subject for every mail of a thread, for the mail programs that thread by subject too.
  const subject = oneLine(
    thread === undefined
      ? `${replies.length} new replies on Engage with Engineer`
      : `Replies in your conversation on "${title(first.postId)}"`,
  );
  const unsubscribe = tokenLink(siteUrl, "/replies/unsubscribe", token);
  const bodyHtml = replies
    .map((reply) => {
      const link = replyUrl(siteUrl, reply.postId, reply.id);
      return `<p style="margin:0 0 8px"><strong>${escapeHtml(reply.userName)}</strong> replied on <a href="${escapeHtml(link)}" style="color:${colours.accent}">${escapeHtml(title(reply.postId))}</a>:</p>
<blockquote style="margin:0 0 20px;padding:8px 12px;border-left:3px solid ${colours.accent}">${reply.html}</blockquote>`;
    })
    .join("\n");
  const bodyText = replies
    .map(
      (reply) =>
        `${isolated(reply.userName)} replied on "${title(reply.postId)}":\n\n${reply.text}\n\nRead it on the site: ${replyUrl(siteUrl, reply.postId, reply.id)}`,
    )
    .join("\n\n----\n\n");
  const why =
    thread !== undefined
      ? "You asked to be told of replies in a conversation you wrote in. Stop these mails (this thread or all replies):"
      : "You asked to be told of replies in the conversations you wrote in. Stop all reply mails:";
  const { html, text } = layout({
    subject,
    bodyHtml,
    bodyText,
    footerHtml: `${escapeHtml(why)} <a href="${escapeHtml(unsubscribe)}" style="color:#94a3b8">Unsubscribe</a>`,
    footerText: `${why} ${unsubscribe}`,
  });
  const headers = {
    // RFC 8058: a POST there stops the mails at once.
    "List-Unsubscribe": `<${tokenLink(siteUrl, "/replies/one-click", token)}>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    "List-Id": `Replies on Engage with Engineer <replies.${new URL(siteUrl).hostname}>`,
    "Auto-Submitted": "auto-generated",
  };
  // A thread's mails all answer one Message-ID no mail carries, as a forum's do.
  const root = thread === undefined ? {} : threadRoot(thread, siteUrl);
  return { to, subject, html, text, headers, ...root };
}

/** The Message-ID a thread's reply mails answer: the thread's first comment, on the site's host. */
function threadRoot(thread: number, siteUrl: string) {
  const id = `<replies.${thread}@${new URL(siteUrl).hostname}>`;
  return { inReplyTo: id, references: [id] };
}

const replyPayload: z.ZodType<ReplyMailPayload> = z.object({ replyId: z.number() });
const replyIdOf = (raw: string | null) => jsonOf(raw, replyPayload)?.replyId ?? null;

/**
 * A reply's text part, as a reader sees the reply: "the datasheet
 * (https://…)", not "[the datasheet](https://…)"; quotes keep their "> ",
 * list items a "- " or their number.
 */
const asText = {
  wordwrap: false,
  selectors: [
    { selector: "a", options: { linkBrackets: ["(", ")"], hideLinkHrefIfSameAsText: true } },
    { selector: "ul", options: { itemPrefix: "- " } },
  ],
} satisfies HtmlToTextOptions;

/** The replies still published, in the order given. */
async function publishedReplies(db: Kysely<Database>, ids: number[]): Promise<MailedReply[]> {
  if (ids.length === 0) return [];
  // Loaded with the first reply mail, not at the server's start.
  const { convert } = await import("html-to-text");
  const rows = await db
    .selectFrom("science_comments")
    .select(["id", "post_id", "user_name", "content", "content_html"])
    .where("id", "in", ids)
    .where("status", "=", "published")
    .where("deleted_at", "is", null)
    .execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    // The HTML the site rendered when the reply was written (our own renderer's, links
    // marked nofollow), and the text a reader sees in it, not the Markdown typed.
    const html = row.content_html ?? renderComment(row.content);
    return [
      { id, postId: row.post_id, userName: row.user_name, html, text: convert(html, asText) },
    ];
  });
}

/** The thread of the watch a row's seed names, if it still exists with a confirmed address. */
async function standingThread(db: Kysely<Database>, seed: string | null) {
  if (!seed) return undefined;
  const row = await db
    .selectFrom("reply_watches")
    .innerJoin("reply_addresses", "reply_addresses.id", "reply_watches.address_id")
    .select("reply_watches.thread_id")
    .where("reply_watches.unsubscribe_token", "=", seed)
    .where("reply_addresses.status", "=", "confirmed")
    .executeTakeFirst();
  return row?.thread_id;
}

/** The seed of the address a watch's seed belongs to, which stops every thread. */
async function addressSeedOf(db: Kysely<Database>, watchSeed: string | undefined) {
  const row = await db
    .selectFrom("reply_watches")
    .innerJoin("reply_addresses", "reply_addresses.id", "reply_watches.address_id")
    .select("reply_addresses.unsubscribe_token as token")
    .where("reply_watches.unsubscribe_token", "=", watchSeed ?? "")
    .executeTakeFirst();
  return row?.token;
}

export function replyComposers({
  siteUrl,
  titles,
  links,
}: {
  siteUrl: string;
  titles: ReadonlyMap<string, string>;
  /** Makes the stop links from the seeds the rows carry (lib/tokens.ts). */
  links: StandingLinks;
}): Record<"reply_confirmation" | "reply_notice" | "reply_digest", ComposeMail> {
  const repliesMail: ComposeMail = async (row, db, batch) => {
    if (!row.email) return { outcome: "failed", reason: "no recipient" };
    const standing: { token: string; replyId: number; thread: number }[] = [];
    for (const entry of batch) {
      const replyId = replyIdOf(entry.payload);
      const thread = replyId === null ? undefined : await standingThread(db, entry.token);
      if (replyId !== null && thread !== undefined) {
        standing.push({ token: entry.token as string, replyId, thread });
      }
    }
    const replies = await publishedReplies(
      db,
      standing.map((entry) => entry.replyId),
    );
    if (replies.length === 0) {
      return { outcome: "cancelled", reason: "unsubscribed, or the reply is gone" };
    }
    const tokens = new Set(standing.map((entry) => entry.token));
    // One thread: its links stop that thread. A digest of several: the address's
    // links, which stop them all, so none the mail is about goes on.
    const seed = tokens.size === 1 ? [...tokens][0] : await addressSeedOf(db, [...tokens][0]);
    if (!seed) return { outcome: "cancelled", reason: "unsubscribed, or the reply is gone" };
    const token = links.tokenOf(seed);
    const thread = tokens.size === 1 ? standing[0]?.thread : undefined;
    return replyMail(row.email, replies, { token, thread, siteUrl, titles });
  };
  return {
    async reply_confirmation(row) {
      if (!row.email || !row.token) return { outcome: "failed", reason: "no recipient or token" };
      return replyConfirmationMail(row.email, row.token, siteUrl);
    },
    reply_notice: repliesMail,
    reply_digest: repliesMail,
  };
}
