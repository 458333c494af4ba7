import { isUtf8 } from "node:buffer";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { getHeapStatistics } from "node:v8";
import { loadEngagementCatalog } from "../../../content/catalog.ts";
import { queueMovedReminders } from "../../bookings/queued-mails.ts";
import { storeOptionsOf } from "../../db/store-config.ts";
import { cookieSecretFileOf, resolveCookieSecret } from "../../engagement/visitor.ts";
import { createWriterKeys } from "../../engagement/writer-keys.ts";
import { createEventJournal } from "../../events/journal.ts";
import { suppressionKey } from "../../lib/mailbox.ts";
import { applyExport, countAll, ImportRefused } from "../../portability/apply-export.ts";
import { applyOriginal, type SubscriberConsent } from "../../portability/apply-original.ts";
import { applyPlan } from "../../portability/apply-plan.ts";
import { readDisqus, readWordpress } from "../../portability/blog-exports.ts";
import {
  type OriginalFile,
  originalTables,
  readOriginal,
  tableOfFile,
} from "../../portability/original.ts";
import { type ItemMap, ownerNamedNotice, parseItemMap } from "../../portability/plan.ts";
import { readExport } from "../../portability/read-export.ts";
import {
  formatProblems,
  formatSkipped,
  formatTally,
  type Skipped,
  type Tally,
  TooManyProblems,
} from "../../portability/report.ts";
import { createExportSigner } from "../../portability/signature.ts";
import { digestAddresses, foldedNotice, holdsAddresses } from "../../portability/version-1.ts";
import { AdminError, type CommandContext, exitCodes, usageError } from "../command.ts";

/** The largest file an import reads: far above any blog's comments. */
const maxInputBytes = 512 * 1024 * 1024;

const kinds = ["original", "disqus", "wordpress", "export"] as const;
type Kind = (typeof kinds)[number];

/**
 * How many times its size an input of a kind is held in memory while it is
 * checked, at most (measured, docs/decisions/030-import-and-export.md): an
 * export or a blog's XML about 12 times, the original site's tables up to 70
 * (CSV rows of a few bytes, each held as its cells). A --map file is JSON, as an export.
 */
const heldPerByte: Record<Kind, number> = { export: 12, disqus: 12, wordpress: 12, original: 70 };

const megabytes = (bytes: number) => `${Math.ceil(bytes / 1024 / 1024)} MB`;

/**
 * Refuses, before it is read, an input of `size` bytes that the heap Node
 * gives this process would not hold as an import of `kind` reads it (a
 * crash with "heap out of memory" otherwise, after a long wait), saying what to do.
 */
function refuseTooLarge(file: string, size: number, kind: Kind) {
  const perByte = heldPerByte[kind];
  const { heap_size_limit: heap, used_heap_size: used } = getHeapStatistics();
  const limit = Math.min(maxInputBytes, Math.floor((heap - used) / perByte));
  if (size <= limit) return;
  const more =
    size > maxInputBytes
      ? ""
      : `, or give Node the memory it needs (about ${perByte} times the file): NODE_OPTIONS=--max-old-space-size=${Math.ceil((used + size * perByte) / 1024 / 1024)} before npm run admin`;
  throw new AdminError(
    `${file} is ${megabytes(size)}, more than the ${megabytes(limit)} an import of this kind reads in the ${megabytes(heap)} Node gives it: split it${more}.`,
  );
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    throw new AdminError(`There is no file ${file}.`, exitCodes.notFound);
  }
}

function readInput(file: string, kind: Kind): string {
  refuseTooLarge(file, sizeOf(file), kind);
  return utf8Text(file, readFileSync(file));
}

/**
 * A file's bytes as text: UTF-8, as every export is, and without the byte
 * order mark an editor may have put first. A byte that is no UTF-8 (a file
 * saved as Latin-1 or Windows-1252) stops the import, naming its line,
 * rather than becoming U+FFFD in a reader's name or comment.
 */
const byteOrderMark = Buffer.from([0xef, 0xbb, 0xbf]);

function utf8Text(file: string, bytes: Buffer): string {
  const text = new TextDecoder().decode(bytes);
  if (isUtf8(bytes)) return text;
  // The first U+FFFD that the file does not spell out in UTF-8 (EF BF BD) is the bad byte.
  let at = bytes.subarray(0, 3).equals(byteOrderMark) ? 3 : 0;
  let from = 0;
  for (let index = text.indexOf("\ufffd"); index !== -1; index = text.indexOf("\ufffd", from)) {
    at += Buffer.byteLength(text.slice(from, index));
    if (bytes.readUIntBE(at, Math.min(3, bytes.length - at)) !== 0xefbfbd) {
      const line = text.slice(0, index).split("\n").length;
      throw new AdminError(
        formatProblems([
          {
            where: `${file} line ${line}`,
            message: "is not UTF-8 text: save the file as UTF-8 and import it again",
          },
        ]),
      );
    }
    at += 3;
    from = index + 1;
  }
  throw new AdminError(formatProblems([{ where: file, message: "is not UTF-8 text" }]));
}

