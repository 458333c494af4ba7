import type { ItemKind } from "../../contract/limits.ts";
import { plural } from "../../contract/plural.ts";
import type { Catalog } from "../engagement/catalog.ts";
import { isVisitorId } from "../engagement/visitor.ts";
import { importedVisitor } from "./apply-plan.ts";
import { quoted, type Skipped } from "./report.ts";
import { type ExportRows, exportTables } from "./tables.ts";

/*
 * The rows of an export an import leaves out on purpose, each named in its
 * report with the reason (docs/backups.md, "Moving in and out"): editions
 * whose time passed during the move, and what readers left on items this
 * site does not have.
 */

/** Leaves out of `rows` each row `reasonOf` gives a reason for; returns them with it. */
function leaveOut(rows: ExportRows, reasonOf: (row: ExportRows["rows"][number]) => string | null) {
  const skipped: Skipped[] = [];
  const kept: ExportRows["rows"] = [];
  const at: number[] = [];
  rows.rows.forEach((row, index) => {
    const where = rows.at[index] ?? index;
    const reason = reasonOf(row);
    if (reason !== null) {
      skipped.push({ where: `tables.${rows.table.name}[${where}]`, reason });
    } else {
      kept.push(row);
      at.push(where);
    }
  });
  rows.rows = kept;
  rows.at = at;
  return skipped;
}

/** Leaves out every row of the file's table `name`; returns how many it had. */
function emptyTable(tables: ExportRows[], name: string): number {
  const rows = tables.find((t) => t.table.name === name);
  const count = rows?.rows.length ?? 0;
  if (rows) Object.assign(rows, { rows: [], at: [] });
  return count;
}

/**
 * Scheduled editions that are still to go out at their time: one not yet
 * queued whose time has come by the import (or whose queueing had begun on
 * the old site) is left out, to be sent or scheduled again by the owner, so
 * that a move never sends an edition the owner did not expect, nor sends
 * one twice that the old site went on sending after the export. One queued
 * already is history and comes in as it was.
 */
export function settleSchedules(schedules: ExportRows, tables: ExportRows[], now: Date): Skipped[] {
  const slugs = new Map(
    tables.find((t) => t.table.name === "editions")?.rows.map((row) => [row.id, row.slug]) ?? [],
  );
  return leaveOut(schedules, (row) => {
    const due = Date.parse(String(row.send_at)) <= now.getTime() || row.started_at !== null;
    if (row.queued_at !== null || !due) return null;
    const slug = String(slugs.get(row.edition_id) ?? row.edition_id);
    return `the edition "${slug}" was to go out at ${String(row.send_at)}, which has passed: it is not scheduled here. Send its file with "newsletter send", now or --at a new time.`;
  });
}

/** The tables of what readers leave on an item: the item's column, its kind, and what it is called. */
const itemColumns: Readonly<Record<string, [string, ItemKind, string, string]>> = {
  science_comments: ["post_id", "science", "post", "science post"],
  science_reactions: ["post_id", "science", "post", "science post"],
  mythology_reactions: ["story_id", "mythology", "story", "story"],
};

/**
 * Comments and reactions on an item this site does not have are left out,
 * as the other imports leave them, and so is every row that cannot be
 * without one left out (a reply, a comment's Fediverse writer).
 */
export function skipUnknownItems(tables: ExportRows[], catalog: Catalog): Skipped[] {
  const leftOut = new Map<string, Set<unknown>>();
  return tables.flatMap((rows) => {
    const [column = "", kind, noun, catalogued] = itemColumns[rows.table.name] ?? [];
    const gone = new Set<unknown>();
    leftOut.set(rows.table.name, gone);
    const reasonOf = (row: ExportRows["rows"][number]) => {
      const item = String(row[column]);
      if (kind && !catalog[kind].has(item)) {
        return `its ${noun} ${quoted(item)} matches no ${catalogued}`;
      }
      const lost = rows.table.references?.find(
        (r) => r.inFile && leftOut.get(r.table)?.has(row[r.column]),
      );
      const id = String(row[lost?.column ?? ""]);
      return lost ? `it refers to ${lost.table} ${id}, which is not imported` : null;
    };
    const mark = (row: ExportRows["rows"][number]) => {
      const reason = reasonOf(row);
      if (reason !== null) gone.add(row.id);
      return reason;
    };
    // Twice: a reply may come before the comment it answers.
    rows.rows.forEach(mark);
    return leaveOut(rows, mark);
  });
}

