import type { Catalog } from "../engagement/catalog.ts";
import { htmlToText } from "./disqus.ts";
import {
  addComment,
  type ItemMap,
  matchItem,
  type Plan,
  parseSourceTime,
  settleThreads,
} from "./plan.ts";
import { asList, parseXml, textOf } from "./xml.ts";

/**
 * A WordPress export (WXR): each post (<item>) with its comments. Only
 * approved comments come in, with the comments they answer; pingbacks,
 * trackbacks, held and spam comments are skipped. Emails are never read.
 */
export function readWordpress(
  text: string,
  catalog: Catalog,
  map: ItemMap,
  now = new Date(),
): Plan {
  const { root: channel, problems } = parseXml(
    text,
    new Set(["rss.channel.item", "rss.channel.item.wp:comment"]),
    { path: "rss.channel", missing: "has no <rss><channel>: is it a WordPress export (WXR)?" },
  );
  const plan: Plan = { source: "wordpress", comments: [], skipped: [], problems };
  if (!channel) return plan;
  const seen = new Set<string>();
  asList(channel.item).forEach((item, itemIndex) => {
    const postKey = textOf(item, "wp:post_id");
    const comments = asList((item as Record<string, unknown>)["wp:comment"]);
    if (comments.length === 0) return;
    const postId = matchItem(
      "science",
      [postKey, textOf(item, "wp:post_name"), textOf(item, "link")],
      catalog,
      map,
    );
    comments.forEach((comment, index) => {
      const id = textOf(comment, "wp:comment_id");
      const where = `<item> ${itemIndex + 1} <wp:comment> ${index + 1}${id ? ` (id ${id})` : ""}`;
      if (!id) {
        plan.problems.push({ where, message: "has no wp:comment_id" });
        return;
      }
      const approved = textOf(comment, "wp:comment_approved");
      if (approved !== "1") {
        plan.skipped.push({
          where,
          reason: approved === "spam" ? "marked as spam in WordPress" : "not approved in WordPress",
        });
        return;
      }
      const type = textOf(comment, "wp:comment_type");
      if (type !== "" && type !== "comment") {
        plan.skipped.push({ where, reason: `a ${type}, not a comment` });
        return;
      }
      if (!postId) {
        plan.skipped.push({
          where,
          reason: `its post ${textOf(item, "link") || postKey} matches no science post: map it with --map FILE`,
        });
        return;
      }
      const parent = textOf(comment, "wp:comment_parent");
      const date = textOf(comment, "wp:comment_date_gmt") || textOf(comment, "wp:comment_date");
      const time = parseSourceTime(date);
      const planned = {
        sourceId: id,
        postId,
        parentSourceId: parent && parent !== "0" ? parent : null,
        userName: textOf(comment, "wp:comment_author"),
        // WordPress keeps line breaks as written and adds paragraphs when it shows them.
        content: htmlToText(textOf(comment, "wp:comment_content").replace(/\r?\n/g, "<br>")),
        createdAt: time ? time.toISOString() : date,
        where,
      };
      addComment(plan, planned, seen, now);
    });
  });
  settleThreads(plan);
  return plan;
}
