import { createHmac } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema, commentsResponseSchema } from "../../contract/api.ts";
import { ConfigError, loadConfig } from "../../server/config.ts";
import { migrateToLatest } from "../../server/db/store.ts";
import { loggerOptions } from "../../server/logging.ts";
import { EventStream } from "../support/event-stream.ts";
import { waitFor } from "../support/wait-for.ts";
import { movableClock } from "./support/clock.ts";
import { dom } from "./support/html.ts";
import { mailingApp } from "./support/mailing-app.ts";
import { linksOf, owner } from "./support/notifications.ts";
import { Owner } from "./support/owner.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { type ReceivedMail, type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { lockWaiters, refuseAuditLines, runSql } from "./support/sql.ts";
import {
  backends,
  capturedLogs,
  freshItem,
  json,
  siteUrl,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";
import { type Hit, startReceiver } from "./support/webhook-receiver.ts";

const hourMs = 60 * 60 * 1000;

/** What the audit trail holds about one comment: each action, and whether a console session took it. */
async function audited(t: TestApp, commentId: number) {
  const rows = await runSql(
    t,
    "select action, session_id from owner_audit where object = ? order by id",
    [String(commentId)],
  );
  return rows.map((row) => ({ action: row.action, session: row.session_id }));
}

async function commentIds(t: TestApp, postId: string): Promise<number[]> {
  const response = await t.visitor().get(`/api/items/science/${postId}/comments`);
  return json(response, commentsResponseSchema).comments.map((comment) => comment.id);
}

/** The owner's browser on the confirmation page: a same-origin form post. */
function pressButton(t: TestApp, path: string, token: string, origin: string | null = siteUrl) {
  return t.app.inject({
    method: "POST",
    url: path.replace(/\?.*$/, ""),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(origin ? { origin } : {}),
    },
    payload: new URLSearchParams({ token }).toString(),
  });
}

describe("notification settings", () => {
  const base = { NODE_ENV: "test", SITE_URL: siteUrl };
  const refused = (env: Record<string, string>, pattern: RegExp) =>
    expect(() => loadConfig({ ...base, ...env })).toThrow(pattern);

  it("mails each comment by default once OWNER_EMAIL is set, and nothing without it", () => {
    expect(loadConfig(base).notifyComments).toBe("off");
    expect(loadConfig({ ...base, OWNER_EMAIL: owner }).notifyComments).toBe("each");
    expect(
      loadConfig({ ...base, OWNER_EMAIL: owner, NOTIFY_COMMENTS: "hourly" }).notifyComments,
    ).toBe("hourly");
    expect(loadConfig({ ...base, OWNER_EMAIL: owner, NOTIFY_COMMENTS: "off" }).notifyComments).toBe(
      "off",
    );
  });

  it("refuses bad values with a message that names the variable", () => {
    refused(
      { NOTIFY_COMMENTS: "weekly", OWNER_EMAIL: owner },
      /NOTIFY_COMMENTS: must be each, hourly or off/,
    );
    refused({ NOTIFY_COMMENTS: "hourly" }, /OWNER_EMAIL: is required with NOTIFY_COMMENTS=hourly/);
    refused({ OWNER_EMAIL: "owner at example" }, /OWNER_EMAIL: must be an email address/);
    for (const url of [
      "ftp://example.com/hook",
      "file:///etc/passwd",
      "javascript:alert(1)",
      "example.com/hook",
    ]) {
      refused(
        { WEBHOOK_URL: url, WEBHOOK_SECRET: "s".repeat(32) },
        /WEBHOOK_URL: must be an absolute http:\/\/ or https:\/\/ URL/,
      );
    }
    refused(
      { WEBHOOK_URL: "https://hooks.example.com/x" },
      /WEBHOOK_SECRET: is required with WEBHOOK_URL/,
    );
    refused(
      { WEBHOOK_URL: "https://hooks.example.com/x", WEBHOOK_SECRET: "short" },
      /WEBHOOK_SECRET: must be at least 32 characters long/,
    );
    expect(() => loadConfig({ ...base, WEBHOOK_URL: "ftp://x" })).toThrow(ConfigError);
  });
});