/** The tables whose rows are their browser's (its visitor id): to edit, delete and download. */
const browsersRows = [
  "science_comments",
  "science_reactions",
  "mythology_reactions",
  "reply_addresses",
  "bookings",
];

/**
 * What grants trust, from a file that is not this site's own signed export
 * (docs/decisions/030-import-and-export.md). A browser's approval, by which
 * its comments skip moderation, is left out. What browsers wrote comes in as
 * nobody's: a browser id of such a file can only be one whose cookie this
 * site signed, the file's writer's own, who would own the rows and, by their
 * published comments, be trusted with links. The calendar feed's secret
 * address, which the file's writer would know, is not kept. Returns what to
 * tell the owner. An edition's schedule and its mails still to go, which
 * would send the file's edition to this site's subscribers or to the
 * file's addresses, are left out too, and so are the audit trail, which
 * says what the owner did, the examples the spam filter learns from, the
 * records of earlier imports (`import_sources`), which a later import
 * trusts, and the Fediverse followers, to whose inboxes each new post would go, with what
 * the file says they were sent. Booked
 * calls come in without reminders or working links (`quietCalls`).
 */
export function leaveOutGrants(tables: ExportRows[]): { skipped: Skipped[]; notices: string[] } {
  const notices: string[] = [];
  const approvals = tables.find((t) => t.table.name === "approved_visitors");
  const skipped = approvals
    ? leaveOut(
        approvals,
        () =>
          "an approval is kept only from this site's own export, read back with its cookie secret: approve the browser's next comment instead",
      )
    : [];
  let owned = 0;
  for (const { table, rows } of tables) {
    if (!browsersRows.includes(table.name)) continue;
    for (const row of rows) {
      if (typeof row.visitor_id !== "string" || !isVisitorId(row.visitor_id)) continue;
      row.visitor_id = importedVisitor("browser", row.visitor_id);
      owned += 1;
    }
  }
  if (owned > 0) {
    notices.push(
      `${plural(owned, "row")} that readers' browsers wrote (comments, reactions, addresses for replies, calls) ${owned === 1 ? "comes" : "come"} in as nobody's, for only the owner to change: a browser keeps its own only from this site's own export, read back with its cookie secret.`,
    );
  }
  // An edition and its recipients are the file's word: it would go to every subscriber here.
  const schedules = tables.find((t) => t.table.name === "edition_schedules");
  if (schedules) {
    skipped.push(
      ...leaveOut(schedules, (row) =>
        row.queued_at === null
          ? 'an edition is scheduled only from this site\'s own export, read back with its cookie secret: send its file with "newsletter send"'
          : null,
      ),
    );
  }
  const outbox = tables.find((t) => t.table.name === "outbox");
  if (outbox) {
    skipped.push(
      ...leaveOut(outbox, (row) =>
        row.status === "queued" || row.status === "sending"
          ? "an edition's mail still to go is sent only from this site's own export, read back with its cookie secret"
          : null,
      ),
    );
  }
  // What the owner taught the spam filter: a file's examples would teach it another's mind.
  const examples = emptyTable(tables, "spam_examples");
  if (examples > 0) {
    notices.push(
      `${plural(examples, "example")} of what the spam filter learnt ${examples === 1 ? "was" : "were"} left out: the filter learns only from this site's own export, read back with its cookie secret, and from your decisions.`,
    );
  }
  // The trail says what the owner did: a file's lines could put words in their mouth.
  const trail = emptyTable(tables, "owner_audit");
  if (trail > 0) {
    notices.push(
      `${plural(trail, "line")} of the audit trail ${trail === 1 ? "was" : "were"} left out: the trail is restored only from this site's own export, read back with its cookie secret.`,
    );
  }
  // What the site imported before, by the source's keys: a file's records would have
  // a later import take its rows for the ones that file brings (a comment, a reply's comment).
  const records = emptyTable(tables, "import_sources");
  if (records > 0) {
    notices.push(
      `${plural(records, "record")} of ${records === 1 ? "an earlier import was" : "earlier imports were"} left out: the site keeps what it imported before only from its own export, read back with its cookie secret, so a file imported there and imported here again brings its rows again.`,
    );
  }
  notices.push(...pendAddresses(tables), ...quietCalls(tables), ...leaveOutFollowers(tables));
  const settings = tables.find((t) => t.table.name === "booking_settings")?.rows ?? [];
  const feeds = settings.filter((row) => row.feed_token_hash !== null);
  for (const row of feeds) row.feed_token_hash = null;
  if (feeds.length > 0) {
    notices.push(
      "The calendar feed's secret address is kept only from this site's own export, read back with its cookie secret: make a new one (bookings feed --new).",
    );
  }
  return { skipped, notices };
}

