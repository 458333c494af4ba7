import { commentContentSchema, multiLineSchema, userNameSchema } from "../../contract/api.ts";
import { plural } from "../../contract/plural.ts";
import { markdownRefusal, renderComment } from "../comments/markdown.ts";
import { emptiedPlace } from "../comments/rows.ts";
import { misplacedReply } from "../comments/threads.ts";
import { withoutDirections } from "../db/migrations/text-directions.ts";
import { ownerVisitorId } from "../engagement/visitor.ts";
import { importedVisitor } from "./apply-plan.ts";
import { inFuture } from "./plan.ts";
import { refusedBy } from "./report.ts";
import { type ExportRows, rowName } from "./tables.ts";

/*
 * An export's comments as the import takes them (read-export.ts): as a
 * reader could have posted them, and with the owner's marks only where the
 * file proves them (docs/decisions/030-import-and-export.md).
 */

/** A comment the owner wrote from the console: the Author badge, and the owner's own writer. */
const ownerMarked = (row: Readonly<Record<string, unknown>>) =>
  row.by_owner === 1 || row.visitor_id === ownerVisitorId;

/**
 * The owner's marks (the Author badge, the owner's own writer) of a file
 * whose comments do not carry this site's signature, as `admin export`
 * wrote them: the comments that bear them come in as a reader's, each under
 * a writer of its name. Returns what to tell the owner, or null.
 */
export function settleOwnerMarks(comments: ExportRows, signature: unknown): string | null {
  const marked = comments.rows.filter(ownerMarked);
  if (marked.length === 0) return null;
  for (const row of marked) {
    row.by_owner = 0;
    row.visitor_id = importedVisitor("export", String(row.user_name));
  }
  const why =
    signature === undefined
      ? "the file carries no signature (an export of an older version, or not an export at all)"
      : "its comments' signature is not this site's (they were written with another cookie secret, or changed since)";
  return `${plural(marked.length, "comment")} marked as the owner's ${
    marked.length === 1 ? "comes in as a reader's" : "come in as readers'"
  }, without the Author badge: ${why}. A site's own export keeps them when read back with the same cookie secret (DATA_DIR/cookie-secret, or COOKIE_SECRET).`;
}

/**
 * Each comment as a reader could have posted it: its name and text pass the
 * rules of a new comment (contract/api.ts) and its Markdown the renderer's,
 * its HTML is rendered again from its text, and a reply answers a comment
 * that starts a thread on the same post, written by now. A deleted comment
 * keeps only its place, as the site keeps one. A comment of an export taken
 * before text-direction character references were refused (`&#x202E;`)
 * loses them as the upgrade's migration 061 took them out of the stored
 * ones; one left with no text comes in empty, as that migration left it.
 * Returns what to tell the owner.
 */
export function checkComments(
  { table, rows, at }: ExportRows,
  now: Date,
  problem: (where: string, message: string) => void,
): string[] {
  let cleaned = 0;
  let empty = 0;
  const byId = new Map(rows.map((row, index) => [row.id, index]));
  rows.forEach((row, index) => {
    const where = `tables.${table.name}[${at[index]}]`;
    // A deleted comment's place would stay first too.
    if (inFuture(Date.parse(String(row.created_at)), now)) {
      problem(`${where}.created_at`, `${String(row.created_at)} is in the future`);
    }
    const parentIndex = row.parent_id === null ? undefined : byId.get(row.parent_id);
    // One the file does not hold is named by the references' check (read-export.ts).
    if (parentIndex !== undefined) {
      const parent = rows[parentIndex] ?? {};
      const fault = misplacedReply(
        { post_id: row.post_id, parent_id: row.parent_id },
        { post_id: parent.post_id, parent_id: parent.parent_id },
        rowName(table, at[parentIndex] ?? 0, parent),
      );
      if (fault) problem(`${where}.parent_id`, fault);
    }
    if (row.deleted_at !== null) {
      // Published, as the site leaves a place (comments/removal.ts): it holds nothing to approve.
      Object.assign(row, emptiedPlace, { status: "published" });
      return;
    }
    for (const refused of refusedBy(userNameSchema, row.user_name, `${where}.user_name`)) {
      problem(refused.where, refused.message);
    }
    // As stored before the upgrade: cleaned as migration 061 cleaned the stored ones, from the
    // HTML the file kept (or, with none, its text).
    const stored = withoutDirections({
      content: String(row.content),
      content_html: row.content_html === null ? null : String(row.content_html),
    });
    if (stored) {
      row.content = stored.content;
      cleaned += 1;
    }
    // Nothing left, as that migration leaves a comment that held nothing else: empty, not refused.
    const blank = multiLineSchema().parse(row.content) === "";
    if (blank) empty += 1;
    const content = blank
      ? { success: true as const, data: "" }
      : commentContentSchema.safeParse(row.content);
    if (!content.success) {
      problem(`${where}.content`, content.error.issues[0]?.message ?? "is not a comment");
      return;
    }
    // What the honeypot caught never met the text rules, and nobody but its sender sees it.
    const refusal = row.status === "spam" ? null : markdownRefusal(content.data);
    if (refusal) problem(`${where}.content`, refusal.message);
    row.content = content.data;
    // Null on comments written before the HTML was kept: rendered when read.
    if (row.content_html !== null) row.content_html = renderComment(content.data);
  });
  const notices: string[] = [];
  if (cleaned > 0) {
    notices.push(
      `${plural(cleaned, "comment")} had text-direction characters removed (written as character references such as &#x202E;, they made the text run backwards), as the upgrade of 7 December 2026 removes them from stored comments.`,
    );
  }
  if (empty > 0) {
    const one = empty === 1;
    notices.push(
      `${plural(empty, "comment")} ${one ? "has" : "have"} no text: ${one ? "it" : "each"} held nothing but text-direction characters and ${one ? "comes" : "come"} in empty, as the upgrade leaves such a comment. Delete any you do not want to keep (comments delete ID, or in the console).`,
    );
  }
  return notices;
}
