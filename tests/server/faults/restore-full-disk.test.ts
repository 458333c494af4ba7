import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { commentsResponseSchema } from "../../../contract/api.ts";
import { admin, adminEnv } from "../support/admin.ts";
import { fillDisk } from "../support/full-disk.ts";
import { json, startTestApp } from "../support/test-app.ts";

/*
 * A restore onto a disk with too little room for the backup (docs/backups.md): the
 * copy fails, and the database stays where it was, as it was. It was put aside
 * first, so a failed copy left no database, and the next start made an empty site.
 * A disk that fills after the copy, as the restore ends the backup's sessions and
 * writes its line, changes nothing either: the backup was in place by then, and the
 * command said nothing was changed.
 */

const mount = mkdtempSync(path.join(os.tmpdir(), "ewe-restore-disk-"));
execFileSync("mount", ["-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", mount]);
afterAll(() => {
  execFileSync("umount", ["-l", mount]);
  rmSync(mount, { recursive: true, force: true });
});

/** Fills the filesystem at `mount` but for `room` bytes. */
const fillBut = (room: number) => fillDisk(path.join(mount, "filler"), room);

it.each([
  {
    when: "the backup does not fit on its disk",
    dataDir: path.join(mount, "data"),
    room: (backup: number) => backup / 4,
    said: (dataDir: string) =>
      new RegExp(`^The backup could not be copied to ${dataDir}: .+; nothing was changed\\.\\n$`),
  },
  {
    // Room for the copy, not for what the restore then writes to it (its sessions ended, its line).
    when: "the disk fills after the copy, as the restore readies it",
    dataDir: path.join(mount, "data-after"),
    room: (backup: number) => backup + 4096,
    said: (dataDir: string) =>
      new RegExp(
        `^The backup could not be readied in ${dataDir}: database or disk is full; nothing was changed\\.\\n$`,
      ),
  },
])("leaves the database in place, as it was, when $when", async ({ dataDir, room, said }) => {
  mkdirSync(dataDir, { mode: 0o700 });
  let site = await startTestApp("sqlite", { dataDir });
  await site.visitor().comment("soap", "in the database");
  const backup = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-restore-from-")), "b.sqlite");
  expect((await admin(adminEnv(site), "backup", "--out", backup)).code).toBe(0);
  await site.visitor().comment("soap", "after the backup");
  await site.close();
  fillBut(room(statSync(backup).size));

  const run = await admin(adminEnv(site), "restore", "--from", backup);
  expect(run.code).toBe(1);
  expect(run.stdout).toBe("");
  expect(run.stderr).toMatch(said(dataDir));
  // Neither put aside nor half-copied.
  expect(readdirSync(dataDir).filter((name) => name.startsWith("engage."))).toEqual([
    "engage.sqlite",
  ]);

  rmSync(path.join(mount, "filler"));
  site = await startTestApp("sqlite", { dataDir });
  try {
    const { comments } = json(
      await site.visitor().get("/api/items/science/soap/comments"),
      commentsResponseSchema,
    );
    expect(comments.map((c) => c.content)).toEqual(["in the database", "after the backup"]);
  } finally {
    await site.close();
  }
});