/** What an export of an earlier version, whose signature covers its comments alone, keeps. */
export const commentsOnlyNotice =
  "The file's signature covers its comments only (an export of an earlier version): its comments keep the owner's marks, and the rest is read as from a file of elsewhere. Export the old site again with this version to keep everything.";

/**
 * How an imported subscriber is known to `newsletter reconfirm`: by its
 * unsubscribe token, which no two subscribers share, rather than by its
 * address, which would outlive the subscriber's deletion here.
 */
const askedSource = "unsigned export";

/**
 * The addresses the site mails, from a file that is not this site's own
 * signed export (docs/decisions/060-what-an-unsigned-file-may-say.md): a
 * file's word that an address agreed is no one's consent. Subscribers come
 * in pending, counted as imported (`import_sources`), so that
 * `newsletter reconfirm` asks each once, one mail per mailbox a day, and
 * no edition goes to one until it confirms. Addresses for reply mails
 * come in pending too and are sent nothing: their browser is nobody's
 * here, and a reader asks again from a comment. Returns what to tell the owner.
 */
function pendAddresses(tables: ExportRows[]): string[] {
  const notices: string[] = [];
  const subscribers = tables.find((t) => t.table.name === "subscribers");
  const sourcesTable = exportTables.find((t) => t.name === "import_sources");
  if (subscribers && subscribers.rows.length > 0 && sourcesTable) {
    let sources = tables.find((t) => t.table.name === "import_sources");
    if (!sources) {
      sources = { table: sourcesTable, rows: [], at: [] };
      tables.push(sources);
    }
    let confirmed = 0;
    for (const row of subscribers.rows) {
      if (row.status === "confirmed") confirmed += 1;
      Object.assign(row, { status: "pending", confirmed_at: null, confirmation_sent_at: null });
      sources.rows.push({
        source: askedSource,
        source_id: String(row.unsubscribe_token),
        row_table: "subscribers",
        row_id: row.id ?? null,
        imported_at: new Date().toISOString(),
      });
      sources.at.push(-1);
    }
    const count = subscribers.rows.length;
    notices.push(
      `${plural(count, "subscriber")} ${count === 1 ? "comes" : "come"} in pending${confirmed > 0 ? ` (${confirmed} marked as confirmed in the file)` : ""}, and will be sent no edition until they confirm: only this site's own export, read back with its cookie secret, keeps a subscription confirmed. "newsletter reconfirm" asks each to confirm, one mail per mailbox a day; those who do not are forgotten a week later.`,
    );
  }
  const replies = tables.find((t) => t.table.name === "reply_addresses");
  const asked = replies?.rows.filter((row) => row.status === "confirmed") ?? [];
  // A pending one's link too: the file's writer may know the token of its digest.
  for (const row of replies?.rows ?? []) {
    Object.assign(row, {
      status: "pending",
      confirmed_at: null,
      confirm_token_hash: null,
      confirm_expires_at: null,
    });
  }
  if (asked.length > 0) {
    notices.push(
      `${plural(asked.length, "address", "addresses")} for reply mails ${asked.length === 1 ? "comes" : "come"} in pending, and ${asked.length === 1 ? "is" : "are"} mailed nothing: only this site's own export, read back with its cookie secret, keeps one confirmed. Its reader asks again by leaving it with a comment; an address never confirmed is forgotten within a week.`,
    );
  }
  return notices;
}

