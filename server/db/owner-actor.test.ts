import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, expect, it } from "vitest";
import { afterCommit, leftBy, withLine } from "./owner-actor.ts";
import { migrateToLatest, openStore, type Store } from "./store.ts";

let folder: string;
let store: Store;
beforeEach(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), "ewe-owner-actor-"));
  store = await openStore({ kind: "sqlite", file: path.join(folder, "engage.sqlite") });
  await migrateToLatest(store);
});
afterEach(async () => {
  await store.close();
  rmSync(folder, { recursive: true, force: true });
});

/** The lines another connection sees: only what has committed. */
function committedLines(): number {
  const db = new DatabaseSync(path.join(folder, "engage.sqlite"), { readOnly: true });
  try {
    return Number((db.prepare("select count(*) as n from owner_audit").get() as { n: number }).n);
  } finally {
    db.close();
  }
}

const writeLine = (trx: Parameters<Parameters<typeof withLine>[2]>[0]) =>
  trx
    .insertInto("owner_audit")
    .values({ at: new Date().toISOString(), session_id: null, action: "test", object: null })
    .execute();

it("runs what an action's transaction leaves for after its commit once it has committed, and never when it fails", async () => {
  const seen: number[] = [];
  await withLine(store.db, "line", async (trx) => {
    await writeLine(trx);
    afterCommit(trx, () => seen.push(committedLines()));
    expect(seen).toEqual([]);
  });
  // When it ran, another connection saw the line: it ran after the commit.
  expect(seen).toEqual([1]);

  const failed = withLine(store.db, "line", async (trx) => {
    await writeLine(trx);
    afterCommit(trx, () => seen.push(committedLines()));
    throw new Error("refused");
  });
  await expect(failed).rejects.toThrow("refused");
  expect(leftBy(await failed.catch((error: unknown) => error))).toBe("nothing");
  expect(seen).toEqual([1]);
  expect(committedLines()).toBe(1);

  // On the store itself, a write has committed already: it runs at once.
  afterCommit(store.db, () => seen.push(0));
  expect(seen).toEqual([1, 0]);
  // A transaction that runs nothing after its commit refuses, and rolls back.
  await expect(
    store.db.transaction().execute(async (trx) => {
      await writeLine(trx);
      afterCommit(trx, () => seen.push(2));
    }),
  ).rejects.toThrow("runs nothing after its commit");
  expect(committedLines()).toBe(1);
});
