import { chmodSync, existsSync, linkSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { plural } from "../../../contract/plural.ts";
import { callsIn, keepCallsSince, type RestoredCall } from "../../bookings/restored.ts";
import { renderRestoredComments } from "../../comments/restored.ts";
import type { Config } from "../../config.ts";
import { createOwnerRepository } from "../../console/owner-repository.ts";
import { migrateToLatest, openStore } from "../../db/store.ts";
import { sqliteFileOf } from "../../db/store-config.ts";
import { cookieSecretFileOf, migrationAddressKey } from "../../engagement/visitor.ts";
import { withMailFiles } from "../../outbox/mail-files.ts";
import { AdminError, assertFolderOf, type CommandContext, usageError } from "../command.ts";
import { assertContents, assertShaped, checkDatabase } from "./database-checks.ts";

/**
 * Copies `source` into a new file `target` with VACUUM INTO: one read
 * transaction, so the copy is a consistent snapshot even while the server
 * writes (WAL mode lets it go on writing meanwhile). The copy is written under
 * a temporary name and renamed, so `target` is never a half-written file; it
 * holds emails, so only its owner may read it.
 */
function copyDatabase(source: string, target: string): void {
  const partial = `${target}.partial-${process.pid}`;
  rmSync(partial, { force: true });
  try {
    using db = new DatabaseSync(source, { timeout: 5000 });
    db.prepare("vacuum into ?").run(partial);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  chmodSync(partial, 0o600);
  renameSync(partial, target);
}

function sqliteOnly(config: Config, what: string): string {
  if (config.databaseKind !== "sqlite") {
    throw usageError(
      `${what} works on the SQLite database; on PostgreSQL use pg_dump and pg_restore (docs/backups.md).`,
    );
  }
  return sqliteFileOf(config);
}

export async function backup({ values, config, stdout, actor }: CommandContext) {
  const databaseFile = sqliteOnly(config, "backup");
  if (typeof values.out !== "string") throw usageError("--out FILE is required.");
  const outFile = path.resolve(values.out);
  if (!existsSync(databaseFile)) {
    throw new AdminError(`There is no database at ${databaseFile} (is DATA_DIR right?).`);
  }
  if (existsSync(outFile)) {
    throw new AdminError(`${outFile} exists already; choose another name or remove it.`);
  }
  // Checked here, so the message names the owner's folder, not the temporary file's name.
  assertFolderOf(outFile);
  try {
    copyDatabase(databaseFile, outFile);
  } catch (error) {
    throw new AdminError(
      `The backup could not be written to ${outFile}: ${(error as Error).message.replaceAll(`${outFile}.partial-${process.pid}`, outFile)}`,
    );
  }
  checkDatabase(outFile, "The backup");
  await actor.audit("backup", outFile);
  stdout.write(`Backed up ${databaseFile} to ${values.out} (${statSync(outFile).size} bytes).\n`);
}

/**
 * Takes the database's exclusive lock without waiting: SQLite refuses it
 * (SQLITE_BUSY) while any other process has the database open, as a running
 * server always does. Holding it, the write-ahead log is merged into the file,
 * so the file kept aside is complete, and alone.
 */
function assertNotInUse(databaseFile: string): void {
  using db = new DatabaseSync(databaseFile, { timeout: 0 });
  try {
    db.exec("pragma locking_mode = exclusive; begin exclusive; commit;");
    db.exec("pragma wal_checkpoint(truncate)");
    // Kept as one file: out of WAL mode, the reads below leave no -wal and -shm beside it.
    db.exec("pragma journal_mode = delete");
  } catch (error) {
    if ((error as { errcode?: number }).errcode === 5) {
      throw new AdminError(`${databaseFile} is in use: stop the server first, then restore.`);
    }
    throw error;
  }
}

/** The mails a database's outbox still has to send (a row being sent is sent again at start). */
function mailsToSend(databaseFile: string): number {
  using db = new DatabaseSync(databaseFile, { readOnly: true });
  const row = db
    .prepare("select count(*) as n from outbox where status in ('queued', 'sending')")
    .get() as { n: number };
  return row.n;
}

/** The ids of the passkeys a replaced database holds; null if it has no table of them. */
function passkeysIn(databaseFile: string): Set<string> | null {
  using db = new DatabaseSync(databaseFile, { readOnly: true });
  try {
    return new Set(
      db
        .prepare("select id from owner_passkeys")
        .all()
        .map((row) => String(row.id)),
    );
  } catch {
    return null; // A database older than passkeys.
  }
}

/** "  12  2026-12-07T04:30:00.000Z  Meera Iyer", a line per call. */
const callLines = (calls: RestoredCall[]) =>
  calls.map((call) => `\n  ${call.id}  ${call.start}  ${call.name}`).join("");

/** What a restore compares, by what it knows a row (an address resubscribed since is still there). */
/** `shown`: whether a row restored is seen again (a comment held or kept as spam is not). */
const sinceKinds = {
  comments: {
    table: "science_comments",
    key: "id",
    said: "id || '  ' || user_name",
    shown: "status = 'published' and deleted_at is null",
  },
  subscribers: { table: "subscribers", key: "lower(email)", said: "email", shown: "1" },
} as const;

/**
 * The rows the replaced database once held (their ids are at most the last it
 * gave) and holds no more, while the backup holds them: deleted since.
 */
function deletedSince(
  backup: DatabaseSync,
  replacedFile: string,
  kind: keyof typeof sinceKinds,
): { said: string; shown: boolean }[] {
  const { table, key, said, shown } = sinceKinds[kind];
  using replaced = new DatabaseSync(replacedFile, { readOnly: true });
  try {
    const last = replaced.prepare("select seq from sqlite_sequence where name = ?").get(table) as
      | { seq: number }
      | undefined;
    const kept = new Set(
      replaced
        .prepare(`select ${key} as key from ${table}`)
        .all()
        .map((row) => String(row.key)),
    );
    const rows = backup
      .prepare(
        `select ${key} as key, ${said} as said, ${shown} as shown from ${table} where id <= ? order by id`,
      )
      .all(last?.seq ?? 0);
    return rows
      .filter((row) => !kept.has(String(row.key)))
      .map((row) => ({ said: String(row.said), shown: Boolean(row.shown) }));
  } catch {
    return []; // Not one of the site's databases: nothing to compare.
  }
}

/**
 * Readies the copy of a backup beside the database: migrated, checked against
 * what this version makes, and every step a restore takes on it done, so that
 * a restore that fails or is interrupted before the copy is renamed into place
 * leaves the database as it was. What the restore says is returned.
 */
async function readyRestored(
  incoming: string,
  replaced: string | null,
  fromFile: string,
  config: Config,
): Promise<string[]> {
  const said: string[] = [];
  const store = withMailFiles(
    await openStore({ kind: "sqlite", file: incoming, busyTimeoutMs: 60_000 }),
    config,
  );
  try {
    await migrateToLatest(store, migrationAddressKey(config));
  } finally {
    await store.close();
  }
  await assertShaped(incoming, "The backup");
  assertContents(incoming, "The backup");
  const reopened = withMailFiles(
    await openStore({ kind: "sqlite", file: incoming, busyTimeoutMs: 60_000 }),
    config,
  );
  try {
    const owner = createOwnerRepository(reopened);
    // Recorded in the database put in place, which the backup's trail continues.
    await owner.actor(null).audit("restore", fromFile);
    // Ended or removed since the backup (a stolen laptop's), or planted in a file from elsewhere.
    const replacedPasskeys = replaced ? passkeysIn(replaced) : null;
    const removed = await owner.endRestoredSignIns(replacedPasskeys);
    said.push(
      "The console's sessions and sign-in links the backup holds are ended: sign in again, with a passkey or `npm run admin -- login`.",
    );
    if (removed.length > 0) {
      said.push(
        `${plural(removed.length, "passkey")} the backup holds ${removed.length === 1 ? "is" : "are"} not in the database it replaced (removed since, or another site's): removed:${removed.map((name) => `\n  ${name}`).join("")}`,
      );
    }
    // Into a new DATA_DIR nothing says which passkeys were removed since: each is named, to check.
    const unchecked = replacedPasskeys === null ? await owner.listPasskeys() : [];
    if (unchecked.length > 0) {
      said.push(
        `${plural(unchecked.length, "passkey")} the backup holds ${unchecked.length === 1 ? "is" : "are"} kept with nothing to check ${unchecked.length === 1 ? "it" : "them"} against: once signed in, remove under "Sign-in and passkeys" any you removed since the backup or do not know:${unchecked.map((p) => `\n  ${p.name}  added ${p.createdAt}${p.lastUsedAt ? `, last used ${p.lastUsedAt}` : ""}`).join("")}`,
      );
    }
    const rendered = await renderRestoredComments(reopened.db);
    if (rendered > 0) {
      said.push(
        `${plural(rendered, "comment")} in the backup had HTML other than ${rendered === 1 ? "its" : "their"} text renders to (rendered by an earlier version, changed by hand, or not one of the site's backups): rendered again from ${rendered === 1 ? "its" : "their"} text.`,
      );
    }
    // Calls cancelled or moved since the backup stay so, by what the replaced database says of them.
    const ownerEmail = config.OWNER_EMAIL ?? config.contactEmail;
    const since = replaced
      ? await keepCallsSince(reopened.db, callsIn(replaced), new Date(), ownerEmail)
      : null;
    if (since?.moved.length) {
      const one = since.moved.length === 1;
      said.push(
        `${plural(since.moved.length, "call")} the backup holds ${one ? "was" : "were"} moved since, in the database it replaced: ${one ? "it is" : "they are"} at the new time, with ${one ? "its" : "their"} reminders for it:${callLines(since.moved)}`,
      );
    }
    if (since?.unmoved.length) {
      const one = since.unmoved.length === 1;
      said.push(
        `${plural(since.unmoved.length, "call")} the backup holds ${one ? "was" : "were"} moved since, in the database it replaced, to a time another call the backup holds takes: ${one ? "it stays" : "they stay"} at the backup's time, and ${one ? "its reader was" : "their readers were"} told the new one. Before the start, look at both calls (\`bookings list\`) and move or cancel one:${callLines(since.unmoved)}`,
      );
    }
    if (since?.cancelled.length) {
      said.push(
        `${plural(since.cancelled.length, "call")} the backup holds as booked ${since.cancelled.length === 1 ? "was" : "were"} cancelled since, in the database it replaced: ${since.cancelled.length === 1 ? "it stays" : "they stay"} cancelled, and no reminder of ${since.cancelled.length === 1 ? "it" : "them"} is sent:${callLines(since.cancelled)}`,
      );
    }
    if (since?.gone.length) {
      said.push(
        `${plural(since.gone.length, "call")} the backup holds as booked ${since.gone.length === 1 ? "is" : "are"} not in the database it replaced: deleted since the backup, and cancelled before that (a call ahead is deleted no other way), but the server would send ${since.gone.length === 1 ? "its" : "their"} reminders. Before the start, cancel each (\`bookings cancel ID\`: both sides are mailed a cancellation again), then delete it (\`bookings delete ID\`) if its reader asked for that:${callLines(since.gone)}`,
      );
    }
    const requeued = since?.requeued.cancellations ?? 0;
    if (requeued) {
      said.push(
        `The database it replaced had ${plural(requeued, "call's cancellation", "calls' cancellations")} still to send: queued again, the server sends ${requeued === 1 ? "it" : "them"} once started.`,
      );
    }
    const invitations = since?.requeued.invitations ?? 0;
    if (invitations) {
      said.push(
        `It had ${plural(invitations, "invitation")} of the calls moved since still to send: queued again, the server sends ${invitations === 1 ? "it" : "them"} once started.`,
      );
    }
  } finally {
    await reopened.close();
  }
  // One file, as the database it replaces is kept: no log beside it to lose in the rename.
  using db = new DatabaseSync(incoming);
  db.exec("pragma journal_mode = delete");
  if (replaced) {
    const deleted = deletedSince(db, replaced, "comments");
    for (const shown of [true, false]) {
      const comments = deleted.filter((comment) => comment.shown === shown).map((c) => c.said);
      if (comments.length === 0) continue;
      const one = comments.length === 1;
      const now = shown
        ? `${one ? "it is" : "they are"} on the site again`
        : `${one ? "it is" : "they are"} kept again as held or spam, which readers do not see`;
      said.push(
        `${plural(comments.length, "comment")} the backup holds ${one ? "was" : "were"} deleted since, in the database it replaced (by ${one ? "its" : "their"} writer, or by you): restored, ${now}. Delete again each that was not deleted by mistake (\`comments delete ID\`), above all a reader's who asked for it:${comments.map((c) => `\n  ${c}`).join("")}`,
      );
    }
    const subscribers = deletedSince(db, replaced, "subscribers").map((s) => s.said);
    if (subscribers.length > 0) {
      said.push(
        `${plural(subscribers.length, "subscriber")} the backup holds ${subscribers.length === 1 ? "was" : "were"} unsubscribed or removed since, in the database it replaced: restored, ${subscribers.length === 1 ? "it is" : "they are"} mailed the newsletter again. Before the start, remove each that did not leave by mistake (\`subscribers remove EMAIL\`):${subscribers.map((s) => `\n  ${s}`).join("")}`,
      );
    }
  }
  const queued = mailsToSend(incoming);
  if (queued > 0) {
    said.push(
      `The backup holds ${plural(queued, "mail")} still to send (a call's reminders, an edition's copies, notifications), which the server sends once started, also for a call or an edition cancelled since the backup: check \`bookings list\` and \`newsletter status\` first.`,
    );
  }
  return said;
}

/**
 * Replaces the database with a backup while the server is stopped. The
 * database it replaces is kept beside it, so a restore of the wrong file can
 * be undone by hand. Everything the restore does is done on a copy of the
 * backup beside the database, which then replaces it in one rename: a restore
 * that fails, or is stopped half way, changes nothing.
 */
export async function restore({ values, config, stdout }: CommandContext) {
  const databaseFile = sqliteOnly(config, "restore");
  if (typeof values.from !== "string") throw usageError("--from FILE is required.");
  const fromFile = path.resolve(values.from);
  const found = statSync(fromFile, { throwIfNoEntry: false });
  if (!found) throw new AdminError(`There is no file ${fromFile}.`);
  if (!found.isFile()) throw new AdminError(`${fromFile} is a folder: name the backup in it.`);
  checkDatabase(fromFile, "The backup");
  mkdirSync(path.dirname(databaseFile), { recursive: true, mode: 0o700 });
  const exists = existsSync(databaseFile);
  if (exists) assertNotInUse(databaseFile);
  // Copied beside the database before it is put aside: a copy that fails (a disk too
  // full for it) leaves it in place, where a start would otherwise make an empty one.
  const incoming = `${databaseFile}.restoring`;
  const forget = () => {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) {
      rmSync(`${incoming}${suffix}`, { force: true });
    }
  };
  forget(); // What a restore stopped half way left.
  let said: string[];
  try {
    copyDatabase(fromFile, incoming);
  } catch (error) {
    forget();
    throw new AdminError(
      `The backup could not be copied to ${path.dirname(databaseFile)}: ${(error as Error).message}; nothing was changed.`,
    );
  }
  try {
    said = await readyRestored(incoming, exists ? databaseFile : null, fromFile, config);
  } catch (error) {
    forget();
    const message = (error as Error).message.replace(/\.?$/, "");
    throw new AdminError(
      error instanceof AdminError
        ? `${message}; nothing was changed.`
        : `The backup could not be readied in ${path.dirname(databaseFile)}: ${message}; nothing was changed.`,
    );
  }
  let keptAs: string | null = null;
  if (existsSync(databaseFile)) {
    keptAs = `${databaseFile}.before-restore-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    try {
      assertNotInUse(databaseFile); // Again: a server may have started meanwhile.
      // Kept under a second name, then replaced in one rename: at no moment is there no database.
      linkSync(databaseFile, keptAs);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A filesystem without hard links: put aside, then replaced a moment later.
      if (code === "EPERM" || code === "ENOTSUP" || code === "EXDEV") {
        renameSync(databaseFile, keptAs);
      } else {
        forget();
        throw error;
      }
    }
  }
  // A log left by a crashed server belongs to the old file; on the new one it would corrupt it.
  for (const suffix of ["-wal", "-shm"]) rmSync(`${databaseFile}${suffix}`, { force: true });
  renameSync(incoming, databaseFile);
  stdout.write(`Restored ${databaseFile} from ${values.from}.\n`);
  if (keptAs) stdout.write(`The database it replaced is kept as ${keptAs}.\n`);
  for (const line of said) stdout.write(`${line}\n`);
  // A new DATA_DIR: the server would make a new secret, and readers would lose their own.
  const secretFile = cookieSecretFileOf(config);
  if (!config.COOKIE_SECRET && !existsSync(secretFile)) {
    stdout.write(
      `There is no ${secretFile}: put the old site's cookie-secret there before you start the server, or readers lose their comments and reactions as their own (docs/backups.md).\n`,
    );
  }
}