describe.each(backends)("the owner's notifications on %s", (backend) => {
  let smtp: SmtpSink;
  let t: TestApp;
  const clock = movableClock();
  // The server's own log settings (server/logging.ts), written where the test reads them.
  const logs = capturedLogs("debug");
  const logger = { ...(loggerOptions("debug") as object), stream: logs.logger.stream };

  mailingApp(
    backend,
    {
      // The owner's zone (the Bookings hours' default), which the mails give times in.
      env: { OWNER_EMAIL: owner, BOOKING_TIMEZONE: "Asia/Kolkata" },
      mail: { clock: clock.now },
      logger,
    },
    (app) => ({ t, smtp } = app),
  );
  beforeAll(async () => {
    await t.app.listen({ host: "127.0.0.1", port: 0 });
  });

  /** Posts a comment and waits for the owner's mail about it. */
  async function commentAndMail(postId: string, content: string, userName = "Asha") {
    const response = await t.visitor().comment(postId, content, userName);
    expect(response.statusCode).toBe(201);
    const id: number = json(response, commentResponseSchema).comment.id;
    let mail: ReceivedMail | undefined;
    await smtp.waitFor(() => {
      mail = smtp.to(owner).find((m) => linksOf(m).some((link) => link.id === id));
      return mail !== undefined;
    });
    return { id, mail: mail as ReceivedMail };
  }

  it("mails the owner each new comment as text, with the post, the name and a delete link", async () => {
    const { id, mail } = await commentAndMail(
      "wifi",
      "Does 6 GHz go through walls?\nAsking for a friend.",
    );
    expect(mail.parsed.subject).toBe(
      'New comment on "How does Wi-Fi carry data through the air?" from Asha',
    );
    const text = mail.parsed.text ?? "";
    expect(text).toContain('Asha on "How does Wi-Fi carry data through the air?"');
    // When, in the owner's zone, not UTC's.
    expect(text).toMatch(/", \w+day \d+ \w+ \d{4}, \d\d:\d\d \(Asia \/ Kolkata, GMT\+5:30\)\n/);
    expect(text).not.toContain("UTC");
    expect(text).toContain("http://ewe.test/science/wifi");
    expect(text).toContain("> Does 6 GHz go through walls?\n> Asking for a friend.");
    // No approve link: nothing is held on this site.
    expect(linksOf(mail).map((link) => [link.id, link.action])).toEqual([[id, "delete"]]);
  });

  it("carries markup in a comment and a name only as text, in the HTML part too", async () => {
    const postId = freshItem("science");
    const attack = "<img src=x onerror=alert(1)>";
    const { mail } = await commentAndMail(postId, attack, '<b onmouseover="x()">Eve</b>');
    expect(mail.parsed.text).toContain(`> ${attack}`);
    const html = mail.parsed.html || "";
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    const document = dom(html);
    expect(document.querySelectorAll("img, b, script, [onerror], [onmouseover]")).toHaveLength(0);
    expect(document.body.textContent).toContain(attack);
    expect(document.body.textContent).toContain('<b onmouseover="x()">Eve</b>');
  });

  it("a delete link shows the comment on GET and changes nothing; its button deletes once", async () => {
    const postId = freshItem("science");
    const { id, mail } = await commentAndMail(
      postId,
      "Is a <cheap> multimeter good enough for a car battery?",
    );
    const [link] = linksOf(mail);
    if (!link) throw new Error("no delete link");

    // A mail scanner, or the owner, opening the link twice.
    for (let i = 0; i < 2; i += 1) {
      const page = await t.app.inject({ method: "GET", url: link.path });
      expect(page.statusCode).toBe(200);
      expect(page.headers["cache-control"]).toBe("no-store");
      const document = dom(page.body);
      expect(document.querySelector("h1")?.textContent).toBe("Delete this comment?");
      expect(document.querySelector(".meta")?.textContent).toMatch(
        /\(Asia \/ Kolkata, GMT\+5:30\)$/,
      );
      expect(document.querySelector("blockquote")?.textContent).toBe(
        "Is a <cheap> multimeter good enough for a car battery?",
      );
      expect(document.querySelector("form")?.getAttribute("method")).toBe("post");
      expect(document.querySelector("button")?.textContent).toBe("Delete the comment");
      expect(document.querySelectorAll("script")).toHaveLength(0);
    }
    expect(await commentIds(t, postId)).toEqual([id]);

    // A page elsewhere cannot press the button, even holding the token.
    for (const origin of [null, "https://evil.example"]) {
      const refused = await pressButton(t, link.path, link.token, origin);
      expect(refused.statusCode).toBe(403);
      expect(dom(refused.body).querySelector("h1")?.textContent).toBe("Nothing was changed");
    }
    expect(await commentIds(t, postId)).toEqual([id]);

    // Readers with the post open see it go, as with `comments delete`.
    const baseUrl = t.app.listeningOrigin;
    const viewer = new EventStream(baseUrl, `science:${postId}`);
    try {
      await viewer.ready();
      const done = await pressButton(t, link.path, link.token);
      expect(done.statusCode).toBe(200);
      expect(dom(done.body).body.textContent).toContain("The comment is deleted");
      expect((await viewer.next("comment")).json).toEqual({
        action: "deleted",
        item: { kind: "science", id: postId },
        commentId: id,
      });
    } finally {
      viewer.close();
    }
    expect(await commentIds(t, postId)).toEqual([]);
    // In the audit trail as the command line's actions are: no console session took it.
    expect(await audited(t, id)).toEqual([{ action: "comment delete", session: null }]);

    // Used: both the page and the button say so.
    const again = await pressButton(t, link.path, link.token);
    expect(again.statusCode).toBe(410);
    expect(dom(again.body).querySelector("h1")?.textContent).toBe(
      "This link has already been used",
    );
    const reopened = await t.app.inject({ method: "GET", url: link.path });
    expect(reopened.statusCode).toBe(410);
    expect(dom(reopened.body).querySelector("form")).toBeNull();
  });

  it("a delete link pressed twice at once deletes once: one press is done, the other finds the link used", async () => {
    const postId = freshItem("science");
    const { id, mail } = await commentAndMail(postId, "Pressed twice");
    const [link] = linksOf(mail);
    if (!link) throw new Error("no delete link");
    const twice = () =>
      Promise.all([pressButton(t, link.path, link.token), pressButton(t, link.path, link.token)]);
    let presses: Awaited<ReturnType<typeof twice>>;
    if (t.databaseUrl) {
      // Both presses past the link's check, each in its action, waiting for the comment a third holds.
      const holder = new pg.Client({ connectionString: t.databaseUrl });
      await holder.connect();
      try {
        await holder.query("begin");
        await holder.query("select id from science_comments where id = $1 for update", [id]);
        const pressed = twice();
        await waitFor(async () => (await lockWaiters(t)) === 2, {
          what: "both presses waiting in their actions",
        });
        await holder.query("commit");
        presses = await pressed;
      } finally {
        await holder.end();
      }
    } else {
      // One connection, one writer: the presses go through as they come.
      presses = await twice();
    }
    const said = presses
      .map((press) => [press.statusCode, dom(press.body).querySelector("h1")?.textContent])
      .sort();
    expect(said).toEqual([
      [200, "Done"],
      [410, "This link has already been used"],
    ]);
    expect(await commentIds(t, postId)).toEqual([]);
    expect(await audited(t, id)).toEqual([{ action: "comment delete", session: null }]);
  });

  it("a link acts only on its own comment and action, and a made-up one on nothing", async () => {
    const postId = freshItem("science");
    const first = await commentAndMail(postId, "First");
    const second = await commentAndMail(postId, "Second");
    const [link] = linksOf(first.mail);
    if (!link) throw new Error("no delete link");

    const elsewhere = [
      `/owner/comments/${second.id}/delete`,
      `/owner/comments/${first.id}/approve`,
      `/owner/comments/${first.id}/publish`,
      "/owner/comments/0/delete",
      "/owner/comments/99999999999/delete",
    ];
    for (const path of elsewhere) {
      const refused = await pressButton(t, path, link.token);
      expect(refused.statusCode, path).toBe(404);
      expect(dom(refused.body).querySelector("h1")?.textContent).toBe("This link is not known");
      const page = await t.app.inject({ method: "GET", url: `${path}?token=${link.token}` });
      expect(page.statusCode, path).toBe(404);
    }
    // One character changed (to another one, whatever the last one was).
    const altered = `${link.token.slice(0, -1)}${link.token.endsWith("A") ? "B" : "A"}`;
    for (const token of ["", "x", altered, link.token.repeat(2)]) {
      expect((await pressButton(t, link.path, token)).statusCode).toBe(404);
    }
    // Bodies the page's form never sends: a clear refusal, never a 500.
    for (const [type, payload] of [
      ["application/json", JSON.stringify({ token: link.token })],
      ["text/plain", `token=${link.token}`],
      [
        "multipart/form-data; boundary=x",
        `--x\r\nContent-Disposition: form-data; name="token"\r\n\r\n${link.token}\r\n--x--`,
      ],
      ["application/x-www-form-urlencoded", `token=${link.token}&pad=${"x".repeat(2000)}`],
    ] as const) {
      const refused = await t.app.inject({
        method: "POST",
        url: link.path,
        headers: { origin: siteUrl, "content-type": type },
        payload,
      });
      expect(refused.statusCode, type).toBeGreaterThanOrEqual(400);
      expect(refused.statusCode, type).toBeLessThan(500);
      expect(refused.headers["content-type"], type).toContain("text/html");
    }
    expect(await commentIds(t, postId)).toEqual([first.id, second.id]);

    // The link still works where it belongs.
    expect((await pressButton(t, link.path, link.token)).statusCode).toBe(200);
    expect(await commentIds(t, postId)).toEqual([second.id]);
  });

  it("a link expires after 7 days, and then changes nothing", async () => {
    const postId = freshItem("science");
    const { id, mail } = await commentAndMail(postId, "Old news");
    const [link] = linksOf(mail);
    if (!link) throw new Error("no delete link");
    clock.advance(7 * 24 * hourMs + 60_000);
    try {
      const page = await t.app.inject({ method: "GET", url: link.path });
      expect(page.statusCode).toBe(410);
      expect(dom(page.body).querySelector("h1")?.textContent).toBe("This link has expired");
      const pressed = await pressButton(t, link.path, link.token);
      expect(pressed.statusCode).toBe(410);
      expect(await commentIds(t, postId)).toEqual([id]);
    } finally {
      clock.set(new Date());
    }
  });

  it("logs no action link's token, however the link is used", async () => {
    const tokens = smtp.to(owner).flatMap((mail) => linksOf(mail).map((link) => link.token));
    expect(tokens.length).toBeGreaterThan(5);
    const written = JSON.stringify(logs.lines);
    expect(written).toContain("/owner/comments/");
    for (const token of tokens) expect(written).not.toContain(token);
  });

  it("keeps no token in the database, only digests", async () => {
    const postId = freshItem("science");
    const { mail } = await commentAndMail(postId, "Tokens at rest");
    const [link] = linksOf(mail);
    if (!link) throw new Error("no delete link");
    const rows = await runSql(t, "select token_hash from comment_action_tokens");
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(link.token);
    const outbox = await runSql(
      t,
      "select token, payload from outbox where kind = 'comment_notice'",
    );
    expect(JSON.stringify(outbox)).not.toContain(link.token);
  });
});

describe.each(backends)("a held comment's mail on %s", (backend) => {
  let smtp: SmtpSink;
  let t: TestApp;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp(backend, {
      env: {
        SMTP_URL: smtp.url,
        OWNER_EMAIL: owner,
        MODERATION: "all",
      },
    });
    await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it("offers an approve link that publishes the comment, once, by POST", async () => {
    const postId = freshItem("science");
    const response = await t.visitor().comment(postId, "Is a 3.5 bar boiler safe at home?");
    expect(response.statusCode).toBe(201);
    const id: number = json(response, commentResponseSchema).comment.id;
    let mail: ReceivedMail | undefined;
    await smtp.waitFor(() => {
      mail = smtp.to(owner).find((m) => linksOf(m).some((link) => link.id === id));
      return mail !== undefined;
    });
    const links = linksOf(mail as ReceivedMail);
    expect(links.map((link) => link.action).sort()).toEqual(["approve", "delete"]);
    const approve = links.find((link) => link.action === "approve");
    if (!approve) throw new Error("no approve link");
    expect(await commentIds(t, postId)).toEqual([]);

    const page = await t.app.inject({ method: "GET", url: approve.path });
    expect(page.statusCode).toBe(200);
    expect(await commentIds(t, postId)).toEqual([]);

    const done = await pressButton(t, approve.path, approve.token);
    expect(done.statusCode).toBe(200);
    expect(await commentIds(t, postId)).toEqual([id]);
    expect((await pressButton(t, approve.path, approve.token)).statusCode).toBe(410);
    expect(await audited(t, id)).toEqual([{ action: "comment approve", session: null }]);
  });

  /** A held comment on a new post, and a press of its mail's `action` link. */
  async function heldComment(content: string) {
    const postId = freshItem("science");
    const response = await t.visitor().comment(postId, content);
    const id: number = json(response, commentResponseSchema).comment.id;
    await smtp.waitFor(() => smtp.to(owner).some((m) => linksOf(m).some((l) => l.id === id)));
    const mail = smtp.to(owner).find((m) => linksOf(m).some((l) => l.id === id));
    const links = linksOf(mail as ReceivedMail);
    const press = (action: string) => {
      const link = links.find((l) => l.action === action);
      if (!link) throw new Error(`no ${action} link`);
      return pressButton(t, link.path, link.token);
    };
    return { postId, id, press, links };
  }

  it("says there is nothing to do, before any press, once the console has approved the comment or deleted it under a reply", async () => {
    const { id, links } = await heldComment("Should a 3 kW heater run on a 13 A plug all night?");
    const inConsole = new Owner(t);
    await inConsole.signIn();
    const open = async (action: string) => {
      const link = links.find((l) => l.action === action);
      if (!link) throw new Error(`no ${action} link`);
      const page = await t.app.inject({ method: "GET", url: link.path });
      return { status: page.statusCode, text: dom(page.body).body.textContent ?? "" };
    };
    expect((await open("approve")).status).toBe(200);
    expect((await inConsole.post(`/api/admin/comments/${id}/approve`)).statusCode).toBe(204);
    expect(await open("approve")).toMatchObject({
      status: 410,
      text: expect.stringContaining("it was approved or deleted already"),
    });
    // Answered, then deleted: its place stays for the reply, with neither name nor text.
    const answer = { content: "Only on a heater rated for it, with the plug checked for heat." };
    expect((await inConsole.post(`/api/admin/comments/${id}/reply`, answer)).statusCode).toBe(201);
    expect((await inConsole.delete(`/api/admin/comments/${id}`)).statusCode).toBe(204);
    const deleted = await open("delete");
    expect(deleted).toMatchObject({
      status: 410,
      text: expect.stringContaining("already been deleted"),
    });
    expect(deleted.text).not.toContain("Delete the comment");
  });

  it("changes nothing when the audit line cannot be written, and the link then works again", async () => {
    const { postId, id, press } = await heldComment("Does a heat pump work at minus 20?");
    const allow = await refuseAuditLines(t);
    try {
      for (const action of ["delete", "approve"]) {
        const failed = await press(action);
        expect(failed.statusCode).toBeGreaterThanOrEqual(500);
        expect(dom(failed.body).querySelector("h1")?.textContent).toBe("Nothing was changed");
      }
    } finally {
      await allow();
    }
    const status = await runSql(t, "select status from science_comments where id = ?", [id]);
    expect(status).toEqual([{ status: "pending" }]);
    expect(await audited(t, id)).toEqual([]);
    expect((await press("approve")).statusCode).toBe(200);
    expect(await commentIds(t, postId)).toEqual([id]);
    expect(await audited(t, id)).toEqual([{ action: "comment approve", session: null }]);
  });

  it("a link whose action failed works again, even when the database failed for the rest of that press", async () => {
    const { postId, id, press } = await heldComment("Is a pressure cooker a boiler?");
    // The action's line is refused, and so is any write that gives a taken link back.
    const [keep, allowGiving] =
      backend === "postgres"
        ? [
            `create function keep_taken() returns trigger language plpgsql as $$ begin raise exception 'kept'; end $$;
              create trigger keep_taken before update on comment_action_tokens for each row when (old.used_at is not null and new.used_at is null) execute function keep_taken()`,
            "drop trigger keep_taken on comment_action_tokens; drop function keep_taken()",
          ]
        : [
            "create trigger keep_taken before update on comment_action_tokens when old.used_at is not null and new.used_at is null begin select raise(abort, 'kept'); end",
            "drop trigger keep_taken",
          ];
    await runSql(t, keep);
    const allow = await refuseAuditLines(t);
    try {
      const failed = await press("approve");
      expect(failed.statusCode).toBeGreaterThanOrEqual(500);
      expect(dom(failed.body).querySelector("h1")?.textContent).toBe("Nothing was changed");
    } finally {
      await allow();
      await runSql(t, allowGiving);
    }
    expect(await commentIds(t, postId)).toEqual([]);
    // Pressed again, it approves the comment: the failed press did not use it up.
    expect(dom((await press("approve")).body).querySelector("h1")?.textContent).toBe("Done");
    expect(await commentIds(t, postId)).toEqual([id]);
    expect((await press("approve")).statusCode).toBe(410);
  });
});

describe.each(backends)("the hourly digest on %s", (backend) => {
  let smtp: SmtpSink;
  let t: TestApp;
  const clock = movableClock();

  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp(backend, {
      env: {
        SMTP_URL: smtp.url,
        OWNER_EMAIL: owner,
        NOTIFY_COMMENTS: "hourly",
      },
      mail: { clock: clock.now },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it("groups the comments of an hour into one mail on the hour", async () => {
    const tenTwenty = new Date("2030-03-04T10:20:00.000Z");
    clock.set(tenTwenty);
    const [first, second] = [freshItem("science"), freshItem("science")];
    const asha = t.visitor();
    const posted: number[] = [];
    for (const [postId, content, name] of [
      [first, "Tea cools faster with a lid off?", "Asha"],
      [second, "Great post", "Ravi"],
      [first, "Deleted before the hour", "Asha"],
      [second, "And the spin?", "Asha"],
    ] as const) {
      const response = await asha.comment(postId, content, name);
      expect(response.statusCode).toBe(201);
      posted.push(json(response, commentResponseSchema).comment.id);
    }
    expect((await asha.delete(`/api/comments/${posted[2]}`)).statusCode).toBe(204);

    const queued = await runSql(
      t,
      "select next_attempt_at from outbox where kind = 'comment_digest' and status = 'queued'",
    );
    expect(queued.map((row) => new Date(row.next_attempt_at as string).toISOString())).toEqual(
      Array(4).fill("2030-03-04T11:00:00.000Z"),
    );

    clock.set(new Date("2030-03-04T11:00:01.000Z"));
    await smtp.waitFor(() => smtp.to(owner).length >= 1);
    const [digest] = smtp.to(owner);
    if (!digest) throw new Error("no digest");
    expect(digest.parsed.subject).toBe("3 new comments on Engage with Engineer");
    const text = digest.parsed.text ?? "";
    expect(text).toContain("> Tea cools faster with a lid off?");
    expect(text).toContain("Ravi on ");
    expect(text).toContain("> Great post");
    expect(text).toContain("> And the spin?");
    expect(text).not.toContain("Deleted before the hour");
    expect(text).toContain("1 more was deleted before this digest went out.");
    expect(linksOf(digest).map((link) => link.id)).toEqual([posted[0], posted[1], posted[3]]);

    // The next hour's comment waits for the next hour, alone.
    clock.set(new Date("2030-03-04T11:10:00.000Z"));
    const late = await asha.comment(first, "A later thought", "Asha");
    expect(late.statusCode).toBe(201);
    clock.set(new Date("2030-03-04T12:00:01.000Z"));
    await smtp.waitFor(() => smtp.to(owner).length >= 2);
    const next = smtp.to(owner)[1];
    expect(next?.parsed.subject).toBe("1 new comment on Engage with Engineer");
    expect(next?.parsed.text).toContain("> A later thought");
    expect(next?.parsed.text).not.toContain("Great post");
    expect(smtp.to(owner)).toHaveLength(2);
    // The deleted comment's row went out with its hour's digest, as a line.
    await expect
      .poll(async () =>
        (await runSql(t, "select status from outbox where kind = 'comment_digest'")).map(
          (row) => row.status,
        ),
      )
      .toEqual(Array(5).fill("sent"));
  });

  it("shows at most 100 comments in one digest, and counts the rest", async () => {
    clock.set(new Date("2030-03-04T13:05:00.000Z"));
    const postId = freshItem("science");
    const writer = t.visitor();
    for (let i = 0; i < 102; i += 1) {
      expect((await writer.comment(postId, `Burst ${i}`, "Bot")).statusCode).toBe(201);
    }
    const before = smtp.to(owner).length;
    clock.set(new Date("2030-03-04T14:00:01.000Z"));
    await smtp.waitFor(() => smtp.to(owner).length > before);
    const digest = smtp.to(owner)[before];
    if (!digest) throw new Error("no digest");
    expect(digest.parsed.subject).toBe("102 new comments on Engage with Engineer");
    expect(linksOf(digest)).toHaveLength(100);
    expect(digest.parsed.text).toContain("> Burst 99");
    expect(digest.parsed.text).not.toContain("> Burst 100");
    expect(digest.parsed.text).toMatch(
      /2 more are not shown here: npm run admin -- comments list --since \d{4}-\d\d-\d\d lists them all\./,
    );
  });
});

describe.each(backends)("the webhook on %s", (backend) => {
  const secret = "webhook-secret-for-the-tests-0123456789";
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let t: TestApp;

  beforeAll(async () => {
    // The first call is answered 500, the ones after it 200.
    receiver = await startReceiver([500]);
    t = await startTestApp(backend, {
      env: { WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: secret },
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it("posts each new comment as signed JSON, and retries with backoff after a 500", async () => {
    const postId = freshItem("science");
    const before = Date.now();
    const response = await t.visitor().comment(postId, "<script>x</script> hello", "Asha");
    expect(response.statusCode).toBe(201);
    const { id } = json(response, commentResponseSchema).comment;
    await receiver.waitFor(2);
    const [failed, accepted] = receiver.hits as [Hit, Hit];

    for (const hit of [failed, accepted]) {
      const timestamp = hit.headers["x-ewe-timestamp"] as string;
      expect(Math.abs(Number(timestamp) * 1000 - hit.at)).toBeLessThan(60_000);
      const expected = `sha256=${createHmac("sha256", secret).update(`${timestamp}.${hit.body}`).digest("hex")}`;
      expect(hit.headers["x-ewe-signature"]).toBe(expected);
      expect(hit.headers["content-type"]).toBe("application/json");
      expect(hit.headers["x-ewe-event"]).toBe("comment.created");
    }
    // The same event: the same body and delivery id, a fresh timestamp and signature.
    expect(accepted.body).toBe(failed.body);
    expect(accepted.headers["x-ewe-delivery"]).toBe(failed.headers["x-ewe-delivery"]);
    expect(accepted.at - failed.at).toBeGreaterThanOrEqual(50);
    expect(failed.at).toBeGreaterThanOrEqual(before);

    expect(JSON.parse(accepted.body)).toMatchObject({
      type: "comment.created",
      comment: {
        id,
        postId,
        content: "<script>x</script> hello",
        userName: "Asha",
        status: "visible",
      },
      item: {
        kind: "science",
        id: postId,
        title: postId,
        url: `http://ewe.test/science/${postId}`,
      },
    });
    // A forged body does not match the signature.
    const forged = accepted.body.replace("hello", "bye");
    expect(
      `sha256=${createHmac("sha256", secret).update(`${accepted.headers["x-ewe-timestamp"]}.${forged}`).digest("hex")}`,
    ).not.toBe(accepted.headers["x-ewe-signature"]);

    await expect
      .poll(async () =>
        runSql(t, "select status, attempts, payload from outbox where kind = 'webhook'"),
      )
      .toEqual([{ status: "sent", attempts: 2, payload: null }]);
  });

  it("gives up at once on an answer that refuses the call (4xx)", async () => {
    const count = receiver.hits.length;
    const refusing = await startReceiver([401]);
    await t.close();
    t = await startTestApp(backend, {
      env: { WEBHOOK_URL: refusing.url, WEBHOOK_SECRET: secret },
    });
    try {
      expect((await t.visitor().comment(freshItem("science"), "Hello", "Asha")).statusCode).toBe(
        201,
      );
      await refusing.waitFor(1);
      await expect
        .poll(async () =>
          runSql(
            t,
            "select status, last_error, payload from outbox where kind = 'webhook' and status <> 'sent'",
          ),
        )
        .toEqual([{ status: "failed", last_error: "the receiver answered 401", payload: null }]);
      expect(refusing.hits).toHaveLength(1);
      expect(receiver.hits).toHaveLength(count);
    } finally {
      await refusing.close();
    }
  });
});

describe.each(backends)("the notifications migration on %s", (backend) => {
  it("keeps the outbox's rows and ids, and takes the new kinds", async () => {
    const scratch = await scratchStore(backend);
    const { store } = scratch;
    try {
      await scratch.migrateTo("003_newsletter");
      const now = new Date().toISOString();
      const row = (email: string, status: "sent" | "queued") => ({
        kind: "confirmation" as const,
        email,
        token: `token-${email}`,
        status,
        next_attempt_at: now,
        created_at: now,
      });
      // Rows of an older version, the last of them deleted: its id must not come back.
      const { db } = store;
      await db
        .insertInto("outbox")
        .values([row("a@example.com", "sent"), row("b@example.com", "queued")])
        .execute();
      const last = await db
        .insertInto("outbox")
        .values(row("c@example.com", "queued"))
        .returning("id")
        .executeTakeFirstOrThrow();
      await db.deleteFrom("outbox").where("id", "=", last.id).execute();

      await migrateToLatest(store);

      const kept = await db
        .selectFrom("outbox")
        .select(["id", "email", "status", "token"])
        .orderBy("id")
        .execute();
      // A later migration takes the link's token from a confirmation that can no longer go.
      expect(kept.map((r) => [Number(r.id), r.email, r.status, r.token])).toEqual([
        [1, "a@example.com", "sent", null],
        [2, "b@example.com", "queued", "token-b@example.com"],
      ]);
      const added = await db
        .insertInto("outbox")
        .values({
          kind: "webhook",
          email: null,
          payload: "{}",
          status: "queued",
          next_attempt_at: now,
          created_at: now,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      expect(Number(added.id)).toBe(4);
      // Which kinds a row may have is no longer the database's to check
      // (tests/server/outbox-kinds.test.ts).
      // An edition still goes to an address once.
      const edition = await db
        .insertInto("editions")
        .values({ slug: "e", subject: "s", html: "h", text: "t", created_at: now })
        .returning("id")
        .executeTakeFirstOrThrow();
      const copy = {
        ...row("a@example.com", "queued"),
        kind: "edition" as const,
        edition_id: edition.id,
      };
      await db.insertInto("outbox").values(copy).execute();
      await expect(db.insertInto("outbox").values(copy).execute()).rejects.toThrow(
        /unique|duplicate/i,
      );
    } finally {
      await scratch.drop();
    }
  });
});
