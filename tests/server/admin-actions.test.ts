import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema } from "../../contract/api.ts";
import { type AdminRun, admin, adminAt, adminEnv } from "./support/admin.ts";
import { confirmedSubscriber } from "./support/newsletter.ts";
import { backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The owner's command line as an owner meets it (docs/command-line.md): every
 * action it takes is in the audit trail, sending an edition asks
 * first, each group of commands explains itself, and mistakes get plain words.
 */

const scratch = () => mkdtempSync(path.join(os.tmpdir(), "ewe-admin-actions-"));

/** `admin` with an answer ready for the question `newsletter send` asks at a terminal. */
async function answering(
  answer: boolean,
  env: Record<string, string>,
  ...argv: string[]
): Promise<AdminRun & { asked: string[] }> {
  const asked: string[] = [];
  const run = await adminAt(
    {
      env,
      confirm: async (question) => {
        asked.push(question);
        return answer;
      },
    },
    argv,
  );
  return { ...run, asked };
}

describe("the command line's help and messages", () => {
  const env = { NODE_ENV: "test", DATA_DIR: scratch() };

  it.each([
    ["subscribers", ["subscribers list", "subscribers export", "subscribers remove"]],
    [
      "newsletter",
      ["newsletter preview", "newsletter send", "newsletter cancel", "newsletter status"],
    ],
    ["comments", ["comments list", "comments pending", "comments approve", "comments reject"]],
    ["visitor", ["visitor ban", "visitor unban", "visitor bans", "visitor purge"]],
    ["sessions", ["sessions list", "sessions revoke"]],
    ["passkeys", ["passkeys list", "passkeys remove"]],
  ])("explains the group %s with --help, help, or the group's name alone", async (group, names) => {
    const flag = await admin(env, group, "--help");
    expect(flag.code).toBe(0);
    expect(flag.stderr).toBe("");
    for (const name of names) expect(flag.stdout).toContain(name);
    expect(flag.stdout).toContain(`"npm run admin -- ${group} <command> --help"`);
    expect((await admin(env, "help", group)).stdout).toBe(flag.stdout);
    const bare = await admin(env, group);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toBe(flag.stdout);
    const unknown = await admin(env, group, "erase");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`Unknown command "${group} erase"`);
    expect(unknown.stderr).toContain(names[0]);
  });

  it.each([
    [
      ["visitor", "ban", "--comment", "1", "--days", "-3"],
      '--days must be a whole number of days from 1 to 3650, not "-3".',
    ],
    [
      ["visitor", "ban", "--comment", "1", "--days=-3"],
      '--days must be a whole number of days from 1 to 3650, not "-3".',
    ],
    // The longest ban the console's API takes, and not a day more.
    [
      ["visitor", "ban", "--comment", "1", "--days", "3651"],
      '--days must be a whole number of days from 1 to 3650, not "3651".',
    ],
    // Digits only, as for ids: 1e2 or 0x10 are no number of days by accident.
    ...["1e2", "0x10", " 30"].map((days) => [
      ["spam", "stats", "--days", days],
      `--days must be a whole number of days from 1 to 3650, not "${days}".`,
    ]),
    ...["-1", "0", "010", "0x10", "1e1", " 16", "2147483648"].map((id) => [
      ["visitor", "ban", "--comment", id],
      `--comment must be a positive whole number, in digits without a leading zero, not "${id}".`,
    ]),
    [["visitor", "ban", "--comment"], "--comment needs a value"],
    [["stats", "--verbose"], "stats has no option --verbose"],
  ])("answers %j in plain words, without Node's own text", async (argv, message) => {
    const run = await admin(env, ...argv);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toMatch(/ambiguous|parseArgs|ERR_|Did you forget/);
  });
});

describe("backups and posts that are not there", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite");
  });
  afterAll(async () => {
    await t?.close();
  });

  it("names the missing folder of a backup, and leaves no file behind", async () => {
    const folder = path.join(scratch(), "no-such-folder");
    const run = await admin(adminEnv(t), "backup", "--out", path.join(folder, "b.sqlite"));
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`There is no folder ${folder}: create it first, or choose another.\n`);
    expect(run.stderr).not.toContain("partial");
    expect(existsSync(folder)).toBe(false);
  });

  it("says there is no such post or service instead of listing nothing", async () => {
    const run = await admin(adminEnv(t), "comments", "list", "--post", "nosuch");
    expect(run.code).toBe(3);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain('There is no science post "nosuch"');
    expect((await admin(adminEnv(t), "comments", "list", "--post", "soap")).code).toBe(0);
    const service = await admin(adminEnv(t), "enquiries", "list", "--service", "nosuch");
    expect(service.code).toBe(3);
    expect(service.stderr).toContain('There is no service "nosuch"');
    expect((await admin(adminEnv(t), "enquiries", "list", "--service", "dfmea")).code).toBe(0);
  });
});

