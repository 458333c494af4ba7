import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AdminRun, admin, adminAt, adminEnv } from "./support/admin.ts";
import { runSql } from "./support/sql.ts";
import { backends, freshItem, startTestApp, type TestApp } from "./support/test-app.ts";

/**
 * Text a terminal would obey: an OSC that sets the window's title (ended by BEL), ESC [
 * that clears the line, a lone "\r" back to its start, a right-to-left override and the
 * C1 CSI (U+009B). Rows hold it as rows stored before the reader forms refused it do,
 * or as text from elsewhere (imports, other servers) may.
 */
const hostile = "Ann\u001b]0;owned\u0007\u001b[2K\rEve \u202eevil\u202c \u009b31mred";
/** What a terminal obeys, besides tab and line feed. */
const obeyed = /[^\P{Cc}\t\n]|\p{Bidi_Control}/u;

/** Printed as text: nothing raw, each character shown by its escape, the rest readable. */
function expectShown(run: AdminRun, lineReturn = "\\u000d") {
  expect(run).toMatchObject({ code: 0, stderr: "" });
  expect(run.stdout).not.toMatch(obeyed);
  expect(run.stdout).toContain(
    `Ann\\u001b]0;owned\\u0007\\u001b[2K${lineReturn}Eve \\u202eevil\\u202c \\u009b31mred`,
  );
}

/** Printed as JSON: nothing raw either, and JSON reads back the text as it is stored. */
function expectJson(run: AdminRun, read: (value: never) => unknown) {
  expect(run).toMatchObject({ code: 0, stderr: "" });
  expect(run.stdout).not.toMatch(obeyed);
  expect(read(JSON.parse(run.stdout) as never)).toBe(hostile);
}

describe.each(backends)("the command line's output on %s, where readers' text is", (backend) => {
  let t: TestApp;
  let env: Record<string, string>;
  const now = new Date().toISOString();
  const insert = async (statement: string, params: (string | number)[]) =>
    Number((await runSql(t, `${statement} returning id`, params))[0]?.id);

  beforeAll(async () => {
    t = await startTestApp(backend);
    env = { ...adminEnv(t), COOKIE_SECRET: "admin-terminal-tests-cookie-secret-0123456789" };
  });
  afterAll(() => t?.close());

  it("shows the controls in a comment and its name as escapes", async () => {
    const post = freshItem("science");
    await runSql(
      t,
      "insert into science_comments (post_id, content, user_name, visitor_id, created_at, updated_at, status) values (?, ?, ?, ?, ?, ?, 'pending')",
      [post, hostile, hostile, "visitor-terminal", now, now],
    );
    // Tab-separated: the TSV's own escape for the line return, the others shown.
    expectShown(await admin(env, "comments", "list", "--post", post), "\\r");
    expectShown(await admin(env, "comments", "pending"), "\\r");
    expectJson(
      await admin(env, "comments", "list", "--post", post, "--json"),
      ([comment]: { userName: string }[]) => comment?.userName,
    );
  });

  it("shows them in an enquiry, listed and shown", async () => {
    const id = await insert(
      "insert into enquiries (name, email, service, organisation, timeline, message, ip_hash, thread_id, deletion_token_hash, created_at, updated_at) values (?, ?, 'other', ?, ?, ?, 'ip', 'thread@ewe.test', 'hash', ?, ?)",
      [hostile, "enquirer@example.org", hostile, hostile, hostile, now, now],
    );
    expectShown(await admin(env, "enquiries", "show", String(id)));
    expectShown(await admin(env, "enquiries", "list"), "\\r");
    expectJson(
      await admin(env, "enquiries", "show", String(id), "--json"),
      (enquiry: { message: string }) => enquiry.message,
    );
  });

  it("shows them in a booking's name and note", async () => {
    const start = new Date(Date.now() + 86_400_000);
    const id = await insert(
      "insert into bookings (starts_at, ends_at, name, email, service, note, reader_zone, uid, ip_hash, address_hash, created_at, updated_at) values (?, ?, ?, 'booker@example.org', 'other', ?, 'UTC', 'terminal@ewe.test', 'ip', 'address', ?, ?)",
      [
        start.toISOString(),
        new Date(start.getTime() + 1_800_000).toISOString(),
        hostile,
        hostile,
        now,
        now,
      ],
    );
    expectShown(await admin(env, "bookings", "show", String(id)));
    expectShown(await admin(env, "bookings", "list"), "\\r");
    expectJson(
      await admin(env, "bookings", "show", String(id), "--json"),
      (booking: { note: string }) => booking.note,
    );
    // The question a terminal asks before cancelling it, and the refusal without an answer.
    const asked: string[] = [];
    const declined = await adminAt(
      {
        env,
        confirm: async (question) => {
          asked.push(question);
          return false;
        },
      },
      ["bookings", "cancel", String(id)],
    );
    expect(declined.code).toBe(1);
    const refused = await admin(env, "bookings", "cancel", String(id));
    expect(refused.code).toBe(2);
    for (const said of [asked.join(""), refused.stderr]) {
      expect(said).not.toMatch(obeyed);
      expect(said).toContain("Eve \\u202eevil");
    }
  });

  it("shows them in a Fediverse follower's name and a webmention's author", async () => {
    await runSql(
      t,
      "insert into fediverse_followers (actor_id, handle, name, inbox, shared_inbox, follow_id, created_at) values (?, ?, ?, ?, null, ?, ?)",
      [
        "https://remote.example/users/ann",
        "@ann@remote.example",
        hostile,
        "https://remote.example/users/ann/inbox",
        "https://remote.example/follows/1",
        now,
      ],
    );
    expectShown(await admin(env, "fediverse", "followers"), "\\r");
    expectJson(
      await admin(env, "fediverse", "followers", "--json"),
      (followers: { name: string }[]) => followers[0]?.name,
    );

    await runSql(
      t,
      "insert into webmentions (source, target, path, status, kind, author_name, author_url, content, received_at) values (?, ?, ?, 'pending', 'reply', ?, null, ?, ?)",
      [
        "https://remote.example/posts/1",
        "http://ewe.test/science/x",
        "/science/x",
        hostile,
        hostile,
        now,
      ],
    );
    expectShown(await admin(env, "webmentions", "list"), "\\r");
    expectJson(
      await admin(env, "webmentions", "list", "--json"),
      (mentions: { authorName: string }[]) => mentions[0]?.authorName,
    );
  });

  it("shows them in a campaign's name, in columns that still line up", async () => {
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await runSql(
      t,
      "insert into reader_days (day, dimension, value, views, visitors, engaged) values (?, 'campaign', ?, 12, 3, 1)",
      [yesterday, hostile],
    );
    await runSql(t, "insert into reader_rollups (day, rolled_at) values (?, ?)", [yesterday, now]);
    const run = await admin(env, "readers");
    expectShown(run);
    const table = run.stdout.split("\n\n").find((part) => part.startsWith("Campaigns\n"));
    const [, ...lines] = table?.trimEnd().split("\n") ?? [];
    expect(lines).toHaveLength(2);
    expect(new Set(lines.map((line) => line.length)).size).toBe(1);
  });
});
