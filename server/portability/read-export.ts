import { type ZodType, z } from "zod";
import { emailSchema, handleMax, userNameSchema } from "../../contract/api.ts";
import { availabilitySchema, bookingRequestSchema } from "../../contract/bookings.ts";
import { enquiryRequestSchema } from "../../contract/enquiries.ts";
import { plural } from "../../contract/plural.ts";
import { hasNoHiddenCharacters } from "../../contract/text.ts";
import { isOfferedTimeZone, offeredZoneName } from "../../contract/time-zones.ts";
import type { Catalog } from "../engagement/catalog.ts";
import { exportValue, keyPlace, rowSchema, uniqueValue } from "./columns.ts";
import { checkComments, settleOwnerMarks } from "./export-comments.ts";
import {
  commentsOnlyNotice,
  leaveOutGrants,
  settleSchedules,
  skipUnknownItems,
} from "./left-out.ts";
import { ownerNamedNotice } from "./plan.ts";
import { type Problem, problemList, refusedBy, type Skipped } from "./report.ts";
import { type ExportSigner, signedBy } from "./signature.ts";
import { identityTables } from "./site-rows.ts";
import { reseed, seedTokens } from "./standing-links.ts";
import {
  type ExportRows,
  exportFormat,
  exportTables,
  exportVersion,
  rowName,
  uniqueKeys,
} from "./tables.ts";

/*
 * Reading an export back (`admin import --from export`): the whole file is
 * checked before anything is written, and every problem is reported with the
 * row it is in (docs/product.md, "Moving in and out"). A file may come from
 * anyone, so what readers will see is made here as for a new comment: each
 * comment passes the rules a new one does and its HTML is rendered again
 * from its text, and only this site's signature keeps the owner's marks
 * (docs/decisions/030-import-and-export.md).
 */

/** The tables whose rows' addresses the site mails: editions, reply mails, answers, reminders. */
const mailedTables = ["subscribers", "outbox", "reply_addresses", "enquiries", "bookings"];

/** An address a page links to: http or https, without a user or password (as the Webmention receiver's). */
const webLink = z
  .string()
  .max(2000, "is longer than 2000 characters")
  .refine((value) => {
    const url = URL.parse(value);
    return /^https?:$/.test(url?.protocol ?? "") && !url?.username && !url?.password;
  }, "must be an http or https address");

/** One line of text from elsewhere, as a page shows it. */
const oneLine = (max: number) =>
  z
    .string()
    .max(max, `is longer than ${max} characters`)
    .refine(hasNoHiddenCharacters, "holds a line break, or a control or text-direction character");

type ReadExport = {
  tables: ExportRows[];
  problems: Problem[];
  /** What the owner should know that does not stop the import. */
  notices: string[];
  /** Rows the file holds that are left out on purpose, each with its reason. */
  skipped: Skipped[];
  /** When the file was written, the old site's last moment (docs/backups.md); else an invalid Date. */
  exportedAt?: Date;
  /** Whether the whole file is this site's own signed export (its calls are reminded). */
  own?: boolean;
};

/** What an import knows of the site it writes into. */
type Site = {
  /** This site's signer: without one, no comment keeps the owner's marks. */
  signer: ExportSigner | null;
  /** The owner's name: a file not signed by `signer` has its comments under it counted. */
  ownerName: string;
  /** The items comments and reactions are on: those on others are left out. */
  catalog: Catalog;
};

/**
 * Checks a parsed export; returns its tables' rows in import order, made
 * ready to write, and every problem found.
 */
