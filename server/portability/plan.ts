import { commentContentSchema, userNameSchema } from "../../contract/api.ts";
import type { ItemKind } from "../../contract/limits.ts";
import { plural } from "../../contract/plural.ts";
import { markdownRefusal } from "../comments/markdown.ts";
import type { Catalog } from "../engagement/catalog.ts";
import { claimsBadge, claimsName } from "../moderation/fold.ts";
import { type Problem, problemList, quoted, refusedBy, type Skipped } from "./report.ts";

/*
 * What an import from another system (Disqus, WordPress, the original site)
 * turns its input into before anything is written: comments keyed by the
 * source's own ids, with every problem and every deliberate omission listed
 * (docs/decisions/030-import-and-export.md).
 */

export type PlannedComment = {
  /** The source's own id: what makes a second run change nothing. */
  sourceId: string;
  postId: string;
  /** The source id of the comment it answers, if any. */
  parentSourceId: string | null;
  userName: string;
  content: string;
  createdAt: string;
  where: string;
};

export type Plan = {
  source: "disqus" | "wordpress" | "original";
  comments: PlannedComment[];
  skipped: Skipped[];
  problems: Problem[];
};

/**
 * Source keys (an id, a slug, an address) the owner maps to our items with
 * --map FILE, each to "science/" or "mythology/" and the item's id.
 */
export type ItemMap = ReadonlyMap<string, string>;