describe("counts in words", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite", { env: { COMMENT_MIN_SECONDS: "0" } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("writes one subscriber, one enquiry and one day in the singular", async () => {
    await confirmedSubscriber(t, "only@example.com");
    const out = scratch();
    const subscribers = await admin(
      adminEnv(t),
      "subscribers",
      "export",
      "--out",
      path.join(out, "s.csv"),
    );
    expect(subscribers.stderr).toContain("Wrote 1 subscriber to");
    const asked = await t.visitor().post("/api/enquiries", {
      name: "Only Client",
      email: "client@example.org",
      service: "vba-tools",
      message: "We need an Excel tool that merges our test bench's CSV files.",
    });
    expect(asked.statusCode, asked.body).toBe(201);
    const enquiries = await admin(
      adminEnv(t),
      "enquiries",
      "export",
      "--out",
      path.join(out, "e.csv"),
    );
    expect(enquiries.stderr).toContain("Wrote 1 enquiry to");

    const comment = json(
      await t.visitor().comment("wifi", "Does rain slow Wi-Fi?", "Mira"),
      commentResponseSchema,
    );
    const id = String(comment.comment.id);
    expect((await admin(adminEnv(t), "visitor", "ban", "--comment", id, "--days", "1")).code).toBe(
      0,
    );
    const [ban, enquiriesLine, subscribersLine] = JSON.parse(
      (await admin(adminEnv(t), "audit", "--json")).stdout,
    ) as { action: string; object: string }[];
    expect(ban).toMatchObject({ action: "visitor ban", object: `comment ${id}, browser, 1 day` });
    expect(enquiriesLine).toMatchObject({ action: "enquiries export", object: "1 enquiry" });
    expect(subscribersLine).toMatchObject({ action: "subscribers export", object: "1 address" });
    expect((await admin(adminEnv(t), "spam", "stats", "--days", "1")).stdout).toContain(
      "New comments in the last 1 day:",
    );
  });
});