function report(
  { stdout }: Pick<CommandContext, "stdout">,
  { counts, skipped, notices = [] }: { counts: Tally; skipped: Skipped[]; notices?: string[] },
  dryRun: boolean,
) {
  stdout.write(dryRun ? "Dry run: nothing was written. It would import:\n" : "Imported:\n");
  stdout.write(formatTally(counts, dryRun));
  stdout.write(formatSkipped(skipped));
  for (const notice of notices) stdout.write(`${notice}\n`);
}

/**
 * The site's cookie secret as it is, or null where none was made yet: a dry
 * run makes nothing, not even the secret the server would make on its first start.
 */
function existingCookieSecret(config: CommandContext["config"]): string | null {
  const made = config.COOKIE_SECRET || existsSync(cookieSecretFileOf(config));
  return made ? resolveCookieSecret(config) : null;
}

async function importExport(context: CommandContext, file: string, dryRun: boolean) {
  let document: unknown;
  try {
    document = JSON.parse(readInput(file, "export"));
  } catch (error) {
    if (error instanceof AdminError) throw error;
    throw new AdminError(formatProblems([{ where: file, message: (error as Error).message }]));
  }
  // No secret yet: one made now would be new, and could not have signed the file.
  const secret = existingCookieSecret(context.config);
  const {
    tables,
    problems,
    notices,
    skipped: leftOut,
    exportedAt,
    own,
  } = readExport(document, {
    signer: secret === null ? null : createExportSigner(secret),
    ownerName: context.config.owner.name,
    catalog: loadEngagementCatalog(),
  });
  if (problems.length > 0) throw new AdminError(formatProblems(problems));
  // The addresses kept with a digest under this site's secret (a version-1 file's suppressed
  // ones, subscribers', reply mails'): one is made if need be; a dry run's is thrown away.
  const keyed =
    holdsAddresses(tables) ||
    tables.some(({ table, rows }) => table.columnsLeftOut?.email_hash && rows.length > 0);
  const addressKey = suppressionKey(
    secret ?? (dryRun || !keyed ? randomBytes(32).toString("hex") : await context.secret()),
  );
  if (holdsAddresses(tables)) {
    const folded = digestAddresses(tables, addressKey);
    if (folded > 0) notices.push(foldedNotice(folded));
  }
  // The file moves a site into a new data folder: its database is made here,
  // as the server's first start would make it (a dry run makes nothing).
  const options = storeOptionsOf(context.config);
  const missing = options.kind === "sqlite" && !existsSync(options.file) ? options.file : null;
  if (missing && dryRun) {
    notices.unshift(`There is no database at ${missing} yet: the import will make it.`);
    return { counts: countAll(tables), skipped: leftOut, notices };
  }
  const store = await context.store({ create: true });
  if (missing) notices.unshift(`There was no database at ${missing}: it was made and migrated.`);
  // A dry run's live events are rolled back with it: their avatars need no lasting secret.
  const keys = createWriterKeys(
    secret ??
      (dryRun ? randomBytes(32).toString("hex") : await context.secret({ throwaway: true })),
  );
  try {
    const { counts, skipped } = await applyExport(
      store,
      createEventJournal(store),
      keys.avatarOf,
      tables,
      {
        dryRun,
        addressKey,
        audit: { action: "import export", object: path.basename(file) },
        // The file's calls still ahead are reminded from here, as the site that took them
        // would have: only the site's own signed export's, whose addresses it mailed before.
        finish: (trx, ids) =>
          queueMovedReminders(
            trx,
            new Date(),
            context.config.OWNER_EMAIL ?? context.config.contactEmail,
            exportedAt,
            own ? [...(ids.get("bookings")?.values() ?? [])] : [],
          ),
      },
    );
    return { counts, skipped: [...leftOut, ...skipped], notices };
  } catch (error) {
    if (error instanceof ImportRefused) throw new AdminError(formatProblems(error.problems));
    throw error;
  }
}

function readItemMap(context: CommandContext): ItemMap {
  const mapFile = context.values.map;
  if (typeof mapFile !== "string") return new Map();
  const parsed = parseItemMap(readInput(path.resolve(mapFile), "export"), loadEngagementCatalog());
  if (parsed.problems.length > 0) throw new AdminError(formatProblems(parsed.problems));
  return parsed.map;
}

