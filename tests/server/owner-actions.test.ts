import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema } from "../../contract/api.ts";
import { defaultAvailability, slotsResponseSchema } from "../../contract/bookings.ts";
import { whoAmIResponseSchema } from "../../contract/console.ts";
import { plural } from "../../contract/plural.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { confirmedSubscriber } from "./support/newsletter.ts";
import { Owner } from "./support/owner.ts";
import { lockWaiters, refuseAuditLines, runSql, seedSuppressed } from "./support/sql.ts";
import { backends, capturedLogs, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * Each of the owner's actions is one function, whether the console or the
 * command line asks for it (docs/architecture.md, "Owner actions"): done once
 * from each side, it leaves exactly one line in the audit trail, with the same
 * action and the same object, under the console's session or none.
 */

const slug = "2026-09-audited";
const dayMs = 24 * 60 * 60 * 1000;
const sessionOf = (response: { body: string }) =>
  whoAmIResponseSchema.parse(JSON.parse(response.body)).session.id;

/** What one shared action is, and how each side asks for it on `subject`. */
type SharedAction = {
  action: string;
  /** Something to act on, made anew for each side, and the object its audit line names. */
  prepare(): Promise<{ subject: string; object: string | null }>;
  console(owner: Owner, subject: string): Promise<{ statusCode: number }>;
  cli(subject: string): string[];
};

/** Things for an action to act on, each made anew by a new visitor from a new address. */
function subjects(app: () => TestApp, next: () => number) {
  /** A comment waiting for approval (MODERATION=all). */
  const heldComment = async () => {
    const sent = next();
    const posted = await app()
      .visitor({ ip: `10.8.0.${sent}` })
      .comment("soap", "Does soap work in cold water?", "Mira");
    const id = String(commentResponseSchema.parse(JSON.parse(posted.body)).comment.id);
    return { subject: id, object: id };
  };
  const enquiry = async () => {
    const sent = next();
    const email = `audited${sent}@example.org`;
    const posted = await app()
      .visitor({ ip: `10.9.0.${sent}` })
      .post("/api/enquiries", {
        name: `Client ${sent}`,
        email,
        service: "vba-tools",
        message: `We need an Excel tool that merges our test bench's CSV files (${sent}).`,
      });
    expect(posted.statusCode).toBe(201);
    const [row] = await runSql(app(), "select id from enquiries where email = ?", [email]);
    return { subject: String(row?.id), object: `enquiry ${row?.id}` };
  };

  /** A call booked at the next free time. */
  const bookedCall = async () => {
    const sent = next();
    const reader = app().visitor({ ip: `10.10.0.${sent}` });
    const { starts } = slotsResponseSchema.parse(
      JSON.parse((await reader.get("/api/bookings/slots")).body),
    );
    const email = `caller${sent}@example.org`;
    const posted = await reader.post("/api/bookings", {
      start: starts[0],
      name: `Caller ${sent}`,
      email,
      service: "vba-tools",
      note: "Our test bench writes a CSV a minute; could a macro gather them?",
      zone: "Europe/Berlin",
    });
    expect(posted.statusCode, posted.body).toBe(201);
    const [row] = await runSql(app(), "select id from bookings where email = ?", [email]);
    return { subject: String(row?.id), object: `booking ${row?.id}` };
  };
  return { heldComment, enquiry, bookedCall };
}

describe("the audit trail of the owner's actions, from the console and from the command line", () => {
  let t: TestApp;
  let owner: Owner;
  let sessionId: string;
  let edition: string;
  let sent = 0;

  beforeAll(async () => {
    const editionsDir = mkdtempSync(path.join(os.tmpdir(), "ewe-owner-actions-"));
    edition = path.join(editionsDir, `${slug}.md`);
    writeFileSync(edition, "---\nsubject: Audited in September\n---\nOne line.\n");
    t = await startTestApp("sqlite", {
      env: { EDITIONS_DIR: editionsDir, MODERATION: "all", COMMENT_MIN_SECONDS: "0" },
    });
    owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    sessionId = sessionOf(await owner.get("/api/admin/session"));
  });
  afterAll(async () => {
    await t?.close();
  });

  const trail = () => runSql(t, "select session_id, action, object from owner_audit order by id");
  const count = async (statement: string) =>
    Number((await runSql(t, statement))[0]?.n ?? Number.NaN);

  const { heldComment, enquiry, bookedCall } = subjects(
    () => t,
    () => (sent += 1),
  );

  const actions: SharedAction[] = [
    {
      action: "booking cancel",
      prepare: bookedCall,
      console: (o, id) => o.post(`/api/admin/bookings/${id}/cancel`, { message: "Sorry." }),
      cli: (id) => ["bookings", "cancel", id, "--yes", "--message", "Sorry."],
    },
    {
      action: "booking delete",
      async prepare() {
        const call = await bookedCall();
        const run = await admin(adminEnv(t), "bookings", "cancel", call.subject, "--yes");
        expect(run.code, run.stderr).toBe(0);
        return call;
      },
      console: (o, id) => o.delete(`/api/admin/bookings/${id}`),
      cli: (id) => ["bookings", "delete", id],
    },
    {
      action: "bookings availability",
      prepare: async () => ({ subject: "", object: null }),
      console: (o) =>
        o.request("PUT", "/api/admin/bookings/availability", {
          ...defaultAvailability,
          bufferMinutes: 10,
        }),
      cli: () => ["bookings", "hours", "--buffer", "5"],
    },
    {
      action: "bookings feed new",
      prepare: async () => ({ subject: "", object: null }),
      console: (o) => o.post("/api/admin/bookings/feed"),
      cli: () => ["bookings", "feed", "--new"],
    },
    {
      action: "bookings feed revoke",
      async prepare() {
        expect((await admin(adminEnv(t), "bookings", "feed", "--new")).code).toBe(0);
        return { subject: "", object: null };
      },
      console: (o) => o.delete("/api/admin/bookings/feed"),
      cli: () => ["bookings", "feed", "--revoke"],
    },
    {
      action: "newsletter send",
      // One new confirmed subscriber each time: each send queues the edition for that one.
      async prepare() {
        sent += 1;
        await confirmedSubscriber(t, `edition-reader${sent}@example.com`);
        return { subject: "", object: `${slug} (1 queued)` };
      },
      console: (o) => o.post(`/api/admin/editions/${slug}/send`),
      cli: () => ["newsletter", "send", edition, "--yes"],
    },
    {
      action: "newsletter test",
      prepare: async () => ({ subject: "", object: slug }),
      console: (o) => o.post(`/api/admin/editions/${slug}/test`, { to: "me@example.com" }),
      cli: () => ["newsletter", "send", edition, "--test", "me@example.com"],
    },
    {
      action: "newsletter schedule",
      // A new time each side, an hour or more away: the second replaces the first.
      async prepare() {
        sent += 1;
        const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + (3600 + sent) * 1000);
        return { subject: at.toISOString(), object: `${slug} at ${at.toISOString()}` };
      },
      console: (o, at) => o.post(`/api/admin/editions/${slug}/schedule`, { at }),
      cli: (at) => ["newsletter", "send", edition, "--at", at, "--yes"],
    },
    {
      action: "newsletter cancel",
      async prepare() {
        const at = new Date(Date.now() + 7200_000).toISOString();
        const run = await admin(adminEnv(t), "newsletter", "send", edition, "--at", at, "--yes");
        expect(run.code, run.stderr).toBe(0);
        return { subject: slug, object: slug };
      },
      console: (o) => o.delete(`/api/admin/editions/${slug}/schedule`),
      cli: () => ["newsletter", "cancel", slug],
    },
    {
      action: "suppression lift",
      async prepare() {
        sent += 1;
        const email = `refused${sent}@example.com`;
        await seedSuppressed(t, [{ email, reason: "hard_bounce", detail: "5.1.1 No such user" }]);
        return { subject: email, object: "1 address" };
      },
      console: (o, email) => o.post("/api/admin/suppressions/lift", { email }),
      cli: (email) => ["suppressions", "lift", email],
    },
    {
      action: "comment approve",
      prepare: heldComment,
      console: (o, id) => o.post(`/api/admin/comments/${id}/approve`),
      cli: (id) => ["comments", "approve", id],
    },
    {
      action: "comment reject",
      prepare: heldComment,
      console: (o, id) => o.post(`/api/admin/comments/${id}/reject`),
      cli: (id) => ["comments", "reject", id],
    },
    {
      action: "comment spam",
      prepare: heldComment,
      console: (o, id) => o.post(`/api/admin/comments/${id}/spam`),
      cli: (id) => ["comments", "spam", id],
    },
    {
      action: "comment delete",
      prepare: heldComment,
      console: (o, id) => o.delete(`/api/admin/comments/${id}`),
      cli: (id) => ["comments", "delete", id],
    },
    {
      action: "visitor ban",
      prepare: async () => {
        const { subject } = await heldComment();
        return { subject, object: `comment ${subject}, browser, 3 days` };
      },
      console: (o, id) => o.post(`/api/admin/comments/${id}/ban`, { days: 3 }),
      cli: (id) => ["visitor", "ban", "--comment", id, "--days", "3"],
    },
    {
      action: "visitor unban",
      async prepare() {
        const { subject } = await heldComment();
        const banned = await admin(adminEnv(t), "visitor", "ban", "--comment", subject);
        const ban = /^Ban (\d+):/.exec(banned.stdout)?.[1] ?? "";
        return { subject: ban, object: `ban ${ban}` };
      },
      console: (o, ban) => o.delete(`/api/admin/bans/${ban}`),
      cli: (ban) => ["visitor", "unban", "--ban", ban],
    },
    {
      action: "subscriber remove",
      async prepare() {
        sent += 1;
        const email = `leaving${sent}@example.com`;
        await confirmedSubscriber(t, email);
        return { subject: email, object: "1 address" };
      },
      console: (o, email) => o.post("/api/admin/subscribers/remove", { email }),
      cli: (email) => ["subscribers", "remove", email],
    },
    {
      action: "subscribers export",
      prepare: async () => ({
        subject: "",
        object: plural(
          await count("select count(*) as n from subscribers where status = 'confirmed'"),
          "address",
          "addresses",
        ),
      }),
      console: (o) => o.get("/api/admin/subscribers/export"),
      cli: () => ["subscribers", "export"],
    },
    {
      action: "enquiry closed",
      prepare: enquiry,
      console: (o, id) => o.patch(`/api/admin/enquiries/${id}`, { status: "closed" }),
      cli: (id) => ["enquiries", "close", id],
    },
    {
      action: "enquiry delete",
      prepare: enquiry,
      console: (o, id) => o.delete(`/api/admin/enquiries/${id}`),
      cli: (id) => ["enquiries", "delete", id],
    },
    {
      action: "enquiries export",
      prepare: async () => ({
        subject: "",
        object: plural(await count("select count(*) as n from enquiries"), "enquiry", "enquiries"),
      }),
      console: (o) => o.get("/api/admin/enquiries/export"),
      cli: () => ["enquiries", "export"],
    },
    {
      action: "session revoke",
      async prepare() {
        const other = new Owner(t);
        expect((await other.signIn()).statusCode).toBe(200);
        const id = sessionOf(await other.get("/api/admin/session"));
        return { subject: id, object: id };
      },
      console: (o, id) => o.delete(`/api/admin/sessions/${id}`),
      cli: (id) => ["sessions", "revoke", id],
    },
    {
      action: "passkey remove",
      async prepare() {
        sent += 1;
        const id = `lost-key-${sent}`;
        await runSql(
          t,
          "insert into owner_passkeys (id, name, public_key, counter, transports, created_at) values (?, 'Laptop', 'AAAA', 0, '[]', ?)",
          [id, new Date().toISOString()],
        );
        return { subject: id, object: id };
      },
      console: (o, id) => o.delete(`/api/admin/passkeys/${id}`),
      cli: (id) => ["passkeys", "remove", id],
    },
    {
      action: "question delete",
      async prepare() {
        sent += 1;
        await runSql(
          t,
          "insert into assistant_questions (question, known, asked_at) values (?, 1, ?)",
          [`Do you write VBA for Outlook too (${sent})?`, new Date().toISOString()],
        );
        const [row] = await runSql(t, "select max(id) as id from assistant_questions");
        return { subject: String(row?.id), object: `question ${row?.id}` };
      },
      console: (o, id) => o.delete(`/api/admin/questions/${id}`),
      cli: (id) => ["questions", "delete", id],
    },
    {
      action: "fediverse block",
      prepare: async () => {
        sent += 1;
        const host = `noisy${sent}.example.net`;
        return { subject: host, object: host };
      },
      console: (o, host) => o.post("/api/admin/fediverse/block", { target: host }),
      cli: (host) => ["fediverse", "block", host],
    },
    {
      action: "fediverse unblock",
      async prepare() {
        sent += 1;
        const host = `forgiven${sent}.example.net`;
        const run = await admin(adminEnv(t), "fediverse", "block", host);
        expect(run.code, run.stderr).toBe(0);
        return { subject: host, object: host };
      },
      console: (o, host) => o.post("/api/admin/fediverse/unblock", { target: host }),
      cli: (host) => ["fediverse", "unblock", host],
    },
    {
      action: "fediverse erase",
      prepare: async () => {
        sent += 1;
        const actor = `https://social${sent}.example.net/users/forgotten`;
        return { subject: actor, object: actor };
      },
      console: (o, actor) => o.post("/api/admin/fediverse/erase", { actor }),
      cli: (actor) => ["fediverse", "erase", actor],
    },
    ...(["approve", "remove"] as const).map((verb) => ({
      action: `webmention ${verb}`,
      async prepare() {
        sent += 1;
        const source = `https://blog${sent}.example.org/a-reply`;
        await runSql(
          t,
          `insert into webmentions (source, target, path, status, kind, received_at)
            values (?, ?, '/science/soap', 'pending', 'mention', ?)`,
          [source, `${siteUrl}/science/soap`, new Date().toISOString()],
        );
        const [row] = await runSql(t, "select id from webmentions where source = ?", [source]);
        return { subject: String(row?.id), object: String(row?.id) };
      },
      console: (o: Owner, id: string) =>
        verb === "approve"
          ? o.post(`/api/admin/webmentions/${id}/approve`)
          : o.delete(`/api/admin/webmentions/${id}`),
      cli: (id: string) => ["webmentions", verb, id],
    })),
  ];

  it.each(actions.map((a) => [a.action, a] as const))(
    "%s: one entry from the console, under its session, and one from the command line, under none",
    async (action, shared) => {
      const fromConsole = await shared.prepare();
      let before = (await trail()).length;
      const response = await shared.console(owner, fromConsole.subject);
      expect(response.statusCode, `${action} from the console`).toBeLessThan(300);
      expect((await trail()).slice(before)).toEqual([
        { session_id: sessionId, action, object: fromConsole.object },
      ]);

      const fromCli = await shared.prepare();
      before = (await trail()).length;
      const run = await admin(adminEnv(t), ...shared.cli(fromCli.subject));
      expect(run.code, `${action} from the command line: ${run.stderr}`).toBe(0);
      expect((await trail()).slice(before)).toEqual([
        { session_id: null, action, object: fromCli.object },
      ]);
    },
  );
});