/** Reads --map FILE: a JSON object from a source's thread id, slug or URL to one of our post ids. */
export function parseItemMap(
  text: string,
  catalog: Catalog,
): { map: ItemMap; problems: Problem[] } {
  const problems = problemList();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { map: new Map(), problems: [{ where: "--map", message: (error as Error).message }] };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return {
      map: new Map(),
      problems: [{ where: "--map", message: 'must be a JSON object such as {"old-slug": "wifi"}' }],
    };
  }
  const map = new Map<string, string>();
  for (const [key, value] of Object.entries(parsed)) {
    const text = typeof value === "string" ? value.replace(/^\//, "").replace(/\/+$/, "") : "";
    // A story is named with its section ("mythology/ganga"); a bare id is a science post.
    const story = /^mythology\/(.+)$/.exec(text)?.[1];
    const post = text.replace(/^science\//, "");
    if (story !== undefined && catalog.mythology.has(story)) {
      map.set(key, `mythology/${story}`);
    } else if (story === undefined && catalog.science.has(post)) {
      map.set(key, `science/${post}`);
    } else {
      problems.push({
        where: `--map ${quoted(key)}`,
        message: `names no science post or story: ${quoted(String(value))}`,
      });
    }
  }
  return { map, problems };
}

const lastPart = (key: string) =>
  key
    .replace(/[?#].*$/, "")
    .replace(/\/+$/, "")
    .split("/")
    .at(-1) ?? "";

/**
 * The item of `kind` a source's keys (a thread's id, slug or address) name: by
 * the map, by its own id or slug, or by the last part of its address.
 */
export function matchItem(
  kind: ItemKind,
  keys: (string | undefined)[],
  catalog: Catalog,
  map: ItemMap,
): string | null {
  const present = keys.filter((k): k is string => typeof k === "string" && k !== "");
  for (const key of present) {
    const mapped = map.get(key);
    if (mapped?.startsWith(`${kind}/`)) return mapped.slice(kind.length + 1);
  }
  for (const key of present) {
    const last = lastPart(key);
    if (catalog[kind].has(key)) return key;
    if (catalog[kind].has(last)) return last;
  }
  return null;
}

/** A source's time as ISO-8601 UTC; a time with no zone is taken as UTC. */
export function parseSourceTime(value: string): Date | null {
  // PostgreSQL writes a whole-hour offset short: "+00", "+05".
  const text = value
    .trim()
    .replace(" ", "T")
    .replace(/([+-]\d{2})$/, "$1:00");
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(zoned)) return null;
  const date = new Date(zoned);
  // No year 0000 either, which PostgreSQL has not.
  return date.getUTCFullYear() >= 1 ? date : null;
}

/**
 * The longest source id an import keeps (`import_sources`, whose key
 * PostgreSQL's index holds to about 2,700 bytes): Disqus's and WordPress's
 * are numbers, the original site's a number or a UUID.
 */
const sourceIdMax = 200;

/** How far ahead of this site's clock a source's may run: a time past it is in the future. */
const clockDriftMs = 60_000;

/**
 * A comment's time past now (and the drift), which would keep it first in
 * every newest-first list for as long as that time is to come.
 */
export const inFuture = (time: number, now: Date) => time > now.getTime() + clockDriftMs;

/**
 * Checks a comment as the site checks any (the same limits and refusals),
 * plus what only an import can get wrong: times in the future, repeated or
 * overlong ids. Returns the problems; the comment is kept in the plan only without any.
 */
export function checkComment(comment: PlannedComment, seen: Set<string>, now: Date): Problem[] {
  const problems: Problem[] = [];
  const { where } = comment;
  if (seen.has(comment.sourceId)) {
    problems.push({ where, message: "repeats an earlier comment's id" });
  }
  if (comment.sourceId.length > sourceIdMax) {
    problems.push({ where, message: "has an id too long to keep (a source's ids are short)" });
  }
  seen.add(comment.sourceId);
  const text = refusedBy(commentContentSchema, comment.content, `${where} text`);
  problems.push(...refusedBy(userNameSchema, comment.userName, `${where} name`), ...text);
  // Its Markdown as a new comment's (a reference such as &#x202E; shows as the character).
  const refusal = text.length === 0 ? markdownRefusal(comment.content) : null;
  if (refusal) problems.push({ where: `${where} text`, message: refusal.message });
  const time = parseSourceTime(comment.createdAt)?.getTime() ?? Number.NaN;
  if (Number.isNaN(time)) {
    problems.push({ where: `${where} date`, message: "is not a date" });
  } else if (inFuture(time, now)) {
    problems.push({ where: `${where} date`, message: `${comment.createdAt} is in the future` });
  }
  return problems;
}

/**
 * The comment form refuses a reader's name that is the owner's in any
 * spelling, or that reads as the Author label beside the owner's comments
 * ("Site admin", "Sam (author)": moderation/defences.ts); an import cannot
 * show that a comment is the owner's (only the site's own signed export
 * can), yet a blog's history holds the owner's own replies, often as
 * "admin". They come in as readers', and the report says how many, so the
 * owner can rename them in the file first.
 */
export function ownerNamedNotice(names: string[], ownerName: string): string | null {
  const owners = ownerName ? names.filter((name) => claimsName(name, ownerName)).length : 0;
  const labels = names.filter((name) => claimsBadge(name)).length;
  const comes = (count: number) => `${plural(count, "comment")} ${count === 1 ? "comes" : "come"}`;
  const said = [
    owners > 0
      ? `${plural(owners, "comment")} under the owner's name, or one like it, ${owners === 1 ? "comes" : "come"} in as a reader's, without the Author badge: only this site's own export, read back with its cookie secret, brings the owner's comments in.`
      : "",
    labels > 0
      ? `${comes(labels)} in under a name that reads as the Author label ("Site admin", "Sam (author)"), which the comment form refuses to a reader: rename them in the file to show readers another name.`
      : "",
  ].filter((line) => line !== "");
  return said.length > 0 ? said.join(" ") : null;
}

/** A comment into the plan, or its problems into the plan's. */
export function addComment(plan: Plan, comment: PlannedComment, seen: Set<string>, now: Date) {
  const found = checkComment(comment, seen, now);
  if (found.length > 0) plan.problems.push(...found);
  else plan.comments.push(comment);
}

/**
 * Drops replies whose comment was skipped (deleted, spam, unknown post), with
 * the reason, and orders the rest so a comment comes before its replies.
 */
export function settleThreads(plan: Plan): void {
  const bySource = new Map(plan.comments.map((c) => [c.sourceId, c]));
  const kept: PlannedComment[] = [];
  const placed = new Set<string>();
  const place = (comment: PlannedComment, path: Set<string>): boolean => {
    if (placed.has(comment.sourceId)) return true;
    const parent = comment.parentSourceId === null ? null : bySource.get(comment.parentSourceId);
    if (comment.parentSourceId !== null && (!parent || path.has(parent.sourceId))) {
      plan.skipped.push({
        where: comment.where,
        reason: `it answers ${quoted(comment.parentSourceId)}, which is not imported`,
      });
      return false;
    }
    if (parent && !place(parent, new Set([...path, comment.sourceId]))) {
      plan.skipped.push({ where: comment.where, reason: "the comment it answers is not imported" });
      return false;
    }
    if (parent && parent.postId !== comment.postId) {
      plan.skipped.push({ where: comment.where, reason: "it answers a comment on another post" });
      return false;
    }
    placed.add(comment.sourceId);
    kept.push(comment);
    return true;
  };
  for (const comment of plan.comments) place(comment, new Set());
  plan.comments = kept;
}