/** The original site's tables: FILE is one of them, or a folder holding any of them. */
function originalFiles(file: string): OriginalFile[] {
  let names: string[];
  try {
    names = statSync(file).isDirectory()
      ? readdirSync(file).map((name) => path.join(file, name))
      : [file];
  } catch {
    throw new AdminError(`There is no file or folder ${file}.`, exitCodes.notFound);
  }
  const tables = Object.keys(originalTables).join(", ");
  const found = names.flatMap((name) => {
    const table = tableOfFile(path.basename(name));
    return table ? [{ table, file: name }] : [];
  });
  if (found.length === 0) {
    throw new AdminError(
      `${file} holds none of the original site's tables: name each file after its table (${tables}), as .csv or .json.`,
    );
  }
  // The tables are held together.
  refuseTooLarge(
    file,
    found.map((table) => sizeOf(table.file)).reduce((a, b) => a + b),
    "original",
  );
  return found.map((table) => ({ ...table, text: utf8Text(table.file, readFileSync(table.file)) }));
}

/** What the owner says of the imported subscribers: pending unless confirmed on a stated basis. */
function subscriberConsent(values: CommandContext["values"]): SubscriberConsent {
  const consent = values.subscribers ?? "pending";
  if (consent !== "pending" && consent !== "confirmed") {
    throw usageError("--subscribers must be pending or confirmed.");
  }
  const basis = values["legal-basis"];
  if (consent === "confirmed" && (typeof basis !== "string" || basis.trim().length < 10)) {
    throw usageError(
      'The original list was single opt-in: --subscribers confirmed needs --legal-basis "…", saying why these addresses may be sent the newsletter without confirming (at least 10 characters). Without it they are imported pending; "newsletter reconfirm" then asks each to confirm.',
    );
  }
  if (typeof basis === "string" && (basis.length > 300 || /[\r\n]/.test(basis))) {
    throw usageError("--legal-basis is one line of at most 300 characters.");
  }
  return consent;
}

/** The original site's tables, or a Disqus or WordPress export: checked whole, then written. */
async function importPlan(context: CommandContext, from: Kind, file: string, dryRun: boolean) {
  const subscribers = from === "original" ? subscriberConsent(context.values) : "pending";
  const catalog = loadEngagementCatalog();
  const map = readItemMap(context);
  const original = from === "original" ? readOriginal(originalFiles(file), catalog, map) : null;
  const read = from === "disqus" ? readDisqus : readWordpress;
  const plan = original ?? read(readInput(file, from), catalog, map);
  if (plan.problems.length > 0) throw new AdminError(formatProblems(plan.problems));
  const names = plan.comments.map((comment) => comment.userName);
  const owned = ownerNamedNotice(names, context.config.owner.name);
  const store = await context.store();
  const { avatarOf } = createWriterKeys(await context.secret({ throwaway: true }));
  const journal = createEventJournal(store);
  // Subscribers are kept with a digest under the site's own secret (a dry run's is thrown away).
  const held = (original?.subscribers.length ?? 0) > 0 && !dryRun;
  const addressKey = suppressionKey(await context.secret({ throwaway: !held }));
  const counts = original
    ? await applyOriginal(store, journal, avatarOf, original, { dryRun, subscribers, addressKey })
    : await applyPlan(store, journal, avatarOf, plan, { dryRun });
  return { counts, skipped: plan.skipped, notices: owned ? [owned] : [] };
}

export async function importFile(context: CommandContext) {
  const { values, positionals, actor } = context;
  const from = values.from;
  if (typeof from !== "string" || !kinds.includes(from as Kind)) {
    throw usageError(`--from must be one of ${kinds.join(", ")}.`);
  }
  const file = path.resolve(positionals[0] ?? "");
  const dryRun = values["dry-run"] === true;
  const result = await (from === "export"
    ? importExport(context, file, dryRun)
    : importPlan(context, from as Kind, file, dryRun)
  ).catch((error: unknown) => {
    if (!(error instanceof TooManyProblems)) throw error;
    throw new AdminError(formatProblems(error.problems, { stopped: true }));
  });
  report(context, result, dryRun);
  // An export's import records itself in its own transaction (it restores
  // the exported site's trail, and adds this line after it).
  if (!dryRun && from !== "export") {
    const basis = values["legal-basis"];
    const object =
      values.subscribers === "confirmed" && typeof basis === "string"
        ? `${path.basename(file)}; subscribers confirmed on this legal basis: ${basis.trim()}`
        : path.basename(file);
    await actor.audit(`import ${from}`, object);
  }
}
