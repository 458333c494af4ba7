import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import { editionsResponseSchema, scheduledResponseSchema } from "../../contract/console.ts";
import { suppressionsResponseSchema } from "../../contract/list-pages.ts";
import { openStore } from "../../server/db/store.ts";
import { createEditionsRepository } from "../../server/newsletter/editions-repository.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { fuzzer, fuzzSeed } from "./support/fuzz.ts";
import { auditLines, copies, dueIn, editionFile, inMs, recipients } from "./support/newsletter.ts";
import { Owner } from "./support/owner.ts";
import { header, type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { refuseAuditLines, runSql, seedConfirmed, seedSuppressed } from "./support/sql.ts";
import { backends, capturedLogs, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * Test first, send later (docs/mail.md, "A test copy", "Sending later"): a
 * test copy says it is one and counts nowhere; a scheduled edition goes at
 * its time, once, to every confirmed subscriber then, whatever instances run
 * or are killed; until it starts it can be cancelled.
 */

const status = async (env: Record<string, string>) =>
  JSON.parse((await admin(env, "newsletter", "status", "--json")).stdout) as {
    editions: { slug: string; sent: number; queued: number }[];
    scheduled: { slug: string; sendAt: string; started: boolean }[];
  };

describe.each(backends)("test copies and scheduled editions on %s", (backend) => {
  let t: TestApp;
  let smtp: SmtpSink;
  const logs = capturedLogs("warn");
  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp(backend, {
      env: { SMTP_URL: smtp.url, MAIL_RATE_PER_MINUTE: "0" },
      // Looked for as often as the outbox: a test waits out no 5 s poll.
      scheduleEveryMs: 200,
      logger: logs.logger,
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it("names the file a test copy was written to when SMTP_URL is not set", async () => {
    const file = editionFile("tested-on-disk");
    const run = await admin(adminEnv(t), "newsletter", "send", file, "--test", "me@example.com");
    expect(run.code, run.stderr).toBe(0);
    const written = /Wrote the test copy to (\S+\.eml) \(SMTP_URL is not set\)/.exec(
      run.stdout,
    )?.[1];
    expect(written, run.stdout).toContain(path.join(t.dataDir, "outbox"));
    expect(readFileSync(written!, "utf8")).toContain("[Test] Edition tested-on-disk");
  });

  /** Schedules the edition `slug` an hour from now, from the command line. */
  const scheduleInAnHour = async (slug: string) => {
    const run = await admin(
      adminEnv(t),
      ...["newsletter", "send", editionFile(slug), "--at", inMs(3600_000), "--yes"],
    );
    expect(run.code, run.stderr).toBe(0);
  };

  it("sends a test copy that says so, in no figure, and the edition still goes to everyone", async () => {
    const readers = recipients(2, `tested-${backend}`);
    await seedConfirmed(t, readers);
    const file = editionFile("tested-first");
    const env = { ...adminEnv(t), SMTP_URL: smtp.url };
    const me = `owner-${backend}@example.com`;
    const run = await admin(env, "newsletter", "send", file, "--test", me);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Sent a test copy of tested-first to ${me}.`);
    await smtp.waitFor(() => smtp.to(me).length === 1);
    const [copy] = smtp.to(me);
    expect(header(copy!, "Subject")).toBe("[Test] Edition tested-first");
    const note = "This is a test copy, sent to you alone";
    expect(copy!.parsed.text).toContain(note);
    expect(String(copy!.parsed.html)).toContain(note);

    // Counted nowhere, and nothing stored: the edition is still to be sent.
    expect(JSON.parse((await admin(env, "newsletter", "stats", "--json")).stdout)).toEqual([]);
    expect((await status(env)).editions).toEqual([]);
    const sent = await admin(env, "newsletter", "send", file, "--yes");
    expect(sent.stdout).toBe(`Queued tested-first ("Edition tested-first") for 2 subscribers.\n`);
    await smtp.waitFor(() => copies(smtp, "Edition tested-first").size === 2);
    expect(smtp.to(me)).toHaveLength(1);

    // Changed under the name it went out with, it is refused now or later: readers have the old text.
    const changed = editionFile("tested-first", "Changed after it went out.");
    for (const when of [[], ["--at", inMs(3600_000)]]) {
      const refused = await admin(env, "newsletter", "send", changed, ...when, "--yes");
      expect(refused.code, refused.stdout).toBe(1);
      expect(refused.stderr).toContain(
        'The edition "tested-first" was queued before with other content; give the changed edition a new file name.',
      );
    }
    expect((await status(env)).scheduled).toEqual([]);

    expect((await admin(env, "newsletter", "send", file, "--test", "nobody")).code).toBe(2);
  });

  it("sends a scheduled edition at its time, once to each subscriber, and writes it in the trail once", async () => {
    const readers = recipients(3, `later-${backend}`);
    await seedConfirmed(t, readers);
    const at = inMs(3600_000);
    const run = await admin(adminEnv(t), "newsletter", "send", editionFile("later"), "--at", at);
    // Without a terminal to ask, it needs --yes.
    expect(run.code).toBe(2);
    const scheduled = await admin(
      adminEnv(t),
      "newsletter",
      "send",
      editionFile("later"),
      "--at",
      at,
      "--yes",
    );
    expect(scheduled.code, scheduled.stderr).toBe(0);
    expect(scheduled.stdout).toContain(`Scheduled later ("Edition later") for ${at}.`);
    expect((await status(adminEnv(t))).scheduled).toEqual([
      { slug: "later", sendAt: at, started: false },
    ]);
    expect(copies(smtp, "Edition later").size).toBe(0);
    const due = await dueIn(t, "later", 1000);

    await smtp.waitFor(
      () => readers.every((reader) => copies(smtp, "Edition later").has(reader)),
      30_000,
    );
    const counts = copies(smtp, "Edition later");
    // Everyone confirmed at the time, once each, none before it.
    expect(readers.filter((reader) => counts.get(reader) !== 1)).toEqual([]);
    for (const mail of smtp.received.filter((m) => header(m, "Subject") === "Edition later")) {
      expect(mail.receivedAt).toBeGreaterThanOrEqual(Date.parse(due));
    }
    await expect.poll(async () => (await status(adminEnv(t))).scheduled).toEqual([]);
    expect(await auditLines(t, "newsletter schedule")).toEqual([`later at ${at}`]);
    expect(await auditLines(t, "newsletter scheduled send")).toEqual([
      expect.stringMatching(/^later \(\d+ queued\)$/),
    ]);
  });

  it("writes the edition's copies in all in the trail when it finishes what an instance whose lease ran out began", async () => {
    const slug = "taken-over";
    const first = recipients(3, `taken-first-${backend}`);
    await seedConfirmed(t, first);
    const env = adminEnv(t);
    await scheduleInAnHour(slug);
    // Another instance claimed it and queued its first page, then stopped renewing its lease.
    const [edition] = await runSql(t, "select id from editions where slug = ?", [slug]);
    const store = await openStore(
      t.databaseUrl
        ? { kind: "postgres", connectionString: t.databaseUrl }
        : { kind: "sqlite", file: path.join(t.dataDir, "engage.sqlite") },
    );
    const before = await createEditionsRepository(store, async () => 0)
      .queueEdition(Number(edition?.id))
      .finally(() => store.close());
    const later = recipients(2, `taken-later-${backend}`);
    await seedConfirmed(t, later);
    const ranOut = inMs(-1000);
    await runSql(
      t,
      "update edition_schedules set send_at = ?, started_at = ?, claimed_until = ? where edition_id = ?",
      [ranOut, ranOut, ranOut, Number(edition?.id)],
    );

    // This instance takes the claim over and queues the rest, once each: every
    // confirmed reader's copy arrives (earlier tests' readers among them).
    await smtp.waitFor(
      () =>
        copies(smtp, `Edition ${slug}`).size >= before + later.length &&
        [...first, ...later].every((reader) => copies(smtp, `Edition ${slug}`).has(reader)),
      30_000,
    );
    const counts = copies(smtp, `Edition ${slug}`);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    await expect.poll(async () => (await status(env)).scheduled).toEqual([]);
    const lines = await auditLines(t, "newsletter scheduled send");
    expect(lines.filter((line) => String(line).startsWith(slug))).toEqual([
      `${slug} (${before + later.length} queued)`,
    ]);
    expect(counts.size).toBe(before + later.length);
  });

  it("ends a scheduled edition with its line: open while the line is refused, then ended with it once", async () => {
    const slug = "audited-later";
    const readers = recipients(2, `audited-${backend}`);
    await seedConfirmed(t, readers);
    const env = adminEnv(t);
    await scheduleInAnHour(slug);
    const refused = () =>
      logs.lines.some(
        (line) =>
          line.msg === "scheduled editions could not be looked at" &&
          /no.audit/.test(String((line.err as { message?: unknown } | undefined)?.message)),
      );
    const allow = await refuseAuditLines(t);
    try {
      await dueIn(t, slug, 0);
      await expect.poll(refused, { timeout: 20_000 }).toBe(true);
      // Its copies are queued page by page, as `newsletter send`'s are, and go out; the
      // schedule does not end without its line.
      await smtp.waitFor(() => readers.every((r) => copies(smtp, `Edition ${slug}`).has(r)));
      expect((await status(env)).scheduled).toEqual([
        { slug, sendAt: expect.any(String), started: true },
      ]);
      expect(await auditLines(t, "newsletter scheduled send")).not.toContainEqual(
        expect.stringContaining(slug),
      );
    } finally {
      await allow();
    }
    // Once this instance's lease has run out, the edition is claimed again and ends with one line.
    await runSql(
      t,
      "update edition_schedules set claimed_until = ? where edition_id = (select id from editions where slug = ?)",
      [inMs(-1000), slug],
    );
    await expect.poll(async () => (await status(env)).scheduled).toEqual([]);
    const [{ n }] = (await runSql(
      t,
      "select count(*) as n from outbox where edition_id = (select id from editions where slug = ?)",
      [slug],
    )) as [{ n: unknown }];
    expect(
      (await auditLines(t, "newsletter scheduled send")).filter((line) =>
        String(line).startsWith(`${slug} `),
      ),
    ).toEqual([`${slug} (${Number(n)} queued)`]);
    expect([...copies(smtp, `Edition ${slug}`).values()].every((count) => count === 1)).toBe(true);
  });

  it("cancels a schedule until it starts, and refuses times it cannot keep", async () => {
    const env = adminEnv(t);
    const file = editionFile("not-yet");
    const later = inMs(3600_000);
    expect((await admin(env, "newsletter", "send", file, "--at", later, "--yes")).code).toBe(0);
    const cancelled = await admin(env, "newsletter", "cancel", "not-yet");
    expect(cancelled).toMatchObject({
      code: 0,
      stdout: "Cancelled the sending of not-yet: nothing of it goes out.\n",
    });
    expect((await admin(env, "newsletter", "cancel", "not-yet")).code).toBe(3);
    expect((await status(env)).scheduled).toEqual([]);
    // An edition that went to nobody is forgotten: its file may change.
    expect(await runSql(t, "select id from editions where slug = 'not-yet'")).toEqual([]);
    const changed = editionFile("not-yet", "Changed before anyone had it.");
    expect((await admin(env, "newsletter", "send", changed, "--at", later, "--yes")).code).toBe(0);

    // Once an instance has started it, it goes out.
    await runSql(
      t,
      "update edition_schedules set started_at = ? where edition_id = (select id from editions where slug = 'not-yet')",
      [new Date().toISOString()],
    );
    const started = await admin(env, "newsletter", "cancel", "not-yet");
    expect(started).toMatchObject({ code: 1 });
    expect(started.stderr).toContain(
      "not-yet has started going out: it can no longer be cancelled.",
    );

    for (const [at, said] of [
      [inMs(-60_000), "The time has passed"],
      [new Date(Date.now() + 400 * 86_400_000).toISOString(), "more than a year away"],
      ["tomorrow at seven", "ISO 8601 time with its offset"],
      ["2026-12-08T07:00:00", "ISO 8601 time with its offset"],
    ] as const) {
      const refused = await admin(
        env,
        "newsletter",
        "send",
        editionFile("refused"),
        "--at",
        at,
        "--yes",
      );
      expect(refused.code, at).toBe(2);
      expect(refused.stderr).toContain(said);
    }
    expect(await runSql(t, "select id from editions where slug = 'refused'")).toEqual([]);
  });
});

describe("the console's schedule and suppressed addresses", () => {
  let t: TestApp;
  let owner: Owner;
  beforeAll(async () => {
    const editionsDir = mkdtempSync(path.join(os.tmpdir(), "ewe-console-later-"));
    writeFileSync(
      path.join(editionsDir, "2026-12-tuesday.md"),
      "---\nsubject: Tuesday at seven\n---\nA short one.\n",
    );
    t = await startTestApp("sqlite", { env: { EDITIONS_DIR: editionsDir } });
    owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
  });
  afterAll(() => t?.close());

  it("schedules an edition, shows its time, and cancels it; bad times are 4xx and change nothing", async () => {
    const url = "/api/admin/editions/2026-12-tuesday/schedule";
    const at = inMs(86_400_000);
    const scheduled = await owner.post(url, { at: at.replace("Z", "+00:00") });
    expect(scheduled.statusCode).toBe(202);
    expect(json(scheduled, scheduledResponseSchema)).toEqual({ sendAt: at, warnings: [] });
    const listed = json(await owner.get("/api/admin/editions"), editionsResponseSchema);
    expect(listed.editions.find((e) => e.slug === "2026-12-tuesday")?.scheduled).toEqual({
      sendAt: at,
      started: false,
    });

    for (const [body, status] of [
      [{ at: inMs(-3_600_000) }, 422],
      [{ at: "2026-12-08T07:00:00" }, 400],
      [{ at: "next Tuesday" }, 400],
      [{ at: 1765177200000 }, 400],
      [{}, 400],
      [{ at, extra: 1 }, 400],
    ] as const) {
      const refused = await owner.post(url, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(status);
    }
    expect(
      (await owner.post("/api/admin/editions/no-such-edition/schedule", { at })).statusCode,
    ).toBe(404);
    expect((await owner.post("/api/admin/editions/..%2Fsecrets/schedule", { at })).statusCode).toBe(
      400,
    );
    const still = json(await owner.get("/api/admin/editions"), editionsResponseSchema);
    expect(still.editions.find((e) => e.slug === "2026-12-tuesday")?.scheduled?.sendAt).toBe(at);

    expect((await owner.delete(url)).statusCode).toBe(204);
    expect((await owner.delete(url)).statusCode).toBe(404);
    const after = json(await owner.get("/api/admin/editions"), editionsResponseSchema);
    expect(after.editions.find((e) => e.slug === "2026-12-tuesday")).toMatchObject({
      scheduled: null,
      progress: null,
    });
  });

  it("lists suppressed addresses with the reason and date, the address only where the site holds it, and lifts one by address or id", async () => {
    const since = "2026-11-30T09:15:00.000Z";
    // Gone is still a subscriber (a bounce leaves them on the list); nothing holds Angry's address.
    await seedConfirmed(t, ["gone@example.org"]);
    await seedSuppressed(t, [
      { email: "gone@example.org", reason: "hard_bounce", createdAt: since },
      {
        email: "angry@example.net",
        reason: "complaint",
        source: "mailbox",
        createdAt: "2026-12-01T08:00:00.000Z",
      },
    ]);
    const list = json(
      await owner.post("/api/admin/suppressions/search", {}),
      suppressionsResponseSchema,
    );
    expect(list.next).toBeNull();
    expect(list.suppressions).toEqual([
      {
        id: t.addressKey("angry@example.net"),
        email: null,
        domain: "example.net",
        reason: "complaint",
        source: "mailbox",
        detail: null,
        createdAt: "2026-12-01T08:00:00.000Z",
      },
      {
        id: t.addressKey("gone@example.org"),
        email: "gone@example.org",
        domain: "example.org",
        reason: "hard_bounce",
        source: "smtp",
        detail: null,
        createdAt: since,
      },
    ]);
    const lift = (body: Record<string, unknown>) =>
      owner.post("/api/admin/suppressions/lift", body);
    expect((await lift({ email: "Gone@Example.org" })).statusCode).toBe(204);
    expect((await lift({ email: "gone@example.org" })).statusCode).toBe(404);
    for (const bad of [
      { email: "" },
      { email: 42 },
      { email: "x".repeat(300) },
      { id: "" },
      { id: "x".repeat(101) },
      { id: list.suppressions[0]?.id, email: "angry@example.net" },
      {},
    ]) {
      expect((await lift(bad)).statusCode, JSON.stringify(bad)).toBe(400);
    }
    const left = json(
      await owner.post("/api/admin/suppressions/search", {}),
      suppressionsResponseSchema,
    );
    expect(left.suppressions.map((s) => s.domain)).toEqual(["example.net"]);
    // The address no longer kept is lifted by its row's id.
    expect((await lift({ id: left.suppressions[0]?.id })).statusCode).toBe(204);
    expect((await lift({ id: left.suppressions[0]?.id })).statusCode).toBe(404);
    expect(await runSql(t, "select * from suppressions")).toEqual([]);
    await runSql(t, "delete from subscribers where email = ?", ["gone@example.org"]);
  });

  it("answers mutated calls to the test copy, the schedule and the lifting with a 4xx, never a 500", async () => {
    const seed = fuzzSeed();
    const fuzz = fuzzer(seed);
    const slug = "2026-12-tuesday";
    const calls: Array<[string, string, unknown]> = [
      ["POST", `/api/admin/editions/${slug}/test`, { to: "me@example.org" }],
      ["POST", `/api/admin/editions/${slug}/schedule`, { at: inMs(86_400_000) }],
      ["POST", "/api/admin/suppressions/lift", { email: "angry@example.org" }],
    ];
    const answered = new Set<number>();
    for (let i = 0; i < Number(process.env.FUZZ_ROUNDS ?? 40) * 2; i += 1) {
      const [method, url, body] = fuzz.pick(calls);
      const payload =
        fuzz.random() < 0.7 ? JSON.stringify(fuzz.mutate(body)) : fuzz.mangle(JSON.stringify(body));
      const target =
        fuzz.random() < 0.8
          ? url
          : url.replace(slug, encodeURIComponent(fuzz.mangle(slug).toWellFormed()));
      const response = await owner.request(method as "POST", target, payload as never, {
        "content-type": "application/json",
      });
      const what = `seed ${seed}: ${method} ${target} ${payload.slice(0, 200)}`;
      // 202: a mutation that is still a valid call (sent, or scheduled); 204: lifted.
      expect(response.statusCode, what).toBeGreaterThanOrEqual(200);
      expect(response.statusCode, what).toBeLessThan(500);
      if (response.statusCode >= 400)
        expect(json(response, errorResponseSchema).error.code, what).toEqual(expect.any(String));
      answered.add(response.statusCode);
      // Each call on the whole: cancelled again, so the next may schedule.
      if (response.statusCode === 202 && target.endsWith("/schedule")) {
        expect((await owner.delete(target)).statusCode).toBe(204);
      }
    }
    expect([...answered]).toEqual(expect.arrayContaining([400, 404]));
  });
});
