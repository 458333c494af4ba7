import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { LoggerOptions } from "pino";
import { describe, expect, it } from "vitest";
import { commentResponseSchema } from "../../contract/api.ts";
import { slotsResponseSchema } from "../../contract/bookings.ts";
import { serializeIndex } from "../../server/assistant/retrieval.ts";
import { createFormTokens } from "../../server/lib/form-token.ts";
import { mailboxDigest } from "../../server/lib/mailbox.ts";
import { loggerOptions } from "../../server/logging.ts";
import { fragment } from "../support/built-site.ts";
import { EventStream } from "../support/event-stream.ts";
import { isAddressedTo, outboxMails } from "../support/newsletter.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { requestSubscription } from "./support/newsletter.ts";
import { Owner } from "./support/owner.ts";
import { injected, remoteAccountKeys } from "./support/remote-keys.ts";
import { startSmtpSink } from "./support/smtp.ts";
import { runSql } from "./support/sql.ts";
import {
  capturedLogs,
  json,
  siteUrl,
  soapFeed,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

/*
 * Deleted means deleted everywhere, checked as an auditor would, from the
 * data's side: readers write a marker into every field they can (comments,
 * a reply, reactions, a reply-mail watch, a subscription, an enquiry,
 * bookings, an assistant question, a webmention, a Fediverse account that
 * follows, likes and replies), the mail goes out to a real SMTP server and
 * the Fediverse's deliveries are made; then each is deleted by the way a
 * person would (the writer, the owner's delete, reject, spam and ban, "Your
 * data", the enquiry's link, unsubscribe, a booking's cancel link, the
 * command line). Then the marker is looked for in every column of every
 * table (read from the schema at run time, so a table added later is
 * searched too), every file under DATA_DIR (SQLite's file and its log), the
 * server's logs, the pages, API answers and live events it serves, an
 * export and a backup. What a rule keeps on purpose is listed, with why
 * (docs/privacy-requests.md).
 */

const cookieSecret = "erasure-audit-tests-cookie-secret-0123456789";
const formTokens = (purpose: string) => createFormTokens(cookieSecret, { purpose, minimumMs: 0 });
const enquiryToken = formTokens("enquiry form timing");
const bookingToken = formTokens("booking form timing");
/** The key a booking's mailbox is counted by (server/bookings/limits.ts). */
const bookingKey = mailboxDigest(cookieSecret, "booking reader address");
const ownerEmail = "owner@example.com";
const activityJson = "application/activity+json";
const actorUrl = `${siteUrl}/fediverse/actors/site`;
const soap = `${siteUrl}/fediverse/items/science/soap`;

/** Letters only, so no filter reads them as a disguised word and every field takes them. */
const letters = (n: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) =>
    String.fromCharCode(97 + (b % 26)),
  ).join("");

/** A marker per test, and each place's own word after it, to tell which write left a trace. */
function markers() {
  const tag = `zq${letters(6)}`;
  return {
    m: (what: string) => `${tag}${what}`,
    /** Each marker in `text`, by the word after the tag. */
    found: (text: string) => [
      ...new Set([...text.matchAll(new RegExp(`${tag}([a-z]+)`, "g"))].map((x) => x[1] ?? "")),
    ],
  };
}

/**
 * A Fediverse server on loopback with one account, as Mastodon shows it
 * (its address, handle and name carry the markers), a page that mentions
 * the site, and an inbox that takes what the site delivers.
 */