/**
 * Booked calls from such a file (docs/decisions/060-what-an-unsigned-file-may-say.md):
 * they come in, so that a moved calendar keeps its promises and its times stay
 * taken, but the import queues them no reminder (the command line asks only a
 * signed file's calls to be reminded) and their readers' links are not kept:
 * the file's writer may know a link's token, and a move from it would mail
 * the file's address. Each call still ahead is named, for the owner to tell
 * its reader. Returns what to tell the owner.
 */
function quietCalls(tables: ExportRows[]): string[] {
  const bookings = tables.find((t) => t.table.name === "bookings")?.rows ?? [];
  for (const row of bookings) row.token_hash = null;
  const now = Date.now();
  const ahead = bookings
    .filter((row) => row.status === "booked" && Date.parse(String(row.starts_at)) > now)
    .toSorted((a, b) => String(a.starts_at).localeCompare(String(b.starts_at)));
  if (ahead.length === 0) return [];
  const calls = ahead.map(
    (row) =>
      `\n  ${String(row.starts_at)}: ${String(row.service)} with ${quoted(String(row.name))}`,
  );
  return [
    `${plural(ahead.length, "call")} still ahead ${ahead.length === 1 ? "comes" : "come"} in with no reminder and no working link for ${ahead.length === 1 ? "its reader" : "their readers"}: the site mails no address from a file that is not this site's own export, read back with its cookie secret. Tell each reader yourself, or cancel the call (bookings list, bookings cancel), which mails them:${calls.join("")}`,
  ];
}

/**
 * The Fediverse accounts such a file says follow the site are left out: each
 * new post would go to the inbox the file names. They follow again from
 * their server. So is what it says followers were sent (`fediverse_published`):
 * an owner's answer recorded as sent to an account of the file's choosing
 * would be served as a Note to it, and its edits and deletion would go there,
 * and one recorded as sent or deleted would never reach its writer. With no
 * follower from the file, its items' records said nothing anyway. Blocks
 * stay: they only take away.
 */
function leaveOutFollowers(tables: ExportRows[]): string[] {
  const notices: string[] = [];
  const count = emptyTable(tables, "fediverse_followers");
  if (count > 0) {
    notices.push(
      `${plural(count, "Fediverse follower")} ${count === 1 ? "was" : "were"} left out: followers are kept only from this site's own export, read back with its cookie secret, so that no file chooses where new posts are delivered. ${count === 1 ? "It follows" : "They follow"} again from ${count === 1 ? "its" : "their"} server.`,
    );
  }
  // What was sent, and to whom: a record names the account an answer went to (which its
  // edits and deletion then reach), or says it went or was deleted when it did not.
  const sent = emptyTable(tables, "fediverse_published");
  if (sent > 0) {
    notices.push(
      `${plural(sent, "record")} of what the Fediverse was sent ${sent === 1 ? "was" : "were"} left out: they are kept only from this site's own export, read back with its cookie secret, so that no file says which of your answers went out, or to whom.`,
    );
  }
  return notices;
}
