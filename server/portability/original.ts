import { emailSchema, userNameSchema } from "../../contract/api.ts";
import { type ItemKind, type ReactionType, reactionTypes } from "../../contract/limits.ts";
import type { Catalog } from "../engagement/catalog.ts";
import {
  checkComment,
  type ItemMap,
  matchItem,
  type Plan,
  type PlannedComment,
  parseSourceTime,
} from "./plan.ts";
import { type Problem, problemList, quoted, refusedBy, type Skipped } from "./report.ts";
import { formulaLeading, readRows, type SourceRow } from "./rows.ts";

/*
 * The original site's four tables, as its hosted backend exports them
 * (docs/product.md, "Moving in and out"): subscribers, the reactions to
 * stories and to science posts (one per name), and the science posts'
 * comments. Each row is known by a key of its own, so a second run of the
 * same import changes nothing.
 */

export const originalTables = {
  subscribers: ["email"],
  mythology_reactions: ["story_id", "type", "user_name"],
  science_reactions: ["post_id", "type", "user_name"],
  science_comments: ["id", "post_id", "content", "user_name", "created_at"],
} as const;

type OriginalTable = keyof typeof originalTables;

/** Which table a file holds, by its name: `science_comments.csv`, or `science_comments_rows.json` as a hosted backend names it. */
export function tableOfFile(fileName: string): OriginalTable | null {
  const stem = fileName.replace(/\.(csv|json)$/i, "").replace(/_rows$/, "");
  return stem in originalTables && /\.(csv|json)$/i.test(fileName) ? (stem as OriginalTable) : null;
}

type PlannedReaction = {
  sourceId: string;
  kind: ItemKind;
  itemId: string;
  type: ReactionType;
  userName: string;
  where: string;
};

type PlannedSubscriber = { sourceId: string; email: string; where: string };

export type OriginalPlan = Plan & {
  reactions: PlannedReaction[];
  subscribers: PlannedSubscriber[];
};

export type OriginalFile = { table: OriginalTable; file: string; text: string };

/** A cell that a spreadsheet would run, named as a problem. */
function formulaProblems(row: SourceRow, columns: readonly string[], where = row.where): Problem[] {
  return columns
    .filter((column) => formulaLeading(row.cells[column] ?? "", { prose: column === "content" }))
    .map((column) => ({
      where: `${where} ${column}`,
      message: `starts with "${(row.cells[column] ?? "").replace(/^["']/, "").charAt(0)}", which a spreadsheet would run as a formula`,
    }));
}

/**
 * The keys met so far, across every file: a table may come in two (`science_comments.csv`
 * and `science_comments_rows.json`), and a repeat in the second is one all the same.
 */
type Seen = { comments: Set<string>; rows: Map<string, string> };

function planComments(
  rows: SourceRow[],
  plan: OriginalPlan,
  catalog: Catalog,
  map: ItemMap,
  seen: Seen,
) {
  const now = new Date();
  for (const row of rows) {
    const { id = "", post_id = "", content = "", user_name = "", created_at = "" } = row.cells;
    const time = parseSourceTime(created_at);
    const comment: PlannedComment = {
      sourceId: `science_comments:${id.trim()}`,
      postId: "",
      parentSourceId: null,
      userName: user_name,
      content,
      // Only a time read as the source's own: anything else is "not a date".
      createdAt: time ? time.toISOString() : "",
      where: `${row.where} (id ${quoted(id)})`,
    };
    const problems = [
      ...formulaProblems(row, ["id", "post_id", "user_name", "content"], comment.where),
      ...checkComment(comment, seen.comments, now),
    ];
    if (id.trim() === "") problems.push({ where: `${row.where} id`, message: "is empty" });
    if (problems.length > 0) {
      plan.problems.push(...problems);
      continue;
    }
    const postId = matchItem("science", [post_id], catalog, map);
    if (!postId) {
      plan.skipped.push({
        where: comment.where,
        reason: `its post ${quoted(post_id)} matches no science post`,
      });
      continue;
    }
    plan.comments.push({ ...comment, postId });
  }
}

function planReactions(
  table: "mythology_reactions" | "science_reactions",
  rows: SourceRow[],
  plan: OriginalPlan,
  catalog: Catalog,
  map: ItemMap,
  seen: Map<string, string>,
) {
  const kind: ItemKind = table === "mythology_reactions" ? "mythology" : "science";
  const itemColumn = kind === "mythology" ? "story_id" : "post_id";
  for (const row of rows) {
    const { type = "", user_name = "" } = row.cells;
    const item = row.cells[itemColumn] ?? "";
    const problems = formulaProblems(row, [itemColumn, "user_name"]);
    problems.push(...refusedBy(userNameSchema, user_name, `${row.where} user_name`));
    if (!(reactionTypes as readonly string[]).includes(type)) {
      problems.push({
        where: `${row.where} type`,
        message: `${quoted(type)} is not one of ${reactionTypes.join(", ")}`,
      });
    }
    if (problems.length > 0) {
      plan.problems.push(...problems);
      continue;
    }
    const itemId = matchItem(kind, [item], catalog, map);
    if (!itemId) {
      plan.skipped.push({
        where: row.where,
        reason: `its ${kind === "mythology" ? "story" : "post"} ${quoted(item)} matches no ${kind === "mythology" ? "story" : "science post"}`,
      });
      continue;
    }
    // The original site allowed one reaction of a type per name on an item.
    const sourceId = `${table}:${itemId}:${type}:${user_name}`;
    const first = seen.get(sourceId);
    if (first) {
      plan.skipped.push({ where: row.where, reason: `repeats ${first}: counted once` });
      continue;
    }
    seen.set(sourceId, row.where);
    plan.reactions.push({
      sourceId,
      kind,
      itemId,
      type: type as ReactionType,
      userName: user_name,
      where: row.where,
    });
  }
}

function planSubscribers(rows: SourceRow[], plan: OriginalPlan, seen: Map<string, string>) {
  for (const row of rows) {
    const email = (row.cells.email ?? "").trim();
    const problems = [
      ...formulaProblems(row, ["email"]),
      ...refusedBy(emailSchema, email, `${row.where} email`),
    ];
    if (problems.length > 0) {
      plan.problems.push(...problems);
      continue;
    }
    const sourceId = `subscribers:${email.toLowerCase()}`;
    const first = seen.get(sourceId);
    if (first) {
      plan.skipped.push({ where: row.where, reason: `repeats the address of ${first}` });
      continue;
    }
    seen.set(sourceId, row.where);
    plan.subscribers.push({ sourceId, email, where: row.where });
  }
}

/** Everything the original site's exported tables would become, checked whole. */
export function readOriginal(files: OriginalFile[], catalog: Catalog, map: ItemMap): OriginalPlan {
  const plan: OriginalPlan = {
    source: "original",
    comments: [],
    reactions: [],
    subscribers: [],
    skipped: [] as Skipped[],
    problems: problemList(),
  };
  const seen: Seen = { comments: new Set(), rows: new Map() };
  for (const { table, file, text } of files) {
    const { rows, problems } = readRows(file, text, originalTables[table]);
    plan.problems.push(...problems);
    if (table === "science_comments") planComments(rows, plan, catalog, map, seen);
    else if (table === "subscribers") planSubscribers(rows, plan, seen.rows);
    else planReactions(table, rows, plan, catalog, map, seen.rows);
  }
  return plan;
}