describe.each(backends)("the command line's actions on %s", (backend) => {
  let t: TestApp;
  let env: Record<string, string>;
  let edition: string;
  beforeAll(async () => {
    t = await startTestApp(backend, { env: { MODERATION: "all" } });
    env = adminEnv(t);
    const editions = scratch();
    edition = path.join(editions, "2026-12-brakes.md");
    writeFileSync(
      edition,
      "---\nsubject: Brakes in December\n---\nRegenerative braking, **simply**.\n",
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  const auditActions = async () =>
    JSON.parse((await admin(env, "audit", "--json")).stdout) as {
      action: string;
      object: string | null;
      sessionId: string | null;
    }[];

  it("asks before sending an edition to everyone, or needs --yes without a terminal", async () => {
    await confirmedSubscriber(t, "reader@example.com");
    const refused = await admin(env, "newsletter", "send", edition);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--yes");
    expect(refused.stderr).toContain("1 confirmed subscriber");
    expect((await admin(env, "newsletter", "status")).stdout).toBe(
      "No edition has been queued yet.\n",
    );

    const declined = await answering(false, env, "newsletter", "send", edition);
    expect(declined.asked).toEqual([
      'Send "Brakes in December" (2026-12-brakes) to 1 confirmed subscriber now?',
    ]);
    expect(declined.code).toBe(1);
    expect(declined.stderr).toContain("Nothing was sent.");
    expect((await admin(env, "newsletter", "status")).stdout).toBe(
      "No edition has been queued yet.\n",
    );

    const accepted = await answering(true, env, "newsletter", "send", edition);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain("Queued 2026-12-brakes");
    // Sent before, it asks about those who have not had it, not about everyone.
    const resend = await answering(false, env, "newsletter", "send", edition);
    expect(resend.asked).toEqual([
      'Send "Brakes in December" (2026-12-brakes) to those of 1 confirmed subscriber who have not had it yet, now?',
    ]);
    const again = await admin(env, "newsletter", "send", edition, "--yes");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("for 0 subscribers");
  });

  it("writes every action to the audit trail", async () => {
    const visitor = t.visitor();
    const held = async (text: string) =>
      String(json(await visitor.comment("wifi", text, "Mira"), commentResponseSchema).comment.id);
    const approveId = await held("How far does Wi-Fi reach through brick?");
    const rejectId = await held("Cheap routers here");
    const deleteId = await held("Another one to delete");
    const spamId = await held("Does a router reach further up on a shelf?");
    await confirmedSubscriber(t, "leaving@example.com");
    const out = scratch();
    const before = (await auditActions()).length;

    const runs: [string, string[]][] = [
      ["comment approve", ["comments", "approve", approveId]],
      ["comment reject", ["comments", "reject", rejectId]],
      ["visitor ban", ["visitor", "ban", "--comment", approveId, "--days", "3"]],
      ["visitor unban", ["visitor", "unban", "--comment", approveId]],
      ["comment delete", ["comments", "delete", deleteId]],
      ["comment spam", ["comments", "spam", spamId]],
      ["newsletter test", ["newsletter", "send", edition, "--test", "me@example.com"]],
      ["newsletter send", ["newsletter", "send", edition, "--yes"]],
      ["subscribers export", ["subscribers", "export", "--out", path.join(out, "s.csv")]],
      ["subscriber remove", ["subscribers", "remove", "leaving@example.com"]],
      ["visitor purge", ["visitor", "purge", "--comment", approveId]],
      ["sign-in link", ["login"]],
      ["session revoke", ["sessions", "revoke", "--all"]],
      ["export", ["export", "--out", path.join(out, "export.json")]],
    ];
    if (backend === "sqlite")
      runs.push(["backup", ["backup", "--out", path.join(out, "b.sqlite")]]);
    for (const [, argv] of runs) {
      const run = await admin(env, ...argv);
      expect(run.code, `${argv.join(" ")}: ${run.stderr}`).toBe(0);
    }
    const trail = await auditActions();
    const entries = trail.slice(0, trail.length - before).reverse();
    expect(entries.map((e) => e.action)).toEqual(runs.map(([action]) => action));
    expect(entries.every((e) => e.sessionId === null)).toBe(true);
    expect(entries.find((e) => e.action === "visitor ban")?.object).toBe(
      `comment ${approveId}, browser, 3 days`,
    );
    expect(entries.find((e) => e.action === "newsletter send")?.object).toMatch(
      /^2026-12-brakes \(\d+ queued\)$/,
    );
    expect(entries.find((e) => e.action === "export")?.object).toBe(path.join(out, "export.json"));
    expect(readdirSync(path.join(t.dataDir, "outbox")).length).toBeGreaterThan(0);
  });

  it.runIf(backend === "sqlite")(
    "writes a restore to the audit trail of the database it restores",
    async () => {
      // A restore needs the server stopped: a site of its own, backed up, stopped, restored.
      const dataDir = path.join(scratch(), "data");
      const site = await startTestApp("sqlite", { dataDir });
      const backup = path.join(scratch(), "b.sqlite");
      try {
        expect((await admin(adminEnv(site), "backup", "--out", backup)).code).toBe(0);
      } finally {
        await site.close();
      }
      const restore = await admin(adminEnv(site), "restore", "--from", backup);
      expect(restore.code, restore.stderr).toBe(0);
      const trail = JSON.parse((await admin(adminEnv(site), "audit", "--json")).stdout) as {
        action: string;
        object: string | null;
        sessionId: string | null;
      }[];
      expect(trail[0]).toMatchObject({ action: "restore", object: backup, sessionId: null });
    },
  );

  it("records nothing when an action finds nothing to act on, or an export cannot be written", async () => {
    const before = (await auditActions()).length;
    expect((await admin(env, "comments", "approve", "999999")).code).toBe(3);
    expect((await admin(env, "visitor", "unban", "--ban", "999999")).code).toBe(3);
    const missing = path.join(scratch(), "missing");
    const refusedFolder = `There is no folder ${missing}: create it first, or choose another.\n`;
    for (const argv of [
      ["subscribers", "export", "--out", path.join(missing, "list.csv")],
      ["enquiries", "export", "--out", path.join(missing, "list.csv")],
      ["export", "--out", path.join(missing, "export.json")],
      ["newsletter", "preview", edition, "--out", path.join(missing, "preview.html")],
    ]) {
      const run = await admin(env, ...argv);
      expect(run.code, argv.join(" ")).toBe(1);
      expect(run.stderr, argv.join(" ")).toBe(refusedFolder);
    }
    expect(existsSync(missing)).toBe(false);
    const folder = scratch();
    const intoFolder = await admin(env, "enquiries", "export", "--out", folder);
    expect(intoFolder.code).toBe(1);
    expect(intoFolder.stderr).toContain(
      `Cannot write ${folder}: it is a folder; name a file in it.`,
    );
    const status = (await admin(env, "newsletter", "status")).stdout;
    const sendFolder = await admin(env, "newsletter", "send", folder, "--yes");
    expect(sendFolder.code).toBe(3);
    expect(sendFolder.stderr).toBe(`${folder} is a folder: name the edition's .md file in it.\n`);
    const noFile = path.join(folder, "2026-12-none.md");
    for (const command of [["send", "--yes"], ["preview"]]) {
      const run = await admin(env, "newsletter", command[0] ?? "", noFile, ...command.slice(1));
      expect(run.code, command.join(" ")).toBe(3);
      expect(run.stderr, command.join(" ")).toBe(`There is no file ${noFile}.\n`);
    }
    expect((await admin(env, "newsletter", "status")).stdout).toBe(status);
    expect((await auditActions()).length).toBe(before);
  });
});