export function readExport(document: unknown, { signer, ownerName, catalog }: Site): ReadExport {
  const problems = problemList();
  const notices: string[] = [];
  const skipped: Skipped[] = [];
  const problem = (where: string, message: string) => problems.push({ where, message });
  const now = new Date();
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    problem("file", "is not a JSON object");
    return { tables: [], problems, notices, skipped };
  }
  const file = document as Record<string, unknown>;
  if (file.format !== exportFormat) {
    problem("format", `must be "${exportFormat}": this is not an export of this site`);
  }
  if (!Number.isInteger(file.version) || (file.version as number) < 1) {
    problem("version", "must be a whole number");
  } else if ((file.version as number) > exportVersion) {
    problem(
      "version",
      `is ${String(file.version)}, newer than this version of the site reads (${exportVersion}): update the site first`,
    );
  }
  // For reference only, but signed with the rest: a value nested without end (a
  // thousand-deep array) would overflow the stack of the signature's check.
  const { settings } = file;
  const scalar = (value: unknown) => value === null || typeof value !== "object";
  if (
    settings !== undefined &&
    (typeof settings !== "object" ||
      settings === null ||
      Array.isArray(settings) ||
      !Object.values(settings).every(scalar))
  ) {
    problem(
      "settings",
      "must be an object of settings, each a text, a number, true, false or null",
    );
    return { tables: [], problems, notices, skipped };
  }
  const given = file.tables;
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    problem("tables", "must be an object of tables");
    return { tables: [], problems, notices, skipped };
  }
  const known = new Map(exportTables.map((table) => [table.name as string, table]));
  for (const name of Object.keys(given)) {
    if (!known.has(name)) problem(`tables.${name}`, "is not a table this site exports");
  }
  const tables: ExportRows[] = [];
  for (const table of exportTables) {
    const rows = (given as Record<string, unknown>)[table.name];
    if (rows === undefined) continue;
    if (!Array.isArray(rows)) {
      problem(`tables.${table.name}`, "must be an array of rows");
      continue;
    }
    const checked: ExportRows["rows"] = [];
    const at: number[] = [];
    // A version-1 file's addresses are read as they were, and digested once the site's key is known.
    const { columns } =
      (file.version === 1 && table.version1 && { columns: table.version1 }) || table;
    const schema = rowSchema({ columns });
    rows.forEach((row: unknown, index) => {
      const where = `tables.${table.name}[${index}]`;
      const found = new Map<string, string>();
      const issues = schema.safeParse(row).error?.issues ?? [];
      // Columns the table does not have first, then each column's first problem.
      const unknownFirst = (issue: { code: string }) => Number(issue.code !== "unrecognized_keys");
      for (const issue of issues.toSorted((a, b) => unknownFirst(a) - unknownFirst(b))) {
        const names = issue.code === "unrecognized_keys" ? issue.keys : [issue.path.join(".")];
        for (const place of names.map((name) => (name ? `${where}.${name}` : where))) {
          if (!found.has(place)) found.set(place, issue.message);
        }
      }
      for (const [place, message] of found) problem(place, message);
      if (found.size > 0) return;
      const values = row as Record<string, unknown>;
      checked.push(
        Object.fromEntries(
          columns.map((c) => [c.name, exportValue(c, values[c.name] ?? c.absent ?? null)]),
        ),
      );
      at.push(index);
    });
    tables.push({ table, rows: checked, at });
  }
  checkUniqueKeys(tables, problem);
  checkIds(tables, problem);
  const comments = tables.find((t) => t.table.name === "science_comments");
  // The site's own signed export is trusted as it was written; an earlier version's, for its comments.
  const { own, comments: signed } = signedBy(signer, file, tables);
  // Read as signed, a file's tokens (an older version's) are kept as this site keeps them.
  seedTokens(tables);
  const notice = comments && !signed ? settleOwnerMarks(comments, file.commentsSignature) : null;
  if (notice) notices.push(notice);
  if (signed && !own) notices.push(commentsOnlyNotice);
  if (!own) {
    const seeded = reseed(tables);
    const grants = leaveOutGrants(tables);
    skipped.push(...grants.skipped);
    notices.push(...grants.notices, ...seeded);
  }
  skipped.push(...skipUnknownItems(tables, catalog));
  checkReferences(tables, problem);
  if (comments) notices.push(...checkComments(comments, now, problem));
  const named = (comments?.rows ?? []).filter((row) => row.deleted_at === null);
  const owned = ownerNamedNotice(
    signed ? [] : named.map((row) => String(row.user_name)),
    ownerName,
  );
  if (owned) notices.push(owned);
  // A version-1 file's addresses are digested here, with this site's key; a later file's
  // digests were made with the secret that signed it.
  const suppressed = tables.find((t) => t.table.name === "suppressions")?.rows.length ?? 0;
  if (signer && !signed && file.version !== 1 && suppressed > 0) {
    notices.push(
      `${plural(suppressed, "suppressed address", "suppressed addresses")} ${suppressed === 1 ? "was" : "were"} kept by a site with another cookie secret (the file's signature is not this site's): they match no address here, so mail may go to them again. Import the file with the old site's cookie secret (DATA_DIR/cookie-secret, or COOKIE_SECRET) to keep them.`,
    );
  }
  // What readers typed as the forms take it, and where the site mails a row, one address (not a list).
  const enquiry = enquiryRequestSchema.shape;
  // The form drops a zone off its list, and a booking refuses one; a file holds none either.
  const listedZone = z.string().refine(isOfferedTimeZone, "is not on the time zone list");
  // A booking's zone as an older site kept it, typed in another case: by the list's name.
  const bookings = tables.find((t) => t.table.name === "bookings");
  bookings?.rows.forEach((row, index) => {
    if (typeof row.reader_zone === "string") {
      row.reader_zone = offeredZoneName(row.reader_zone) ?? row.reader_zone;
    }
    // The owner's moves are some of the changes its sequence counts (decision 071).
    const moves = Number(row.owner_moves);
    if (moves < 0 || moves > Number(row.sequence)) {
      problem(
        `tables.bookings[${bookings.at[index]}].owner_moves`,
        "must be from 0 to the call's sequence: the owner's moves are some of its changes",
      );
    }
  });
  const checked: [string, string, ZodType][] = [
    ["science_reactions", "user_name", userNameSchema],
    ["mythology_reactions", "user_name", userNameSchema],
    ["enquiries", "name", enquiry.name],
    ["enquiries", "message", enquiry.message],
    ["enquiries", "organisation", enquiry.organisation],
    ["enquiries", "timeline", enquiry.timeline],
    ["enquiries", "zone", listedZone.optional()],
    ["bookings", "name", bookingRequestSchema.shape.name],
    ["bookings", "note", bookingRequestSchema.shape.note],
    ["bookings", "reader_zone", listedZone],
    // A call's room, which the console links to and mails carry, as the owner's setting takes it.
    ["bookings", "meeting_url", availabilitySchema.shape.meetingUrl.optional()],
    // What a page shows of the web's mentions and Fediverse writers, as their receivers take it.
    ["webmentions", "source", webLink],
    ["webmentions", "target", webLink],
    ["webmentions", "author_url", webLink.optional()],
    ["webmentions", "author_name", oneLine(100).optional()],
    ["webmentions", "content", oneLine(1000).optional()],
    ["fediverse_replies", "handle", oneLine(handleMax)],
    ["fediverse_followers", "handle", oneLine(handleMax)],
    // (An edition's copy to a removed address keeps none.)
    ...mailedTables.map((name): [string, string, ZodType] => [
      name,
      "email",
      name === "outbox" ? emailSchema.optional() : emailSchema,
    ]),
  ];
  for (const [name, column, schema] of checked) {
    const rows = tables.find((t) => t.table.name === name);
    rows?.rows.forEach((row, index) => {
      // An optional field the form left empty is null in the row, and absent from the form.
      const value = row[column] ?? undefined;
      problems.push(...refusedBy(schema, value, `tables.${name}[${rows.at[index]}].${column}`));
    });
  }
  const schedules = tables.find((t) => t.table.name === "edition_schedules");
  if (schedules) skipped.push(...settleSchedules(schedules, tables, now));
  const exportedAt = new Date(typeof file.exportedAt === "string" ? file.exportedAt : Number.NaN);
  return { tables, problems, notices, skipped, exportedAt, own };
}

