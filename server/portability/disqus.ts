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
import { asList, attributeOf, parseXml, textOf } from "./xml.ts";

/** A comment's HTML (Disqus and WordPress keep it so) as the plain text our Markdown shows as written. */
export function htmlToText(html: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
      { selector: "img", format: "skip" },
    ],
  }).trim();
}

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
  const plan: Plan = { source: "disqus", comments: [], skipped: [], problems };
  if (!node) return plan;
  const threads = new Map<string, { postId: string | null; label: string }>();
  asList(node.thread).forEach((thread, index) => {
    const id = attributeOf(thread, null, "dsq:id");
    const where = `<thread> ${index + 1}${id ? ` (dsq:id ${id})` : ""}`;
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
    const where = `<post> ${index + 1}${id ? ` (dsq:id ${id})` : ""}`;
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
        reason: `its page ${thread.label} matches no science post: map it with --map FILE`,
      });
      return;
    }
    const author = (post as Record<string, unknown>).author;
    const time = parseSourceTime(textOf(post, "createdAt"));
    const comment = {
      sourceId: id,
      postId: thread.postId,
      parentSourceId: attributeOf(post, "parent", "dsq:id") || null,
      userName: textOf(author, "name") || textOf(author, "username"),
      content: htmlToText(textOf(post, "message")),
      createdAt: time ? time.toISOString() : textOf(post, "createdAt"),
      where,
    };
    addComment(plan, comment, seen, now);
  });
  settleThreads(plan);
  return plan;
}
