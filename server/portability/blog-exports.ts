import { convert } from "html-to-text";
import type { Catalog } from "../engagement/catalog.ts";
import {
  addComment,
  type ItemMap,
  matchItem,
  type Plan,
  parseSourceTime,
  settleThreads,
} from "./plan.ts";
import { problemList, quoted } from "./report.ts";
import { asList, attributeOf, parseXml, textOf } from "./xml.ts";

/*
 * Other platforms' exports of a blog's comments, Disqus's and WordPress's,
 * read into an import's plan.
 */

/**
 * A comment's HTML (Disqus and WordPress keep it so) as the plain text our
 * Markdown shows as written; null for HTML nested deeper than the converter
 * follows (some thousands of elements), which no comment is.
 */
function htmlToText(html: string): string | null {
  try {
    return convert(html, {
      wordwrap: false,
      selectors: [
        { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
        { selector: "img", format: "skip" },
      ],
    }).trim();
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

const tooDeep = "nests its HTML too deep to be read as a comment";

/**
 * A Disqus XML export: threads (a page each, by its identifier and address),
 * then posts, each naming its thread and the post it answers. Deleted and
 * spam posts are skipped, and authors' emails are never read.
 */
export function readDisqus(text: string, catalog: Catalog, map: ItemMap, now = new Date()): Plan {
  const { root: node, problems } = parseXml(text, new Set(["disqus.thread", "disqus.post"]), {
    path: "disqus",
    missing: "has no <disqus> element: is it a Disqus export?",
  });
  const plan: Plan = {
    source: "disqus",
    comments: [],
    skipped: [],
    problems: problemList(problems),
  };
  if (!node) return plan;
  const threads = new Map<string, { postId: string | null; label: string }>();
  asList(node.thread).forEach((thread, index) => {
    const id = attributeOf(thread, null, "dsq:id");
    const where = `<thread> ${index + 1}${id ? ` (dsq:id ${quoted(id)})` : ""}`;
    if (!id) {
      plan.problems.push({ where, message: "has no dsq:id" });
      return;
    }
    const identifier = textOf(thread, "id");
    const link = textOf(thread, "link");
    threads.set(id, {
      postId: matchItem("science", [id, identifier, link], catalog, map),
      label: link || identifier || id,
    });
  });
  const seen = new Set<string>();
  asList(node.post).forEach((post, index) => {
    const id = attributeOf(post, null, "dsq:id");
    const where = `<post> ${index + 1}${id ? ` (dsq:id ${quoted(id)})` : ""}`;
    if (!id) {
      plan.problems.push({ where, message: "has no dsq:id" });
      return;
    }
    if (textOf(post, "isDeleted") === "true") {
      plan.skipped.push({ where, reason: "deleted in Disqus" });
      return;
    }
    if (textOf(post, "isSpam") === "true") {
      plan.skipped.push({ where, reason: "marked as spam in Disqus" });
      return;
    }
    const threadId = attributeOf(post, "thread", "dsq:id");
    const thread = threads.get(threadId);
    if (!thread) {
      plan.problems.push({
        where,
        message: `names thread ${threadId || "(none)"}, which the file does not hold`,
      });
      return;
    }
    if (!thread.postId) {
      plan.skipped.push({
        where,
        reason: `its page ${quoted(thread.label)} matches no science post: map it with --map FILE`,
      });
      return;
    }
    const author = (post as Record<string, unknown>).author;
    const time = parseSourceTime(textOf(post, "createdAt"));
    const content = htmlToText(textOf(post, "message"));
    if (content === null) {
      plan.problems.push({ where: `${where} text`, message: tooDeep });
      return;
    }
    const comment = {
      sourceId: id,
      postId: thread.postId,
      parentSourceId: attributeOf(post, "parent", "dsq:id") || null,
      userName: textOf(author, "name") || textOf(author, "username"),
      content,
      createdAt: time ? time.toISOString() : textOf(post, "createdAt"),
      where,
    };
    addComment(plan, comment, seen, now);
  });
  settleThreads(plan);
  return plan;
}

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
  const plan: Plan = {
    source: "wordpress",
    comments: [],
    skipped: [],
    problems: problemList(problems),
  };
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
      const where = `<item> ${itemIndex + 1} <wp:comment> ${index + 1}${id ? ` (id ${quoted(id)})` : ""}`;
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
          reason: `its post ${quoted(textOf(item, "link") || postKey)} matches no science post: map it with --map FILE`,
        });
        return;
      }
      const parent = textOf(comment, "wp:comment_parent");
      const date = textOf(comment, "wp:comment_date_gmt") || textOf(comment, "wp:comment_date");
      const time = parseSourceTime(date);
      // WordPress keeps line breaks as written and adds paragraphs when it shows them.
      const content = htmlToText(textOf(comment, "wp:comment_content").replace(/\r?\n/g, "<br>"));
      if (content === null) {
        plan.problems.push({ where: `${where} text`, message: tooDeep });
        return;
      }
      const planned = {
        sourceId: id,
        postId,
        parentSourceId: parent && parent !== "0" ? parent : null,
        userName: textOf(comment, "wp:comment_author"),
        content,
        createdAt: time ? time.toISOString() : date,
        where,
      };
      addComment(plan, planned, seen, now);
    });
  });
  settleThreads(plan);
  return plan;
}