/** Every key the database keeps unique, once in the file: the row that repeats one names the row it repeats. */
function checkUniqueKeys(tables: ExportRows[], problem: (where: string, message: string) => void) {
  for (const { table, rows, at } of tables) {
    const keys = uniqueKeys(table);
    for (const key of keys) {
      const first = new Map<string, number>();
      rows.forEach((row, index) => {
        const value = uniqueValue(key, row);
        if (value === null) return;
        const earlier = first.get(value);
        if (earlier === undefined) {
          first.set(value, index);
          return;
        }
        const where = `tables.${table.name}[${at[index]}]`;
        problem(
          key === keys[0] ? where : keyPlace(where, key),
          `repeats the ${key.columns.join(", ")} of ${rowName(table, at[earlier] ?? 0, rows[earlier] ?? {})}`,
        );
      });
    }
  }
}

/**
 * The largest id an import takes, of a row or of a row referred to. The
 * site's new rows are given ids above the largest the file holds or names,
 * up to the database's largest (`rowIdMax`): a file at the top would leave
 * the site no id for its next comment, and one at 0 or below names a row
 * no page or command can.
 */
const importIdMax = 1_000_000_000;

/** Every id of a row, and of a row referred to, between 1 and `importIdMax`. */
function checkIds(tables: ExportRows[], problem: (where: string, message: string) => void) {
  const message = `must be an id from 1 to ${importIdMax}, so that the site has ids left for its new rows`;
  for (const { table, rows, at } of tables) {
    const columns = [
      ...(table.identity ? [{ column: table.identity, table: table.name }] : []),
      ...(table.references ?? []),
    ];
    rows.forEach((row, index) => {
      for (const { column, table: target } of columns) {
        const value = row[column];
        const named = target === "row_table" ? String(row.row_table) : target;
        if (value === null || !identityTables.has(named)) continue;
        if (Number(value) < 1 || Number(value) > importIdMax) {
          problem(`tables.${table.name}[${at[index]}].${column}`, message);
        }
      }
    });
  }
}

/** Rows that point at others the file must hold (a foreign key, a reply's comment). */
function checkReferences(tables: ExportRows[], problem: (where: string, message: string) => void) {
  const ids = (name: string) =>
    new Set(tables.find((t) => t.table.name === name)?.rows.map((row) => row.id) ?? []);
  for (const { table, rows, at } of tables) {
    for (const reference of table.references ?? []) {
      if (!reference.inFile) continue;
      const targets = ids(reference.table);
      rows.forEach((row, index) => {
        const value = row[reference.column];
        if (value !== null && value !== undefined && !targets.has(value)) {
          problem(
            `tables.${table.name}[${at[index]}].${reference.column}`,
            `refers to ${reference.table} ${String(value)}, which the file does not hold`,
          );
        }
      });
    }
  }
}