type ConsoleAsk = (owner: Owner, subject: string) => Promise<{ statusCode: number; body: string }>;

/**
 * One action whose change is the database's, as the console asks for it, or
 * the command line for an action only it has.
 */
type Refusable = {
  action: string;
  /** Something to act on, made anew for each try. */
  prepare(): Promise<string>;
  /** What the action changes, read before and after. */
  state(subject: string): Promise<unknown>;
} & ({ console: ConsoleAsk } | { cli(subject: string): string[] });

/*
 * An action and its line of the audit trail commit together, or neither
 * does (docs/architecture.md, "Owner actions"): while the database refuses
 * every new line, each action fails with the console's error (the command
 * line's, for its own) and changes nothing, mail included; once it takes
 * lines again, the same request works. So do the deletions the site makes by
 * itself: the hourly retention and a sender's deletion link.
 */
describe.each(backends)("an owner action whose audit line fails, on %s", (backend) => {
  let t: TestApp;
  let owner: Owner;
  let sent = 0;
  const { heldComment, enquiry, bookedCall } = subjects(
    () => t,
    () => (sent += 1),
  );
  const rows = (statement: string, params: (string | number)[] = []) =>
    runSql(t, statement, params);
  const ok = async (response: Promise<{ statusCode: number; body: string }>) =>
    expect((await response).statusCode, (await response).body).toBeLessThan(300);
  const held = async () => (await heldComment()).subject;

  const editionsDir = mkdtempSync(path.join(os.tmpdir(), "ewe-owner-actions-"));

  beforeAll(async () => {
    writeFileSync(path.join(editionsDir, `${slug}.md`), "---\nsubject: Kept\n---\nOne line.\n");
    t = await startTestApp(backend, {
      env: { EDITIONS_DIR: editionsDir, MODERATION: "all", COMMENT_MIN_SECONDS: "0" },
    });
    owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  const comment = (action: string, ask: ConsoleAsk): Refusable => ({
    action,
    prepare: held,
    console: ask,
    state: (id) => rows("select status, content from science_comments where id = ?", [id]),
  });
  const settings = () => rows("select availability, feed_token_hash from booking_settings");
  const blocked = (host: string) =>
    rows("select target from fediverse_blocks where target = ?", [host]);
  const schedules = () => rows("select edition_id, send_at from edition_schedules");
  /** A verified webmention waiting for the owner. */
  const mention = async () => {
    const source = `https://blog${sent++}.example.org/a-reply`;
    await rows(
      `insert into webmentions (source, target, path, status, kind, received_at)
        values (?, ?, '/science/soap', 'pending', 'mention', ?)`,
      [source, `${siteUrl}/science/soap`, new Date().toISOString()],
    );
    const [row] = await rows("select id from webmentions where source = ?", [source]);
    return String(row?.id);
  };

  const actions: Refusable[] = [
    {
      action: "booking cancel",
      prepare: async () => (await bookedCall()).subject,
      console: (o, id) => o.post(`/api/admin/bookings/${id}/cancel`, { message: "Sorry." }),
      state: (id) =>
        rows(
          `select status, (select count(*) from outbox where kind = 'booking_cancellation') as mails
            from bookings where id = ?`,
          [id],
        ),
    },
    {
      action: "booking delete",
      async prepare() {
        const { subject } = await bookedCall();
        await ok(owner.post(`/api/admin/bookings/${subject}/cancel`, { message: "" }));
        return subject;
      },
      console: (o, id) => o.delete(`/api/admin/bookings/${id}`),
      state: (id) => rows("select status from bookings where id = ?", [id]),
    },
    {
      action: "bookings availability",
      prepare: async () => String(sent++),
      console: (o, n) =>
        o.request("PUT", "/api/admin/bookings/availability", {
          ...defaultAvailability,
          bufferMinutes: 10 + Number(n),
        }),
      state: settings,
    },
    {
      action: "bookings feed new",
      prepare: async () => "",
      console: (o) => o.post("/api/admin/bookings/feed"),
      state: settings,
    },
    {
      action: "bookings feed revoke",
      async prepare() {
        await ok(owner.post("/api/admin/bookings/feed"));
        return "";
      },
      console: (o) => o.delete("/api/admin/bookings/feed"),
      state: settings,
    },
    {
      action: "enquiry closed",
      prepare: async () => (await enquiry()).subject,
      console: (o, id) => o.patch(`/api/admin/enquiries/${id}`, { status: "closed" }),
      state: (id) => rows("select status, kept from enquiries where id = ?", [id]),
    },
    {
      action: "enquiry answer",
      prepare: async () => (await enquiry()).subject,
      console: (o, id) => o.post(`/api/admin/enquiries/${id}/answers`, { body: "Yes, gladly." }),
      state: (id) =>
        rows(
          `select status, (select count(*) from enquiry_answers where enquiry_id = ?) as answers,
            (select count(*) from outbox where kind = 'enquiry_answer') as mails
            from enquiries where id = ?`,
          [id, id],
        ),
    },
    {
      action: "enquiry delete",
      prepare: async () => (await enquiry()).subject,
      console: (o, id) => o.delete(`/api/admin/enquiries/${id}`),
      state: (id) => rows("select status from enquiries where id = ?", [id]),
    },
    comment("comment approve", (o, id) => o.post(`/api/admin/comments/${id}/approve`)),
    comment("comment reject", (o, id) => o.post(`/api/admin/comments/${id}/reject`)),
    comment("comment spam", (o, id) => o.post(`/api/admin/comments/${id}/spam`)),
    comment("comment delete", (o, id) => o.delete(`/api/admin/comments/${id}`)),
    comment("comment edit", (o, id) =>
      o.patch(`/api/admin/comments/${id}`, { content: "Soap works in cold water too." }),
    ),
    {
      action: "visitor ban",
      prepare: held,
      console: (o, id) => o.post(`/api/admin/comments/${id}/ban`, { days: 3 }),
      state: (id) => rows("select id from bans where comment_id = ?", [id]),
    },
    {
      action: "visitor unban",
      async prepare() {
        const id = await held();
        await ok(owner.post(`/api/admin/comments/${id}/ban`, {}));
        const [ban] = await rows("select id from bans where comment_id = ?", [id]);
        return String(ban?.id);
      },
      console: (o, ban) => o.delete(`/api/admin/bans/${ban}`),
      state: (ban) => rows("select lifted_at from bans where id = ?", [ban]),
    },
    {
      action: "subscriber remove",
      async prepare() {
        const email = `leaving${sent++}@example.com`;
        await confirmedSubscriber(t, email);
        return email;
      },
      console: (o, email) => o.post("/api/admin/subscribers/remove", { email }),
      state: (email) => rows("select status from subscribers where email = ?", [email]),
    },
    {
      action: "suppression lift",
      async prepare() {
        const email = `refused${sent++}@example.com`;
        await seedSuppressed(t, [{ email, reason: "hard_bounce" }]);
        return email;
      },
      console: (o, email) => o.post("/api/admin/suppressions/lift", { email }),
      state: (email) =>
        rows("select reason from suppressions where email_hash = ?", [t.addressKey(email)]),
    },
    {
      action: "newsletter schedule",
      prepare: async () => new Date(Date.now() + (3600 + sent++) * 1000).toISOString(),
      console: (o, at) => o.post(`/api/admin/editions/${slug}/schedule`, { at }),
      state: schedules,
    },
    {
      action: "newsletter cancel",
      async prepare() {
        const at = new Date(Date.now() + 7200_000).toISOString();
        await ok(owner.post(`/api/admin/editions/${slug}/schedule`, { at }));
        return slug;
      },
      console: (o) => o.delete(`/api/admin/editions/${slug}/schedule`),
      state: schedules,
    },
    {
      action: "session revoke",
      async prepare() {
        const other = new Owner(t);
        expect((await other.signIn()).statusCode).toBe(200);
        return sessionOf(await other.get("/api/admin/session"));
      },
      console: (o, id) => o.delete(`/api/admin/sessions/${id}`),
      state: (id) => rows("select revoked_at from owner_sessions where id = ?", [id]),
    },
    {
      action: "question delete",
      async prepare() {
        await rows("insert into assistant_questions (question, known, asked_at) values (?, 1, ?)", [
          `Do you write VBA for Outlook too (${sent++})?`,
          new Date().toISOString(),
        ]);
        const [row] = await rows("select max(id) as id from assistant_questions");
        return String(row?.id);
      },
      console: (o, id) => o.delete(`/api/admin/questions/${id}`),
      state: (id) => rows("select question from assistant_questions where id = ?", [id]),
    },
    {
      action: "passkey remove",
      async prepare() {
        const id = `key${sent++}`;
        await rows(
          "insert into owner_passkeys (id, name, public_key, counter, transports, created_at) values (?, 'Laptop', 'AAAA', 0, '[]', ?)",
          [id, new Date().toISOString()],
        );
        return id;
      },
      console: (o, id) => o.delete(`/api/admin/passkeys/${id}`),
      state: (id) => rows("select name from owner_passkeys where id = ?", [id]),
    },
    {
      action: "fediverse block",
      prepare: async () => `noisy${sent++}.example.net`,
      console: (o, host) => o.post("/api/admin/fediverse/block", { target: host }),
      state: blocked,
    },
    {
      action: "fediverse unblock",
      async prepare() {
        const host = `forgiven${sent++}.example.net`;
        await ok(owner.post("/api/admin/fediverse/block", { target: host }));
        return host;
      },
      console: (o, host) => o.post("/api/admin/fediverse/unblock", { target: host }),
      state: blocked,
    },
    {
      action: "webmention approve",
      prepare: mention,
      console: (o, id) => o.post(`/api/admin/webmentions/${id}/approve`),
      state: (id) => rows("select status from webmentions where id = ?", [id]),
    },
    {
      action: "webmention remove",
      prepare: mention,
      console: (o, id) => o.delete(`/api/admin/webmentions/${id}`),
      state: (id) => rows("select status from webmentions where id = ?", [id]),
    },
    {
      // The command line's alone: the writer's comments and reactions, all or nothing.
      action: "visitor purge",
      async prepare() {
        const troll = t.visitor({ ip: `10.11.0.${sent++}` });
        const posted = await troll.comment("soap", "Soap is a scam, buy my powder.", "Troll");
        expect(posted.statusCode, posted.body).toBe(201);
        expect((await troll.react("science", "soap", "dislike")).statusCode).toBeLessThan(300);
        return String(commentResponseSchema.parse(JSON.parse(posted.body)).comment.id);
      },
      cli: (id) => ["visitor", "purge", "--comment", id],
      state: (id) =>
        rows(
          `select (select count(*) from science_comments where id = ? and deleted_at is null) as comments,
            (select count(*) from science_reactions where type = 'dislike' and visitor_id =
              (select visitor_id from science_comments where id = ?)) as reactions`,
          [id, id],
        ),
    },
    {
      // The command line's alone: no link is left that the trail does not name.
      action: "sign-in link",
      prepare: async () => "",
      cli: () => ["login"],
      state: () => rows("select count(*) as links from owner_sign_in_links"),
    },
  ];

  /** Runs `refuse` on the database, the statements that `allow` lifts it with after `during`. */
  const whileRefused = async <T>(refuse: string, allow: string, during: () => Promise<T>) => {
    await rows(refuse);
    try {
      return await during();
    } finally {
      await rows(allow);
    }
  };
  /** PostgreSQL's own refusal of every new line of the audit trail, as `error` (a condition name). */
  const auditLinesRaise = (error: string) =>
    [
      `create function refuse_line() returns trigger language plpgsql as $$ begin raise exception 'refused' using errcode = '${error}'; end $$;
        create trigger refuse_line before insert on owner_audit for each row execute function refuse_line()`,
      "drop trigger refuse_line on owner_audit; drop function refuse_line()",
    ] as const;

  it("an action that commits in parts does not say that nothing was changed when its line fails", async () => {
    const account = `https://parts${sent++}.example.net/users/noisy`;
    const allow = await refuseAuditLines(t);
    try {
      const failed = await owner.post("/api/admin/fediverse/erase", { actor: account });
      expect(failed.statusCode).toBe(500);
      expect(JSON.parse(failed.body)).toEqual({
        error: {
          code: "internal_error",
          message:
            "Something went wrong on our side. Part of it may be done already; doing it again finishes it.",
        },
      });
    } finally {
      await allow();
    }
    // Its first part, the block, had committed.
    expect(await blocked(account)).toEqual([{ target: account }]);
    // Done again, it finishes: a success, and its line is written.
    const erasedLines = () =>
      rows("select action from owner_audit where action = 'fediverse erase' and object = ?", [
        account,
      ]);
    expect(await erasedLines()).toEqual([]);
    const again = await owner.post("/api/admin/fediverse/erase", { actor: account });
    expect(again.statusCode, again.body).toBe(200);
    expect(await erasedLines()).toEqual([{ action: "fediverse erase" }]);
    // Now nothing of it is left, and it is blocked.
    expect((await owner.post("/api/admin/fediverse/erase", { actor: account })).statusCode).toBe(
      409,
    );
  });

  it("an edition's send done again after its line failed counts in its line what the failed run queued", async () => {
    const send = () => owner.post(`/api/admin/editions/${slug}/send`);
    const lines = async () =>
      (
        await rows("select object from owner_audit where action = 'newsletter send' order by id")
      ).map((row) => row.object);
    const failedSend = async () => {
      const allow = await refuseAuditLines(t, "newsletter send");
      try {
        expect((await send()).statusCode).toBe(500);
      } finally {
        await allow();
      }
    };
    // Every confirmed subscriber has had it, and the trail says so.
    await ok(send());
    await confirmedSubscriber(t, `late${sent++}@example.com`);
    await confirmedSubscriber(t, `later${sent++}@example.com`);
    await failedSend();
    const earlier = await lines();
    // Done again, from the command line, it has no one left to queue, and says and writes
    // what the failed run queued.
    const file = path.join(editionsDir, `${slug}.md`);
    const again = await admin(adminEnv(t), "newsletter", "send", file, "--yes");
    expect(again.stdout).toBe(
      `Queued ${slug} ("Kept") for 0 subscribers (sent before: only new subscribers), after 2 queued since its last send.\n`,
    );
    expect(await lines()).toEqual([...earlier, `${slug} (0 queued, 2 before)`]);
    // Once counted, they are not counted again.
    await ok(send());
    expect((await lines()).at(-1)).toBe(`${slug} (0 queued)`);

    // The console's Send after a failed one answers, as the command line says, what that one queued.
    await confirmedSubscriber(t, `latest${sent++}@example.com`);
    await failedSend();
    const resent = await send();
    expect(resent.statusCode).toBe(202);
    expect(JSON.parse(resent.body)).toMatchObject({ queued: 0, before: 1 });
    expect((await lines()).at(-1)).toBe(`${slug} (0 queued, 1 before)`);
  });

  it.runIf(backend === "postgres")(
    "on a full disk, an action that commits in parts does not say that nothing was saved or changed",
    async () => {
      const account = `https://full${sent++}.example.net/users/noisy`;
      const failed = await whileRefused(...auditLinesRaise("disk_full"), () =>
        owner.post("/api/admin/fediverse/erase", { actor: account }),
      );
      expect(failed.statusCode).toBe(503);
      expect(failed.headers["retry-after"]).toBe("300");
      expect(JSON.parse(failed.body).error.message).toBe(
        "The site cannot save anything right now; try again in a few minutes. Part of it may be done already; doing it again finishes it.",
      );
      expect(await blocked(account)).toEqual([{ target: account }]);

      // So does an edition's send, whose copies were queued before its line.
      await confirmedSubscriber(t, `reader${sent++}@example.com`);
      const copies = async () =>
        Number((await rows("select count(*) as n from outbox where kind = 'edition'"))[0]?.n);
      const before = await copies();
      const send = () => owner.post(`/api/admin/editions/${slug}/send`);
      const unsent = await whileRefused(...auditLinesRaise("disk_full"), send);
      expect(unsent.statusCode).toBe(503);
      expect(JSON.parse(unsent.body).error.message).toMatch(/Part of it may be done already/);
      expect(await copies()).toBeGreaterThan(before);

      // An action in one transaction still says, truly, that nothing was saved or changed.
      const host = `whole${sent++}.example.net`;
      const whole = await whileRefused(...auditLinesRaise("disk_full"), () =>
        owner.post("/api/admin/fediverse/block", { target: host }),
      );
      expect(whole.statusCode).toBe(503);
      expect(JSON.parse(whole.body).error.message).toBe(
        "The site cannot save anything right now, so nothing was saved or changed; try again in a few minutes.",
      );
      expect(await blocked(host)).toEqual([]);
    },
  );

  it.runIf(backend === "postgres")(
    "a connection lost at an action's COMMIT does not say that nothing was changed",
    async () => {
      const host = `lost${sent++}.example.net`;
      // At the COMMIT, the server ends the action's own connection.
      const failed = await whileRefused(
        `create function lose_commit() returns trigger language plpgsql as $$ begin perform pg_terminate_backend(pg_backend_pid()); return null; end $$;
          create constraint trigger lose_commit after insert on owner_audit deferrable initially deferred for each row execute function lose_commit()`,
        "drop trigger lose_commit on owner_audit; drop function lose_commit()",
        () => owner.post("/api/admin/fediverse/block", { target: host }),
      );
      expect(failed.statusCode).toBe(503);
      expect(JSON.parse(failed.body).error.message).toBe(
        "The site's database cannot be reached right now; try again in a minute. It may or may not have been saved: the connection to the database was lost as it saved; look before you try again.",
      );
      await ok(owner.post("/api/admin/fediverse/block", { target: host }));
      expect(await blocked(host)).toEqual([{ target: host }]);
    },
  );

  it("the owner's comment from a page is not kept when its line fails, so sending it again posts it once", async () => {
    const content = `Said once, ${sent++}.`;
    const kept = async () =>
      Number(
        (await rows("select count(*) as n from science_comments where content = ?", [content]))[0]
          ?.n,
      );
    const post = () => owner.post("/api/items/science/soap/comments", { content, userName: "Me" });
    const allow = await refuseAuditLines(t);
    try {
      const failed = await post();
      expect(failed.statusCode).toBe(500);
      expect(JSON.parse(failed.body).error.message).toBe(
        "Something went wrong on our side. Nothing was changed; try again.",
      );
    } finally {
      await allow();
    }
    expect(await kept()).toBe(0);
    if (backend === "postgres") {
      // A full disk says nothing was saved or changed: now true.
      const full = await whileRefused(...auditLinesRaise("disk_full"), post);
      expect(full.statusCode).toBe(503);
      expect(JSON.parse(full.body).error.message).toBe(
        "The site cannot save anything right now, so nothing was saved or changed; try again in a few minutes.",
      );
      expect(await kept()).toBe(0);
    }
    expect((await post()).statusCode).toBe(201);
    expect(await kept()).toBe(1);
  });

  it.runIf(backend === "postgres")(
    "a newsletter link and the enquiry form whose COMMIT was lost do not say that nothing was changed",
    async () => {
      /** At the COMMIT of a write to `table`, the server ends that write's own connection. */
      const loseCommitOn = (table: string, event: string) =>
        [
          `create function lose_commit() returns trigger language plpgsql as $$ begin perform pg_terminate_backend(pg_backend_pid()); return null; end $$;
            create constraint trigger lose_commit after ${event} on ${table} deferrable initially deferred for each row execute function lose_commit()`,
          `drop trigger lose_commit on ${table}; drop function lose_commit()`,
        ] as const;
      const form = (url: string, fields: Record<string, string> = {}) =>
        t.app.inject({
          method: "POST",
          url,
          remoteAddress: `10.14.0.${sent++}`,
          headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
          payload: new URLSearchParams(fields).toString(),
        });
      const heading = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];

      const email = `lost${sent++}@example.com`;
      await confirmedSubscriber(t, email);
      const [row] = await rows("select unsubscribe_token from subscribers where email = ?", [
        email,
      ]);
      const unsubscribe = () =>
        form(`/unsubscribe?token=${t.links.tokenOf(String(row?.unsubscribe_token))}`);
      const lost = await whileRefused(...loseCommitOn("subscribers", "delete"), unsubscribe);
      expect(lost.statusCode).toBe(503);
      expect(heading(lost.body)).toBe("It may or may not have been done");
      expect(lost.body).not.toContain("Nothing was changed");
      expect(heading((await unsubscribe()).body)).toBe("Unsubscribed");

      const enquiry = {
        name: "Lost Client",
        email: `client${sent++}@example.org`,
        service: "vba-tools",
        message: "We need an Excel tool that merges our test bench's CSV files.",
      };
      // The form's first step shows the enquiry for review; its Send posts it with a token.
      const review = await form("/services/enquiry", enquiry);
      const formToken = /name="formToken" value="([^"]+)"/.exec(review.body)?.[1] ?? "";
      expect(formToken).not.toBe("");
      const sentForm = await whileRefused(...loseCommitOn("enquiries", "insert"), () =>
        form("/services/enquiry", { ...enquiry, formToken }),
      );
      expect(sentForm.statusCode).toBe(503);
      expect(sentForm.body).toContain("it may or may not have been sent");
      expect(sentForm.body).not.toContain("nothing was sent or changed");
    },
  );

  it("visitor purge: a failure between the comments and the reactions leaves both, and no line", async () => {
    const troll = t.visitor({ ip: `10.12.0.${sent++}` });
    const posted = await troll.comment("soap", "Soap is a scam, buy my powder.", "Troll");
    expect(posted.statusCode, posted.body).toBe(201);
    expect((await troll.react("science", "soap", "dislike")).statusCode).toBeLessThan(300);
    const id = String(commentResponseSchema.parse(JSON.parse(posted.body)).comment.id);
    const state = () =>
      rows(
        `select (select count(*) from science_comments where id = ? and deleted_at is null) as comments,
          (select count(*) from science_reactions where visitor_id =
            (select visitor_id from science_comments where id = ?)) as reactions,
          (select count(*) from owner_audit where action = 'visitor purge' and object = ?) as lines`,
        [id, id, `comment ${id}`],
      );
    const counts = async () => (await state()).flatMap((row) => Object.values(row).map(Number));
    expect(await counts()).toEqual([1, 1, 0]);
    // The database refuses to delete the reactions, after the comments went in the same action.
    const [refuse, allow] =
      backend === "postgres"
        ? [
            `create function refuse_reaction() returns trigger language plpgsql as $$ begin raise exception 'no reaction delete'; end $$;
              create trigger refuse_reaction before delete on science_reactions for each row execute function refuse_reaction()`,
            "drop trigger refuse_reaction on science_reactions; drop function refuse_reaction()",
          ]
        : [
            "create trigger refuse_reaction before delete on science_reactions begin select raise(abort, 'no reaction delete'); end",
            "drop trigger refuse_reaction",
          ];
    const failed = await whileRefused(refuse, allow, () =>
      admin(adminEnv(t), "visitor", "purge", "--comment", id),
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /^Failed: .*no reaction delete.* Nothing was changed; try again\.\n$/,
    );
    expect(await counts()).toEqual([1, 1, 0]);

    const run = await admin(adminEnv(t), "visitor", "purge", "--comment", id);
    expect(run.stdout).toContain("Removed 1 comment and 1 reaction");
    expect(await counts()).toEqual([0, 0, 1]);
  });

  it("marking an enquiry and keeping it, asked at once, commit together with a line each", async () => {
    const id = (await enquiry()).subject;
    const state = () => rows("select status, kept from enquiries where id = ?", [id]);
    const before = await state();
    const change = () =>
      owner.patch(`/api/admin/enquiries/${id}`, { status: "closed", kept: true });
    const lines = (await rows("select id from owner_audit")).length;
    const allow = await refuseAuditLines(t, "enquiry keep");
    try {
      const failed = await change();
      expect(failed.statusCode).toBe(500);
      expect(JSON.parse(failed.body).error.message).toBe(
        "Something went wrong on our side. Nothing was changed; try again.",
      );
    } finally {
      await allow();
    }
    // True: the status did not change either.
    expect(await state()).toEqual(before);
    await ok(change());
    expect((await state()).map((row) => [row.status, Number(row.kept)])).toEqual([["closed", 1]]);
    expect((await rows("select action, object from owner_audit order by id")).slice(lines)).toEqual(
      ["enquiry closed", "enquiry keep"].map((action) => ({ action, object: `enquiry ${id}` })),
    );
  });

  it.each(actions.map((a) => [a.action, a] as const))(
    "%s: an error and no change while the line fails, then done with its line",
    async (action, refusable) => {
      const subject = await refusable.prepare();
      const before = await refusable.state(subject);
      const lines = (await rows("select id from owner_audit")).length;
      const allow = await refuseAuditLines(t);
      try {
        if ("cli" in refusable) {
          const failed = await admin(adminEnv(t), ...refusable.cli(subject));
          expect(failed.code).toBe(1);
          expect(failed.stderr).toMatch(/^Failed: .*no.audit/);
        } else {
          const failed = await refusable.console(owner, subject);
          expect(failed.statusCode).toBe(500);
          expect(JSON.parse(failed.body)).toEqual({
            error: {
              code: "internal_error",
              message: "Something went wrong on our side. Nothing was changed; try again.",
            },
          });
        }
      } finally {
        await allow();
      }
      expect(await refusable.state(subject)).toEqual(before);
      if ("cli" in refusable) {
        const run = await admin(adminEnv(t), ...refusable.cli(subject));
        expect(run.code, run.stderr).toBe(0);
      } else await ok(refusable.console(owner, subject));
      expect(await refusable.state(subject)).not.toEqual(before);
      const trail = await rows("select action from owner_audit order by id");
      expect(trail.slice(lines)).toEqual([{ action }]);
    },
  );

  /** An instance of the site on the same database: its hourly retention runs as it starts. */
  const instance = (logger?: ReturnType<typeof capturedLogs>["logger"]) =>
    startTestApp(backend, {
      ...(logger ? { logger } : {}),
      ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : { dataDir: t.dataDir }),
    });

  it("the hourly retention deletes nothing while its lines fail, then each kind with its count", async () => {
    const longAgo = new Date(Date.now() - 400 * dayMs).toISOString();
    const old = (await enquiry()).subject;
    await rows("update enquiries set created_at = ? where id = ?", [longAgo, old]);
    const call = (await bookedCall()).subject;
    await rows("update bookings set starts_at = ?, ends_at = ? where id = ?", [
      longAgo,
      longAgo,
      call,
    ]);
    await rows(
      "insert into fediverse_given_up (kind, activity, why, given_up_at) values ('ewe:take-back', null, 'Error', ?)",
      [longAgo],
    );
    await rows("insert into assistant_questions (question, known, asked_at) values (?, 1, ?)", [
      "Did you ever fix a lathe?",
      longAgo,
    ]);
    const past = new Date(Date.now() - 300 * dayMs).toISOString();
    const kept = () =>
      rows(
        `select (select count(*) from enquiries where created_at < ?) as enquiries,
          (select count(*) from bookings where ends_at < ?) as bookings,
          (select count(*) from fediverse_given_up where given_up_at < ?) as given_up,
          (select count(*) from assistant_questions where asked_at < ?) as questions`,
        [past, past, past, past],
      );
    const before = await kept();
    expect(Object.values(before[0] ?? {}).map(Number)).toEqual([1, 1, 1, 1]);
    const lines = (await rows("select id from owner_audit")).length;

    const allow = await refuseAuditLines(t);
    try {
      const logs = capturedLogs("warn");
      const refused = await instance(logs.logger);
      try {
        const failures = () =>
          logs.lines.filter((line) => /^old .+ could not be deleted$/.test(String(line.msg)));
        await waitFor(async () => failures().length === 4, { what: "four failed retentions" });
      } finally {
        await refused.close();
      }
    } finally {
      await allow();
    }
    expect(await kept()).toEqual(before);
    expect(await rows("select id from owner_audit")).toHaveLength(lines);

    const again = await instance();
    try {
      const trail = async () =>
        (await rows("select action, object from owner_audit order by id"))
          .slice(lines)
          .toSorted((a, b) => String(a.action).localeCompare(String(b.action)));
      await waitFor(async () => (await trail()).length === 4, { what: "four lines" });
      expect(await trail()).toEqual(
        ["bookings", "enquiries", "Fediverse given-up records", "questions"]
          .toSorted((a, b) => a.localeCompare(b))
          .map((what) => ({ action: `${what} retention`, object: "1 deleted" })),
      );
      expect(Object.values((await kept())[0] ?? {}).map(Number)).toEqual([0, 0, 0, 0]);
    } finally {
      await again.close();
    }
  });

  it.runIf(backend === "postgres")(
    "a sender's link pressed twice at once writes one line: none for the press that deleted nothing",
    async () => {
      const id = (await enquiry()).subject;
      const token = randomBytes(32).toString("base64url");
      await rows("update enquiries set deletion_token_hash = ? where id = ?", [
        createHash("sha256").update(token).digest("hex"),
        id,
      ]);
      const lines = (await rows("select id from owner_audit")).length;
      // The first press: its transaction has deleted the enquiry, with its line, and not committed.
      const first = new pg.Client({ connectionString: t.databaseUrl });
      await first.connect();
      try {
        await first.query("begin");
        await first.query("delete from enquiries where id = $1", [id]);
        await first.query(
          "insert into owner_audit (at, action, object) values ($1, 'enquiry deleted by its sender', '1 deleted')",
          [new Date().toISOString()],
        );
        const second = t.app.inject({
          method: "POST",
          url: "/enquiries/delete",
          headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
          payload: new URLSearchParams({ token }).toString(),
        });
        await waitFor(async () => (await lockWaiters(t)) > 0, {
          what: "the second press waiting for the first",
        });
        await first.query("commit");
        expect((await second).statusCode).toBe(200);
      } finally {
        await first.end();
      }
      expect(
        (await rows("select action, object from owner_audit order by id")).slice(lines),
      ).toEqual([{ action: "enquiry deleted by its sender", object: "1 deleted" }]);
    },
  );

  it("a sender's deletion link deletes nothing while its line fails, then deletes with it", async () => {
    const id = (await enquiry()).subject;
    const token = randomBytes(32).toString("base64url");
    await rows("update enquiries set deletion_token_hash = ? where id = ?", [
      createHash("sha256").update(token).digest("hex"),
      id,
    ]);
    const press = () =>
      t.app.inject({
        method: "POST",
        url: "/enquiries/delete",
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ token }).toString(),
      });
    const stored = () => rows("select id from enquiries where id = ?", [id]);
    const lines = (await rows("select id from owner_audit")).length;
    const allow = await refuseAuditLines(t);
    try {
      // The page tells the sender so, and it is true.
      const failed = await press();
      expect(failed.statusCode).toBe(503);
      expect(failed.body).toContain("nothing was sent or changed");
    } finally {
      await allow();
    }
    expect(await stored()).toHaveLength(1);
    expect((await press()).statusCode).toBe(200);
    expect(await stored()).toEqual([]);
    expect((await rows("select action, object from owner_audit order by id")).slice(lines)).toEqual(
      [{ action: "enquiry deleted by its sender", object: "1 deleted" }],
    );
  });
});
