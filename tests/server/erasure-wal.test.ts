import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema } from "../../contract/api.ts";
import { createFormTokens } from "../../server/lib/form-token.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { deletionToken, pressDelete } from "./support/enquiry-link.ts";
import { type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { freshItem, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * What a deletion removes on SQLite leaves the disk (docs/backups.md): the
 * database overwrites the space it freed (`secure_delete`), and its
 * write-ahead log, which still holds every page as it was written, is
 * emptied into the database file and truncated right after. Neither
 * engage.sqlite nor engage.sqlite-wal holds the deleted words' bytes then.
 */

/** An answer's JSON body, as the test reads it. */

const cookieSecret = "erasure-wal-tests-cookie-secret-0123456789";
const enquiryTokens = createFormTokens(cookieSecret, {
  purpose: "enquiry form timing",
  minimumMs: 0,
});

let unique = 0;
/** Words no other row holds, to look for byte by byte. */
const marker = (what: string) => `Zqx${what}${++unique}${Date.now().toString(36)}Vwk`;

describe("deleted words in SQLite's files", () => {
  let t: TestApp;
  let smtp: SmtpSink;
  const files = () => {
    const database = path.join(t.dataDir, "engage.sqlite");
    return [database, `${database}-wal`];
  };
  /** The files that hold `words` now. */
  const holding = (words: string) =>
    files().filter(
      (file) => existsSync(file) && readFileSync(file).includes(Buffer.from(words, "utf8")),
    );
  const gone = (words: string) =>
    expect.poll(() => holding(words), { timeout: 15_000 }).toEqual([]);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp("sqlite", {
      env: {
        COOKIE_SECRET: cookieSecret,
        SMTP_URL: smtp.url,
        ENQUIRIES_PER_HOUR: "100",
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it("a comment its writer deletes, and the words an edit replaced", async () => {
    const alex = t.visitor();
    const post = freshItem("science");
    const deleted = marker("deleted");
    const created = await alex.comment(post, `A comment that will go: ${deleted}.`);
    expect(created.statusCode).toBe(201);
    // Written, and so on disk: in the log until it is emptied.
    expect(holding(deleted)).not.toEqual([]);
    const { id } = json(created, commentResponseSchema).comment;
    expect((await alex.delete(`/api/comments/${id}`)).statusCode).toBe(204);
    await gone(deleted);

    const replaced = marker("replaced");
    const edited = await alex.comment(post, `A first wording: ${replaced}.`);
    const editedId = json(edited, commentResponseSchema).comment.id;
    expect(holding(replaced)).not.toEqual([]);
    const patched = await alex.patch(`/api/comments/${editedId}`, {
      content: "A second wording, with nothing of the first.",
      userName: "Alex",
    });
    expect(patched.statusCode).toBe(200);
    await gone(replaced);
  });

  it("a comment the owner deletes from the command line, which the server holds open", async () => {
    const words = marker("admin");
    const created = await t.visitor().comment(freshItem("science"), `Off topic: ${words}.`);
    const { id } = json(created, commentResponseSchema).comment;
    expect(holding(words)).not.toEqual([]);
    expect((await admin(adminEnv(t), "comments", "delete", String(id))).code).toBe(0);
    await gone(words);
  });

  it("everything a reader deletes with Your data", async () => {
    const reader = t.visitor();
    const words = marker("yourdata");
    const name = marker("Name").slice(0, 30);
    expect((await reader.comment(freshItem("science"), `Mine: ${words}.`, name)).statusCode).toBe(
      201,
    );
    expect((await reader.react("mythology", freshItem("mythology"), "love", name)).statusCode).toBe(
      201,
    );
    expect(holding(words)).not.toEqual([]);
    expect(holding(name)).not.toEqual([]);
    const answer = await reader.post("/api/your-data/delete", { confirm: true });
    expect(answer.statusCode).toBe(200);
    await gone(words);
    await gone(name);
  });

  it("an enquiry its sender deletes by the link in the acknowledgement", async () => {
    const words = marker("enquiry");
    const email = `${marker("sender").toLowerCase()}@example.org`;
    const sent = await t.visitor({ ip: "10.7.0.1" }).post("/api/enquiries", {
      name: "Priya Raman",
      email,
      service: "dfmea",
      message: `We need a DFMEA workshop for a fuel pump module: ${words}.`,
      organisation: "Raman Motors",
      timeline: "Before March",
      formToken: enquiryTokens.issue(Date.now() - 60_000),
    });
    expect(sent.statusCode).toBe(201);
    expect(holding(words)).not.toEqual([]);
    await smtp.waitFor(() => smtp.to(email).length === 1);
    const deleted = await pressDelete(t, deletionToken(smtp, email));
    expect(deleted.statusCode).toBe(200);
    await gone(words);
    await gone(email);
  });
});
