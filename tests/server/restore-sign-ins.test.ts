import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { expect, it } from "vitest";
import { whoAmIResponseSchema } from "../../contract/console.ts";
import { newToken, tokenDigest } from "../../server/lib/tokens.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { linkToken, Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import { json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * A backup holds the console's sessions, sign-in links and passkeys as they were
 * when it was taken. A restore must not bring back a session ended since (a stolen
 * laptop's), a passkey removed since (a lost key's), nor anything a file from
 * elsewhere plants in those tables: a link or a session whose token its maker knows.
 */

const env = { COOKIE_SECRET: "restore-sign-ins-tests-cookie-secret-0123456" };

const passkey = (id: string, name: string) => [
  id,
  name,
  Buffer.from("not a key").toString("base64url"),
  0,
  "[]",
  new Date().toISOString(),
];

/** The owner signs in with a new link: the passkeys' names the console lists. */
async function passkeysSignedInAnew(site: TestApp) {
  const me = new Owner(site);
  expect((await me.signIn()).statusCode).toBe(200);
  return json(await me.get("/api/admin/session"), whoAmIResponseSchema).passkeys.map((k) => k.name);
}

it("ends every session and link a backup holds, and drops the passkeys removed since", async () => {
  const dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-restore-")), "data");
  let site = await startTestApp("sqlite", { dataDir, env });
  const laptop = new Owner(site);
  expect((await laptop.signIn()).statusCode).toBe(200);
  const insert =
    "insert into owner_passkeys (id, name, public_key, counter, transports, created_at) values (?, ?, ?, ?, ?, ?)";
  await runSql(site, insert, passkey("lost-key", "Laptop"));
  await runSql(site, insert, passkey("kept-key", "Phone"));
  const backup = path.join(path.dirname(dataDir), "backup.sqlite");
  expect((await admin(adminEnv(site), "backup", "--out", backup)).code).toBe(0);

  const stolen = laptop.cookie;
  // Since the backup, the laptop is stolen: its passkey removed, every session ended.
  expect((await laptop.delete("/api/admin/passkeys/lost-key")).statusCode).toBe(204);
  expect((await admin(adminEnv(site), "sessions", "revoke", "--all")).code).toBe(0);
  expect((await laptop.get("/api/admin/session")).statusCode).toBe(401);
  await site.close();

  // And the backup was tampered with: a link and a session whose tokens the tamperer knows.
  const link = newToken();
  const planted = newToken();
  const file = new DatabaseSync(backup);
  file
    .prepare(
      "insert into owner_sign_in_links (token_hash, channel, created_at, expires_at) values (?, 'cli', ?, '2999-01-01T00:00:00.000Z')",
    )
    .run(tokenDigest(link), new Date().toISOString());
  file
    .prepare(
      "insert into owner_sessions (id, token_hash, method, created_at, last_seen_at, device) values ('abc123', ?, 'link', '2999-01-01T00:00:00.000Z', '2999-01-01T00:00:00.000Z', 'x')",
    )
    .run(tokenDigest(planted));
  file.close();

  const run = await admin(adminEnv(site), "restore", "--from", backup);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain(
    "The console's sessions and sign-in links the backup holds are ended: sign in again, with a passkey or `npm run admin -- login`.",
  );
  expect(run.stdout).toContain(
    "1 passkey the backup holds is not in the database it replaced (removed since, or another site's): removed:\n  Laptop\n",
  );

  site = await startTestApp("sqlite", { dataDir, env });
  const thief = new Owner(site);
  thief.cookie = stolen;
  try {
    expect((await thief.get("/api/admin/session")).statusCode).toBe(401);
    const tamperer = new Owner(site);
    tamperer.cookie = `ewe_owner=${planted}`;
    expect((await tamperer.get("/api/admin/session")).statusCode).toBe(401);
    expect((await tamperer.post("/api/admin/sign-in", { token: link })).statusCode).toBe(410);
    expect(await passkeysSignedInAnew(site)).toEqual(["Phone"]);
  } finally {
    await site.close();
  }
});

it("into a new data folder ends the backup's sessions and links, and names the passkeys it keeps", async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "ewe-restore-new-"));
  const site = await startTestApp("sqlite", { dataDir: path.join(root, "old"), env });
  const laptop = new Owner(site);
  let link: string;
  const backup = path.join(root, "backup.sqlite");
  try {
    expect((await laptop.signIn()).statusCode).toBe(200);
    const insert =
      "insert into owner_passkeys (id, name, public_key, counter, transports, created_at) values (?, ?, ?, ?, ?, ?)";
    await runSql(site, insert, passkey("phone-key", "Phone"));
    // A link handed out and not yet used when the backup is taken.
    const login = await admin(adminEnv(site), "login");
    link = linkToken(login.stdout);
    expect((await admin(adminEnv(site), "backup", "--out", backup)).code).toBe(0);
  } finally {
    await site.close();
  }

  // The old machine is gone: the backup goes into a new, empty data folder.
  const dataDir = path.join(root, "new");
  const into = { ...adminEnv(site), DATA_DIR: dataDir };
  const run = await admin(into, "restore", "--from", backup);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).not.toContain("kept as");
  expect(run.stdout).toContain(
    "The console's sessions and sign-in links the backup holds are ended: sign in again, with a passkey or `npm run admin -- login`.",
  );
  expect(run.stdout).toMatch(
    /\n1 passkey the backup holds is kept with nothing to check it against: once signed in, remove under "Sign-in and passkeys" any you removed since the backup or do not know:\n {2}Phone {2}added \d{4}-\d\d-\d\dT[\d:.]+Z\n/,
  );

  const restored = await startTestApp("sqlite", { dataDir, env });
  try {
    const thief = new Owner(restored);
    thief.cookie = laptop.cookie;
    expect((await thief.get("/api/admin/session")).statusCode).toBe(401);
    expect((await new Owner(restored).post("/api/admin/sign-in", { token: link })).statusCode).toBe(
      410,
    );
    expect(await passkeysSignedInAnew(restored)).toEqual(["Phone"]);
  } finally {
    await restored.close();
  }
});