async function standIn(m: (what: string) => string) {
  const keys = await remoteAccountKeys();
  const delivered: string[] = [];
  let base = "";
  const user = m("actor");
  const server = createServer((request, response) => {
    const url = request.url ?? "";
    if (request.method === "POST") {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        delivered.push(Buffer.concat(chunks).toString());
        response.writeHead(202).end();
      });
      return;
    }
    if (url === `/notes/${m("wmsource")}`) {
      return response.writeHead(200, { "content-type": "text/html" }).end(
        `<!doctype html><article class="h-entry"><a class="p-author h-card" href="${base}/@${user}">${m("wmauthor")} Rao</a>
<p class="e-content">Good read on <a href="${siteUrl}/science/soap">soap</a>, says ${m("wmtext")}.</p></article>`,
      );
    }
    if (url !== `/users/${user}`) return response.writeHead(404).end();
    const id = `${base}/users/${user}`;
    response.writeHead(200, { "content-type": activityJson }).end(
      JSON.stringify({
        "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
        id,
        type: "Person",
        inbox: `${id}/inbox`,
        outbox: `${id}/outbox`,
        followers: `${id}/followers`,
        preferredUsername: m("handle"),
        name: `${m("fediname")} Rao`,
        url: `${base}/@${user}`,
        publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: keys.publicKeyPem },
        endpoints: { sharedInbox: `${base}/inbox` },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const actor = `${base}/users/${user}`;
  return {
    base,
    actor,
    delivered,
    signed: async (activity: Record<string, unknown>) =>
      injected(await keys.signed(siteUrl, actor, { actor, ...activity })),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Every file under `folder`, with its bytes. */
function filesUnder(folder: string): { file: string; bytes: Buffer }[] {
  const out: { file: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(folder)) {
    const file = path.join(folder, name);
    try {
      if (statSync(file).isDirectory()) out.push(...filesUnder(file));
      else out.push({ file, bytes: readFileSync(file) });
    } catch {
      // deleted since it was listed
    }
  }
  return out;
}

/** A file's bytes as text; a mail's quoted-printable lines joined where they were cut. */
const readable = (file: string, bytes: Buffer) =>
  file.endsWith(".eml") ? bytes.toString("utf8").replace(/=\r?\n/g, "") : bytes.toString("latin1");

/** Every table of the app's database, read from the schema now. */
async function tables(t: TestApp): Promise<string[]> {
  const rows =
    t.backend === "sqlite"
      ? await runSql(t, "select name from sqlite_master where type = 'table'")
      : await runSql(t, "select tablename as name from pg_tables where schemaname = 'public'");
  return rows.map((row) => String(row.name));
}

/** A page's button that posts its link's token (confirm, cancel, delete), as the form sends it. */
const form = (t: TestApp, url: string, token: string) =>
  t.app.inject({
    method: "POST",
    url,
    headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({ token }).toString(),
  });

/** What the mail to an address says, as its recipient reads it: over SMTP, or in DATA_DIR/outbox. */
type Mailbox = { texts(to: string): Promise<string[]>; close(): Promise<void> };

/** A real SMTP server that refuses `unknown` as Postfix does an unknown mailbox, quoting it. */
async function smtpMailbox(unknown: string): Promise<Mailbox & { url: string }> {
  const smtp = await startSmtpSink();
  smtp.recipient = (address) =>
    address === unknown
      ? { code: 550, message: `5.1.1 <${address}>: Recipient address rejected: User unknown` }
      : undefined;
  return {
    url: smtp.url,
    texts: async (to) => smtp.to(to).map((mail) => mail.parsed.text ?? ""),
    close: () => smtp.close(),
  };
}

function folderMailbox(dataDir: string): Mailbox {
  return {
    texts: async (to) =>
      (await outboxMails(dataDir, (mail) => isAddressedTo(mail, to))).map(
        (mail) => mail.text ?? "",
      ),
    close: async () => {},
  };
}

/** Waits for `count` mails to `to`. */
const mailsTo = (mailbox: Mailbox, to: string, count: number) =>
  waitFor(async () => (await mailbox.texts(to)).length >= count, {
    timeoutMs: 20_000,
    what: `${count} mails to ${to}`,
  });

/** The first token of `pattern` in the newest mail to `to` that has one. */
async function tokenIn(mailbox: Mailbox, to: string, pattern: RegExp): Promise<string> {
  let token = "";
  await waitFor(
    async () => {
      for (const text of await mailbox.texts(to)) token = pattern.exec(text)?.[1] ?? token;
      return token !== "";
    },
    { timeoutMs: 20_000, what: `a link in the mail to ${to}` },
  );
  return token;
}

// Each database once and each way of mailing once: the mail leaves through
// SMTP or the outbox folder by the same code on either database, and the
// places a database keeps a trace its own (SQLite's file and log, PostgreSQL's
// rows) are swept in both runs. SQLite with SMTP, so a refused address's
// suppression is looked for in its file too; PostgreSQL with the folder.
describe.each([
  { backend: "sqlite", mail: "SMTP" },
  { backend: "postgres", mail: "DATA_DIR/outbox" },
] as const)(
  "a reader's data deleted, audited from the data's side, on $backend, mail to $mail",
  ({ backend, mail }) => {
    it("leaves no trace in any table, file, log, page, answer, live event, export or backup", {
      timeout: 300_000,
    }, async () => {
      const { m, found } = markers();
      const bounced = `${m("bounce")}@example.org`;
      const smtp = mail === "SMTP" ? await smtpMailbox(bounced) : undefined;
      const mailEnv: Record<string, string> = smtp ? { SMTP_URL: smtp.url } : {};
      const remote = await standIn(m);
      // The server's own log settings (its serializers and redactions), written here.
      const logs = capturedLogs("debug");
      const logger = { ...(loggerOptions("debug") as LoggerOptions), stream: logs.logger.stream };
      const out = mkdtempSync(path.join(os.tmpdir(), "ewe-audit-"));
      const t = await startTestApp(backend, {
        logger,
        assistantIndex: () => serializeIndex([]),
        env: {
          COOKIE_SECRET: cookieSecret,
          ...mailEnv,
          OWNER_EMAIL: ownerEmail,
          NOTIFY_COMMENTS: "each",
          FEDIVERSE_HANDLE: "arjun",
          ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on",
          ENQUIRIES_PER_HOUR: "100",
          BOOKINGS_PER_HOUR: "100",
        },
        clientFiles: {
          "feed.json": JSON.stringify(soapFeed),
          "science/soap/index.html": `<!doctype html><title>Soap</title><main>${fragment("science:soap", "summary", "How does soap clean?")}${fragment("science:soap", "comments")}${fragment("science:soap", "mentions", "How does soap clean?")}</main>`,
        },
      });
      const mailbox = smtp ?? folderMailbox(t.dataDir);
      const owner = new Owner(t);
      const env = { ...adminEnv(t), COOKIE_SECRET: cookieSecret };
      try {
        const baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
        expect((await owner.signIn()).statusCode).toBe(200);
        const feedToken = /\/book\/feed\/([A-Za-z0-9_-]+)\.ics/.exec(
          (await admin(env, "bookings", "feed", "--new")).stdout,
        )?.[1];
        expect(feedToken).toBeTruthy();

        // --- What readers write, a marker in every field. ---
        const comment = async (
          who: ReturnType<TestApp["visitor"]>,
          what: string,
          extra: Record<string, unknown> = {},
        ) => {
          const response = await who.post("/api/items/science/soap/comments", {
            content: `Soap works on grease in a cold rinse too, says ${m(what)} from the workshop.`,
            userName: `${m(`${what}name`)}`.slice(0, 40),
            formToken: t.commentToken(),
            ...extra,
          });
          expect(response.statusCode, response.body).toBe(201);
          return json(response, commentResponseSchema).comment.id;
        };

        // Alex: a comment with a reply-mail watch, a reaction and a booking; erased with Your data.
        const alex = t.visitor({ ip: "10.9.0.1" });
        const watched = `${m("watch")}@example.org`;
        const alexs = await comment(alex, "yours", { notifyEmail: watched });
        const confirmWatch = await tokenIn(
          mailbox,
          watched,
          /\/replies\/confirm\?token=([\w-]{43})/,
        );
        expect((await form(t, "/replies/confirm", confirmWatch)).statusCode).toBe(200);
        expect(
          (await alex.react("science", "soap", "love", m("reactname").slice(0, 40))).statusCode,
        ).toBe(201);
        const slots = json(await alex.get("/api/bookings/slots"), slotsResponseSchema).starts;
        const book = async (who: ReturnType<TestApp["visitor"]>, what: string, start: string) => {
          const email = `${m(`${what}mail`)}@example.org`;
          const response = await who.post("/api/bookings", {
            start,
            name: `${m(`${what}name`)} Iyer`,
            email,
            service: "dfmea",
            note: `Our pump module review, ${m(`${what}note`)} will join.`,
            zone: "Asia/Kolkata",
            formToken: bookingToken.issue(Date.now() - 60_000),
          });
          expect(response.statusCode, response.body).toBe(201);
          return email;
        };
        const alexBooked = await book(alex, "yourbook", slots[3] ?? "");
        // The owner moves Alex's call, with a reason the reader's mail carries (its outbox row too).
        const [alexsCall] = await runSql(t, "select id from bookings where email = ?", [
          alexBooked,
        ]);
        const moved = await owner.post(`/api/admin/bookings/${alexsCall?.id}/move`, {
          start: slots[4],
          reason: `Tuesday is out, ${m("yourbookmove")} sends regards`,
        });
        expect(moved.statusCode, moved.body).toBe(200);

        // Noa's address for reply mails is refused by its server, and so suppressed.
        const noa = t.visitor({ ip: "10.9.0.14" });
        await comment(noa, "noa", { notifyEmail: bounced });
        if (smtp) {
          await waitFor(async () => (await runSql(t, "select 1 from suppressions")).length === 1, {
            timeoutMs: 20_000,
            what: "the refused address suppressed",
          });
        }

        // Bea replies to Alex (a reply mail goes to Alex's watch), then deletes her reply.
        const bea = t.visitor({ ip: "10.9.0.2" });
        const beas = await comment(bea, "own", { parentId: alexs });
        await waitFor(
          async () => (await mailbox.texts(watched)).some((text) => text.includes(m("own"))),
          {
            timeoutMs: 20_000,
            what: "the reply mail",
          },
        );

        // Kim's reply stays, under Alex's comment once it is erased; Kim and the owner each
        // edit a comment, whose first words are deleted by it.
        const kim = t.visitor({ ip: "10.9.0.12" });
        const kims = json(
          await kim.reply("soap", alexs, "Cold rinses need a little more time, I find.", "Kim"),
          commentResponseSchema,
        ).comment.id;
        const edited = await comment(kim, "edited", { userName: "Kim" });
        const ownerEdited = await comment(t.visitor({ ip: "10.9.0.13" }), "owneredit", {
          userName: "Lee",
        });

        // Comments the owner deletes, rejects, marks as spam (its writer banned, then
        // erasing with Your data) and deletes from the command line.
        const carls = await comment(t.visitor({ ip: "10.9.0.3" }), "ownerdel");
        const danas = await comment(t.visitor({ ip: "10.9.0.4" }), "reject");
        const eve = t.visitor({ ip: "10.9.0.5" });
        const eves = await comment(eve, "spam");
        const fays = await comment(t.visitor({ ip: "10.9.0.6" }), "cli");
        const gus = t.visitor({ ip: "10.9.0.7" });
        const guss = await comment(gus, "purge");
        expect((await gus.react("science", "soap", "like", m("purgereact"))).statusCode).toBe(201);

        // A subscription, confirmed.
        const subscriber = `${m("sub")}@example.org`;
        expect((await requestSubscription(t, subscriber, "10.9.0.8")).statusCode).toBe(202);
        const confirmSub = await tokenIn(
          mailbox,
          subscriber,
          /\/newsletter\/confirm\?token=([\w-]{43})/,
        );
        expect(
          (await t.visitor().post("/api/subscribers/confirm", { token: confirmSub })).statusCode,
        ).toBe(200);

        // Enquiries, acknowledged to their senders and mailed to the owner: one deleted by
        // its sender's link, one the owner answers and deletes in the console, one deleted
        // from the command line.
        let ip = 20;
        const enquire = async (what: string) => {
          const email = `${m(`${what}mail`)}@example.org`;
          const sent = await t.visitor({ ip: `10.9.0.${++ip}` }).post("/api/enquiries", {
            name: `${m(`${what}name`)} Raman`,
            email,
            service: "dfmea",
            message: `We need a DFMEA workshop for a fuel pump module, ask for ${m(`${what}text`)} at the gate.`,
            organisation: `${m(`${what}org`)} Motors`,
            timeline: `Before ${m(`${what}when`)} week`,
            formToken: enquiryToken.issue(Date.now() - 60_000),
          });
          expect(sent.statusCode, sent.body).toBe(201);
          const token = await tokenIn(mailbox, email, /delete\?token=([\w-]{43})/);
          const [row] = await runSql(t, "select id from enquiries where email = ?", [email]);
          return { email, token, id: Number(row?.id) };
        };
        const byLink = await enquire("enq");
        const inConsole = await enquire("enqconsole");
        const fromCli = await enquire("enqcli");
        const answered = await owner.post(`/api/admin/enquiries/${inConsole.id}/answers`, {
          body: `Dear ${m("enqanswer")}, Tuesday suits me.`,
        });
        expect(answered.statusCode, answered.body).toBe(201);
        await mailsTo(mailbox, inConsole.email, 2);

        // A booking cancelled by its link, then deleted by the owner from the command line.
        const hal = t.visitor({ ip: "10.9.0.10" });
        const halBooked = await book(hal, "book", slots[5] ?? "");
        const cancelBooking = await tokenIn(
          mailbox,
          halBooked,
          /\/book\/cancel\?token=([\w-]{43})/,
        );

        // A question to the assistant.
        const asked = await t.visitor({ ip: "10.9.0.11" }).post("/api/assistant", {
          question: `How hot should ${m("ask")} iron cotton?`,
        });
        expect(asked.statusCode, asked.body).toBe(200);

        // A webmention from another site, verified and published.
        const mention = await t.app.inject({
          method: "POST",
          url: "/webmention",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          payload: new URLSearchParams({
            source: `${remote.base}/notes/${m("wmsource")}`,
            target: `${siteUrl}/science/soap`,
          }).toString(),
        });
        expect(mention.statusCode, mention.body).toBe(202);

        // A Fediverse account follows, likes the post and replies to it; the owner answers.
        const sent = async (activity: Record<string, unknown>) => {
          const response = await t.app.inject(await remote.signed(activity));
          expect(response.statusCode, response.body).toBe(202);
        };
        await sent({ id: `${remote.actor}#follows/1`, type: "Follow", object: actorUrl });
        await sent({ id: `${remote.actor}#likes/1`, type: "Like", object: soap });
        const status = `${remote.actor}/statuses/1`;
        await sent({
          id: `${status}/activity`,
          type: "Create",
          to: ["https://www.w3.org/ns/activitystreams#Public"],
          object: {
            id: status,
            type: "Note",
            inReplyTo: soap,
            attributedTo: remote.actor,
            to: ["https://www.w3.org/ns/activitystreams#Public"],
            url: `${remote.base}/@${m("actor")}/1`,
            content: `<p>Cold water needs more soap, ${m("fedinote")} says.</p>`,
          },
        });
        const fediComment = async () =>
          (
            await runSql(t, "select comment_id from fediverse_replies where actor_id = ?", [
              remote.actor,
            ])
          )[0]?.comment_id;
        await waitFor(
          async () =>
            (await fediComment()) !== undefined &&
            (await runSql(t, "select 1 from fediverse_followers")).length === 1 &&
            (await runSql(t, "select 1 from webmentions where status = 'published'")).length === 1,
          { timeoutMs: 120_000, what: "the follow, the reply and the webmention recorded" },
        );
        const answer = await owner.post(`/api/admin/comments/${await fediComment()}/reply`, {
          content: "Noted, thank you.",
        });
        expect(answer.statusCode, answer.body).toBe(201);
        await waitFor(async () => remote.delivered.some((body) => body.includes('"Create"')), {
          timeoutMs: 120_000,
          what: "the owner's answer delivered",
        });

        // Every mail so far has gone out.
        await waitFor(
          async () =>
            (
              await runSql(
                t,
                "select kind from outbox where status = 'queued' and next_attempt_at <= ?",
                [new Date().toISOString()],
              )
            ).length === 0,
          { timeoutMs: 60_000, what: "the outbox sent" },
        );
        // Before the deletions, the sweep below finds every marker: it can fail.
        const before = await sweep();
        const words = new Set(before.map((line) => line.split(": ")[1]));
        for (const what of [
          "yours",
          "yourbookmove",
          "watch",
          "own",
          "sub",
          "enqtext",
          "enqanswer",
          "edited",
          "owneredit",
          "enqclitext",
          "booknote",
          "ask",
          "wmtext",
          "fedinote",
          "handle",
        ])
          expect(words, what).toContain(what);
        // The pages' copies in memory, and the live events, were read.
        expect(before).toContain("/science/soap (socket): yours");
        expect(before).toContain("live events: yours");
        // What readers gave in private (addresses, enquiries, bookings, questions) is on no
        // public page, answer or live event, and went to no Fediverse server.
        const given = /^(watch|sub|enq[a-z]+|[a-z]*book[a-z]+|ask)$/;
        // The calendar feed is the owner's, at a secret address.
        const public_ = (where: string) =>
          where.startsWith("/") &&
          !where.startsWith("/api/admin") &&
          !where.startsWith("/book/feed");
        expect(
          before.filter((line) => {
            const [where = "", what = ""] = line.split(": ");
            return (public_(where) || where === "live events") && given.test(what);
          }),
        ).toEqual([]);
        expect(found(remote.delivered.join("\n")).filter((what) => given.test(what))).toEqual([]);

        // --- Every way of deleting. ---
        const edit = await kim.patch(`/api/comments/${edited}`, {
          content: "Cold rinses need more soap, on second thought.",
          userName: "Kim",
        });
        expect(edit.statusCode, edit.body).toBe(200);
        const ownerEdit = await owner.patch(`/api/admin/comments/${ownerEdited}`, {
          content: "A comment about rinsing, shortened by the owner.",
        });
        expect(ownerEdit.statusCode, ownerEdit.body).toBe(200);
        expect((await bea.delete(`/api/comments/${beas}`)).statusCode).toBe(204);
        expect((await owner.delete(`/api/admin/comments/${carls}`)).statusCode).toBe(204);
        expect((await owner.post(`/api/admin/comments/${danas}/reject`)).statusCode).toBe(204);
        expect((await owner.post(`/api/admin/comments/${eves}/spam`)).statusCode).toBe(204);
        expect((await owner.post(`/api/admin/comments/${eves}/ban`, { days: 1 })).statusCode).toBe(
          204,
        );
        expect((await eve.post("/api/your-data/delete", { confirm: true })).statusCode).toBe(200);
        expect((await admin(env, "comments", "delete", String(fays))).code).toBe(0);
        expect((await admin(env, "visitor", "purge", "--comment", String(guss))).code).toBe(0);
        expect((await alex.post("/api/your-data/delete", { confirm: true })).statusCode).toBe(200);
        expect((await noa.post("/api/your-data/delete", { confirm: true })).statusCode).toBe(200);
        expect((await form(t, "/enquiries/delete", byLink.token)).statusCode).toBe(200);
        expect((await owner.delete(`/api/admin/enquiries/${inConsole.id}`)).statusCode).toBe(204);
        expect((await admin(env, "enquiries", "delete", String(fromCli.id))).code).toBe(0);
        expect((await form(t, "/book/cancel", cancelBooking)).statusCode).toBe(200);
        const [halsRow] = await runSql(t, "select id from bookings where email = ?", [halBooked]);
        // The cancellation has gone out: its row is deleted once it has.
        await waitFor(
          async () =>
            (await runSql(t, "select 1 from outbox where kind = 'booking_cancellation'")).length ===
            0,
          { timeoutMs: 20_000, what: "the cancellation sent" },
        );
        expect((await admin(env, "bookings", "delete", String(halsRow?.id))).code).toBe(0);
        const [subRow] = await runSql(
          t,
          "select unsubscribe_token from subscribers where email = ?",
          [subscriber],
        );
        expect(
          (
            await t.visitor().post("/api/unsubscribe", {
              token: t.links.tokenOf(String(subRow?.unsubscribe_token)),
            })
          ).statusCode,
        ).toBe(200);
        expect((await admin(env, "subscribers", "remove", subscriber)).code).toBe(0);
        const [question] = await runSql(t, "select id from assistant_questions");
        expect((await admin(env, "questions", "delete", String(question?.id))).code).toBe(0);
        const [webmention] = await runSql(t, "select id from webmentions");
        expect((await admin(env, "webmentions", "remove", String(webmention?.id))).code).toBe(0);
        expect((await admin(env, "fediverse", "erase", remote.actor)).code).toBe(0);

        // --- What is kept on purpose (docs/privacy-requests.md). ---
        const kept: Record<string, string[]> = {
          // The block list keeps the erased account's address, so that nothing its
          // server still sends brings anything back; the console lists it, and the
          // audit trail names whom the owner erased.
          "fediverse_blocks.target": ["actor"],
          "owner_audit.object": ["actor"],
          "/api/admin/audit": ["actor"],
          "/api/admin/followers": ["actor"],
          // What the filter learnt from a comment marked as spam, in no order (the privacy page).
          "spam_examples.features": ["spam"],
          // The refused address's suppression, by the digest its rows held beside it (below).
          "suppressions.email_hash": ["bouncedigest"],
          // A booking's mailbox, by the keyed digest the hourly limits count it by, for the
          // hour (docs/decisions/081-booking-limits-outlast-erasure.md): it names nobody.
          "bookings_made.address_hash": ["bookdigest"],
          // The server's logs name the Fediverse accounts it talked to: the logs' rotation.
          logs: ["actor"],
          // The files that hold the tables above.
          "engage.sqlite": ["actor", "spam"],
          "engage.sqlite-wal": ["actor", "spam"],
          "admin export": ["actor", "spam"],
          "admin backup": ["actor", "spam"],
        };
        const unexpected = (lines: string[]) =>
          lines.filter((line) => {
            const [where = "", what = ""] = line.split(": ");
            return !kept[where]?.includes(what);
          });

        // The owner's answer is taken back from the erased account's server: its
        // queued Delete names the account until it has gone.
        await waitFor(
          async () =>
            remote.delivered.some((body) => body.includes('"Delete"')) &&
            (await runSql(t, "select 1 from fediverse_queue")).length === 0,
          { timeoutMs: 60_000, what: "the answer taken back from the erased account's server" },
        );
        await expect
          .poll(async () => unexpected(await sweep()), {
            timeout: 30_000,
          })
          .toEqual([]);

        // A start on the same database, as after a restart, brings nothing back.
        const next = await startTestApp(backend, {
          env: { COOKIE_SECRET: cookieSecret, ...mailEnv },
          dataDir: t.dataDir,
          ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : {}),
        });
        await next.close();
        expect(unexpected(await sweep())).toEqual([]);
        // The erased bookings still count toward their hour, by their mailboxes' digests alone.
        const counted = await runSql(t, "select address_hash from bookings_made");
        expect(counted.map((row) => row.address_hash)).toEqual(
          expect.arrayContaining([bookingKey(alexBooked), bookingKey(halBooked)]),
        );

        // The refused address is still suppressed, so that nothing is mailed to it again, by
        // a keyed digest: its server's words, which quoted it, without it.
        if (smtp) {
          expect(await runSql(t, "select email_hash, detail from suppressions")).toEqual([
            {
              email_hash: t.addressKey(bounced),
              detail: "550 5.1.1 <[address]>: Recipient address rejected: User unknown",
            },
          ]);
        }

        // What stands stays: Kim's reply, in the thread of Alex's erased comment.
        const page = await t.visitor().get("/api/items/science/soap/comments");
        expect(page.body).toContain("Cold rinses need a little more time");
        expect(kims).toBeGreaterThan(0);

        /** Where each marker is now: "place: word" lines. */
        async function sweep(): Promise<string[]> {
          const lines: string[] = [];
          const note = (where: string, text: string) => {
            for (const what of found(text)) lines.push(`${where}: ${what}`);
          };
          // The digest an address is held with beside it, which must go with it.
          const digests = new Map(
            Object.entries({ watch: watched, sub: subscriber, bounce: bounced }).map(
              ([what, email]) => [t.addressKey(email), `${what}digest`],
            ),
          );
          for (const email of [alexBooked, halBooked]) digests.set(bookingKey(email), "bookdigest");
          for (const table of await tables(t)) {
            for (const row of await runSql(t, `select * from ${table}`))
              for (const [column, value] of Object.entries(row)) {
                note(`${table}.${column}`, String(value));
                const digest = digests.get(String(value));
                if (digest) lines.push(`${table}.${column}: ${digest}`);
              }
          }
          for (const { file, bytes } of filesUnder(t.dataDir))
            note(path.relative(t.dataDir, file), readable(file, bytes));
          note("logs", JSON.stringify(logs.lines));
          const pages = [
            "/science/soap",
            "/api/items/science/soap/comments",
            "/api/items/science/soap/reactions",
            `/search?q=${m("search")}`,
            `/book/feed/${feedToken}.ics`,
            "/fediverse/actors/site/followers",
            "/fediverse/actors/site/outbox",
          ];
          // An iCalendar line folds at 75 octets, and may fold inside a marker.
          const unfolded = (text: string) => text.replace(/\r\n[ \t]/g, "");
          for (const url of pages) {
            note(url, unfolded((await t.app.inject({ method: "GET", url })).body));
            // Over the socket too: the server answers pages it filled before from memory.
            note(`${url} (socket)`, unfolded(await (await fetch(`${baseUrl}${url}`)).text()));
          }
          note(
            "/fediverse/items/science/soap",
            (await t.app.inject({ method: "GET", url: soap, headers: { accept: activityJson } }))
              .body,
          );
          for (const url of [
            "/api/admin/comments?status=all",
            "/api/admin/comments",
            "/api/admin/enquiries",
            "/api/admin/bookings",
            "/api/admin/bookings?past=true",
            "/api/admin/questions",
            "/api/admin/followers",
            "/api/admin/webmentions",
            "/api/admin/audit",
            "/api/admin/bans",
            "/api/admin/enquiries/export",
            "/api/admin/subscribers/export",
          ])
            note(url, (await owner.get(url)).body);
          note("live events", await replay("science:soap"));
          const exported = path.join(out, `export-${Date.now()}.json`);
          const exporting = await admin(env, "export", "--out", exported);
          expect(exporting.code, exporting.stderr).toBe(0);
          note("admin export", readFileSync(exported, "utf8"));
          rmSync(exported);
          if (t.backend === "sqlite") {
            const backup = path.join(out, `backup-${Date.now()}.sqlite`);
            expect((await admin(env, "backup", "--out", backup)).code).toBe(0);
            note("admin backup", readFileSync(backup).toString("latin1"));
            rmSync(backup);
          }
          return lines.sort();
        }

        async function replay(topic: string): Promise<string> {
          const stream = new EventStream(baseUrl, topic, "0");
          try {
            await stream.ready();
            return stream.events.map((event) => event.data).join("\n");
          } finally {
            stream.close();
          }
        }
      } finally {
        await t.close();
        await mailbox.close();
        remote.close();
        rmSync(out, { recursive: true, force: true });
      }
    });
  },
);
