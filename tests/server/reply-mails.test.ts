import { CompiledQuery } from "kysely";
import pg from "pg";
import { describe, expect, it } from "vitest";
import {
  commentResponseSchema,
  commentsResponseSchema,
  errorResponseSchema,
} from "../../contract/api.ts";
import { deleteYourDataResponseSchema, yourDataResponseSchema } from "../../contract/your-data.ts";
import { createReplyWatches, spellingsOf } from "../../server/comments/reply-watches.ts";
import { openStore } from "../../server/db/store.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { dom } from "./support/html.ts";
import { mailingApp } from "./support/mailing-app.ts";
import { Owner } from "./support/owner.ts";
import { header, type ReceivedMail, type SmtpSink } from "./support/smtp.ts";
import { runSql } from "./support/sql.ts";
import {
  backends,
  freshItem,
  json,
  siteUrl,
  startTestApp,
  type TestApp,
  type Visitor,
} from "./support/test-app.ts";

/*
 * Reply mails (docs/product.md, "Reply mails"): an address is confirmed once
 * by a POST from the confirmation mail's page; then each published reply in a
 * thread its reader wrote in is mailed, once, with RFC 8058 unsubscribe
 * headers; later replies within ten minutes go out as one digest.
 */

/** A clock the test moves: real time plus an offset, so retries and timeouts still run. */
function movableClock() {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms: number) {
      offset += ms;
    },
  };
}

const confirmLink = (mail: ReceivedMail) => {
  const match = /http:\/\/ewe\.test(\/replies\/confirm\?token=[A-Za-z0-9_-]{43})/.exec(
    mail.parsed.text ?? "",
  );
  if (!match) throw new Error("no confirmation link");
  return match[1] as string;
};

/** The path of the stop page a reply mail links. */
const stopPage = (mail: ReceivedMail) => {
  const match = /http:\/\/ewe\.test(\/replies\/unsubscribe\?token=[A-Za-z0-9_-]{43})/.exec(
    mail.parsed.text ?? "",
  );
  if (!match) throw new Error("no stop page link");
  return match[1] as string;
};

const tokenOf = (path: string) => new URL(path, siteUrl).searchParams.get("token") as string;

describe.each(backends)("reply mails on %s", (backend) => {
  let t: TestApp;
  let smtp: SmtpSink;
  const clock = movableClock();
  let address = 0;
  /** A fresh inbox per test: mails are told apart by recipient. */
  const inbox = () => {
    address += 1;
    return `reader${address}.${backend}@example.org`;
  };

  /**
   * A fresh inbox, the same mailbox with a +tag, and beside it, at a provider
   * whose dots count, someone else (its name without the dot); and one Gmail
   * mailbox under both of its names, with and without the dot.
   */
  const spellings = () => {
    const email = inbox();
    const [local, domain] = email.split("@") as [string, string];
    const undotted = local.replace(".", "");
    return {
      email,
      tagged: `${local}+cars@${domain}`,
      neighbour: `${undotted}@${domain}`,
      gmail: `${local}@gmail.com`,
      googlemail: `${undotted}@googlemail.com`,
    };
  };

  mailingApp(
    backend,
    {
      env: {},
      mail: { clock: clock.now },
    },
    (app) => ({ t, smtp } = app),
  );

  const questions = [
    "How long does a lithium cell keep its charge on a shelf?",
    "Why do cold mornings make a car battery feel weak?",
    "Is it better to store a drill battery full or half charged?",
    "What wears out first in a phone battery, the anode or the cathode?",
    "Does fast charging age a cell faster than slow charging?",
    "How do engineers measure the internal resistance of a cell?",
    "Why do battery packs need a management system at all?",
    "Can a swollen pouch cell be used safely again?",
    "What makes sodium cells cheaper than lithium ones?",
    "How hot may a charging cell get before it is damaged?",
  ];
  let asked = 0;

  /** A comment asking for reply mails; returns its id. */
  async function ask(visitor: Visitor, postId: string, email: string, parentId?: number) {
    asked += 1;
    const response = await visitor.post(`/api/items/science/${postId}/comments`, {
      // Numbered: the same long text twice from one address is refused as a repeat.
      content: `${questions[asked % questions.length]} (${asked})`,
      userName: "Asha",
      formToken: t.commentToken(),
      notifyEmail: email,
      ...(parentId === undefined ? {} : { parentId }),
    });
    expect(response.statusCode).toBe(201);
    return json(response, commentResponseSchema).comment.id;
  }

  /** Presses the Confirm button of the page a confirmation link opens. */
  const pressConfirm = (link: string) =>
    t.app.inject({
      method: "POST",
      url: "/replies/confirm",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: `token=${tokenOf(link)}`,
    });

  /** Opens the confirmation mail's link (the `nth` mailed to `email`) and presses its button. */
  async function confirm(email: string, nth = 0) {
    await smtp.waitFor(() => smtp.to(email).length > nth);
    const link = confirmLink(smtp.to(email)[nth] as ReceivedMail);
    const page = await t.app.inject({ method: "GET", url: link });
    expect(page.statusCode).toBe(200);
    const form = dom(page.body).querySelector("form");
    expect(form?.getAttribute("method")).toBe("post");
    expect(form?.querySelector("button")?.textContent).toBe("Confirm");
    const done = await pressConfirm(link);
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain("Reply notifications confirmed");
  }

  async function queuedFor(email: string) {
    return runSql(t, "select kind, status from outbox where email = ? order by id", [email]);
  }

  /** Presses "Stop all reply mails" on the page `mail` links. */
  const stopAll = (mail: ReceivedMail) =>
    t.app.inject({
      method: "POST",
      url: "/replies/unsubscribe",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: `token=${tokenOf(stopPage(mail))}&scope=all`,
    });

  it("confirms once by POST, then mails a reply's text with one-click headers, never the replier's own", async () => {
    const postId = freshItem("science");
    const email = inbox();
    const asker = t.visitor();
    const question = await ask(asker, postId, email);
    await smtp.waitFor(() => smtp.to(email).length === 1);
    const confirmation = smtp.to(email)[0] as ReceivedMail;
    expect(confirmation.parsed.subject).toBe(
      "Confirm reply notifications from Engage with Engineer",
    );

    // Not confirmed yet: a reply mails nothing.
    const early = await t.visitor().reply(postId, question, "Years, if kept cool.", "Ravi");
    expect(early.statusCode).toBe(201);
    expect((await queuedFor(email)).map((row) => row.kind)).toEqual(["reply_confirmation"]);

    // Opening the link alone changes nothing; a POST from elsewhere is refused.
    const link = confirmLink(confirmation);
    await t.app.inject({ method: "GET", url: link });
    const forged = await t.app.inject({
      method: "POST",
      url: "/replies/confirm",
      headers: {
        origin: "https://evil.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      payload: `token=${tokenOf(link)}`,
    });
    expect(forged.statusCode).toBe(403);
    await confirm(email);
    // Pressed again (a second tab, the mail opened twice): done already, not an unknown link.
    const again = await pressConfirm(link);
    expect(again.statusCode).toBe(200);
    expect(dom(again.body).querySelector("h1")?.textContent).toBe("Already confirmed");

    const answer = json(
      await t
        .visitor()
        .reply(
          postId,
          question,
          "About **2 %** a year at room temperature, says [the cell's datasheet](https://en.wikipedia.org/wiki/Self-discharge).",
          "Meera",
        ),
      commentResponseSchema,
    ).comment.id as number;
    await smtp.waitFor(() => smtp.to(email).length === 2);
    const mail = smtp.to(email)[1] as ReceivedMail;
    expect(mail.parsed.subject).toBe(`Replies in your conversation on "${postId}"`);
    expect(mail.parsed.text).toContain(`Meera replied on "${postId}":`);
    // Quoted as the reader sees it on the page, not as the Markdown typed.
    expect(mail.parsed.text).toContain(
      "About 2 % a year at room temperature, says the cell's datasheet (https://en.wikipedia.org/wiki/Self-discharge).",
    );
    expect(mail.parsed.text).not.toContain("**");
    // The reply on the site, marked as followed from a reply mail (docs/product.md, "Readers").
    expect(mail.parsed.text).toContain(
      `${siteUrl}/science/${postId}?utm_source=mail&utm_medium=email&utm_campaign=reply#comment-${answer}`,
    );
    expect(mail.parsed.html || "").toContain("<strong>2 %</strong>");
    expect(mail.parsed.html || "").toContain('href="https://en.wikipedia.org/wiki/Self-discharge"');
    const oneClick = header(mail, "List-Unsubscribe");
    expect(oneClick).toMatch(/^<http:\/\/ewe\.test\/replies\/one-click\?token=[A-Za-z0-9_-]{43}>$/);
    expect(header(mail, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    expect(mail.parsed.text).toMatch(/http:\/\/ewe\.test\/replies\/unsubscribe\?token=/);
    // Each with a Message-ID of its own on the site's domain, not MAIL_FROM's (localhost here).
    expect(header(mail, "From")).toContain("@localhost>");
    for (const sent of [confirmation, mail])
      expect(sent.parsed.messageId).toMatch(/^<[0-9a-f-]{36}@ewe\.test>$/);
    expect(mail.parsed.messageId).not.toBe(confirmation.parsed.messageId);

    // The asker's own reply in the thread mails nobody.
    await asker.reply(postId, question, "Thank you both!", "Asha");
    expect((await queuedFor(email)).map((row) => row.kind)).toEqual([
      "reply_confirmation",
      "reply_notice",
    ]);

    // One click (RFC 8058) stops further mails; a GET of that address asks first.
    const oneClickPath = oneClick.slice(1, -1).replace(siteUrl, "");
    const opened = await t.app.inject({ method: "GET", url: oneClickPath });
    expect(opened.statusCode).toBe(303);
    expect(opened.headers.location).toMatch(/^\/replies\/unsubscribe\?token=/);
    const clicked = await t.app.inject({
      method: "POST",
      url: oneClickPath,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "List-Unsubscribe=One-Click",
    });
    expect(clicked.statusCode).toBe(200);
    await t.visitor().reply(postId, question, "One more thought on self-discharge.", "Ravi");
    expect(
      await runSql(t, "select id from reply_watches where comment_id = ?", [question]),
    ).toEqual([]);
    expect((await queuedFor(email)).map((row) => row.kind)).toEqual(["reply_confirmation"]);
  });

  it("names a replier whose name spells an encoded word as typed, and never in the subject", async () => {
    const postId = freshItem("science");
    const email = inbox();
    const question = await ask(t.visitor(), postId, email);
    await confirm(email);
    // A bidi override and a line break, which the name check refuses, hidden in an encoded word.
    const name = `=?utf-8?B?${Buffer.from("Bank\u202e\r\nX").toString("base64")}?=`;
    const replied = await t.visitor().reply(postId, question, "Keep it half charged.", name);
    expect(replied.statusCode).toBe(201);
    await smtp.waitFor(() => smtp.to(email).length === 2);
    const mail = smtp.to(email)[1] as ReceivedMail;
    // The subject is the thread's, whoever replied; the text shows the name as typed.
    expect(mail.parsed.subject).toBe(`Replies in your conversation on "${postId}"`);
    expect(mail.parsed.text).toContain(`${name} replied on "${postId}":`);
    expect(mail.parsed.text).not.toMatch(/[\u202e]|Bank/);
  });

  it("keeps a line that opens with a right-to-left name reading left to right", async () => {
    const postId = freshItem("science");
    const email = inbox();
    const question = await ask(t.visitor(), postId, email);
    await confirm(email);
    const replied = await t.visitor().reply(postId, question, "Keep it half charged.", "ليلى");
    expect(replied.statusCode).toBe(201);
    await smtp.waitFor(() => smtp.to(email).length === 2);
    const mail = smtp.to(email)[1] as ReceivedMail;
    // Set apart (FSI … PDI): the line's first strong letter is the "r" of "replied".
    expect(mail.parsed.text).toContain(`\u2068ليلى\u2069 replied on "${postId}":`);
  });

  it("mails the first reply at once and the next ones in the ten minutes after as one digest", async () => {
    const postId = freshItem("science");
    const email = inbox();
    const question = await ask(t.visitor(), postId, email);
    await confirm(email);
    await t.visitor().reply(postId, question, "First answer about the cell.", "Ravi");
    await smtp.waitFor(() => smtp.to(email).length === 2);
    // The SMTP server has the notice a moment before the worker records it sent.
    await waitFor(async () => (await queuedFor(email)).every((row) => row.status === "sent"), {
      what: "the notice recorded as sent",
    });
    await t.visitor().reply(postId, question, "Second answer, on temperature.", "Meera");
    await t.visitor().reply(postId, question, "Third answer, on storage charge.", "Kiran");
    expect((await queuedFor(email)).map((row) => [row.kind, row.status])).toEqual([
      ["reply_confirmation", "sent"],
      ["reply_notice", "sent"],
      ["reply_digest", "queued"],
      ["reply_digest", "queued"],
    ]);
    clock.advance(11 * 60 * 1000);
    await smtp.waitFor(() => smtp.to(email).length === 3);
    const digest = smtp.to(email)[2] as ReceivedMail;
    // One thread: the notice's subject, answering the same Message-ID, as mail programs thread them.
    const [notice] = smtp.to(email).slice(1) as ReceivedMail[];
    expect(digest.parsed.subject).toBe(`Replies in your conversation on "${postId}"`);
    expect(notice?.parsed.subject).toBe(digest.parsed.subject);
    const root = `<replies.${question}@ewe.test>`;
    for (const mail of [notice, digest]) {
      expect(mail?.parsed.inReplyTo).toBe(root);
      expect(mail?.parsed.references).toBe(root);
    }
    expect(digest.parsed.messageId).not.toBe(notice?.parsed.messageId);
    expect(digest.parsed.text).toContain("Second answer, on temperature.");
    expect(digest.parsed.text).toContain("Third answer, on storage charge.");
    expect(header(digest, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
  });

  it("stops every thread a digest of several holds, by its one click or its page", async () => {
    const [first, second] = [freshItem("science"), freshItem("science")];
    const email = inbox();
    const reader = t.visitor();
    const questions = [await ask(reader, first, email), await ask(reader, second, email)];
    await confirm(email);
    const sent = (count: number) =>
      waitFor(
        async () =>
          (await queuedFor(email)).filter((row) => row.status === "sent").length === count,
        { what: `${count} mails recorded as sent` },
      );
    // Each thread's first reply goes at once; the next ones wait for one digest.
    await t.visitor().reply(first, questions[0] as number, "On the shelf, years.", "Ravi");
    await t.visitor().reply(second, questions[1] as number, "Cold slows the ions.", "Meera");
    await sent(3);
    await t.visitor().reply(first, questions[0] as number, "Keep it cool, too.", "Kiran");
    await t.visitor().reply(second, questions[1] as number, "Warm it first.", "Ravi");
    clock.advance(11 * 60 * 1000);
    await smtp.waitFor(() => smtp.to(email).length === 4);
    const digest = smtp.to(email)[3] as ReceivedMail;
    expect(digest.parsed.text).toContain("Keep it cool, too.");
    expect(digest.parsed.text).toContain("Warm it first.");
    // Of two threads: a subject of its own, in neither thread.
    expect(digest.parsed.subject).toBe("2 new replies on Engage with Engineer");
    expect(digest.parsed.inReplyTo).toBeUndefined();

    // Its page offers only what the mail is about: both threads.
    const asked = dom((await t.app.inject({ method: "GET", url: stopPage(digest) })).body);
    expect([...asked.querySelectorAll("form button")].map((b) => b.textContent)).toEqual([
      "Stop all reply mails",
    ]);
    const clicked = await t.app.inject({
      method: "POST",
      url: header(digest, "List-Unsubscribe").slice(1, -1).replace(siteUrl, ""),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "List-Unsubscribe=One-Click",
    });
    expect(clicked.statusCode).toBe(200);
    await t.visitor().reply(first, questions[0] as number, "A last word on the shelf.", "Meera");
    await t.visitor().reply(second, questions[1] as number, "A last word on the cold.", "Kiran");
    expect(await queuedFor(email)).toEqual([]);
    expect(smtp.to(email)).toHaveLength(4);
  });

  it("mails a held reply only once it is approved", async () => {
    const postId = freshItem("science");
    const email = inbox();
    const question = await ask(t.visitor(), postId, email);
    await confirm(email);
    // A link from a browser the site does not know yet is held.
    const held = await t
      .visitor()
      .reply(postId, question, "See https://example.com/cells for a chart.", "Ravi");
    expect(json(held, commentResponseSchema).comment.awaitingApproval).toBe(true);
    expect((await queuedFor(email)).map((row) => row.kind)).toEqual(["reply_confirmation"]);
    await admin(
      adminEnv(t),
      "comments",
      "approve",
      String(json(held, commentResponseSchema).comment.id),
    );
    await smtp.waitFor(() => smtp.to(email).length === 2);
    expect(smtp.to(email)[1]?.parsed.text).toContain("https://example.com/cells");
  });

  it("never mails a reader their own reply from another browser, approved or published, yet mails their neighbour", async () => {
    const { email, tagged, neighbour } = spellings();
    const postId = freshItem("science");
    const question = await ask(t.visitor(), postId, email);
    await ask(t.visitor(), postId, neighbour, question);
    await confirm(email);
    await confirm(neighbour);
    // From the phone, following under another spelling of the laptop's mailbox: a link
    // from a browser the site does not know is held, then approved; the next is published.
    const phone = t.visitor();
    const held = await phone.post(`/api/items/science/${postId}/comments`, {
      content: "A chart of it: https://example.com/cells",
      userName: "Asha",
      formToken: t.commentToken(),
      notifyEmail: tagged,
      parentId: question,
    });
    expect(json(held, commentResponseSchema).comment.awaitingApproval).toBe(true);
    // The phone's address is the writer's once confirmed there (a typed one could be anyone's).
    await confirm(tagged);
    await admin(
      adminEnv(t),
      "comments",
      "approve",
      String(json(held, commentResponseSchema).comment.id),
    );
    await ask(phone, postId, tagged, question);
    const kinds = async (address: string) => (await queuedFor(address)).map((row) => row.kind);
    // The neighbour is told of both: the second in a digest, or at once when the
    // console's approval (real time) and the server (a clock tests move) disagree.
    expect(await kinds(neighbour)).toEqual([
      "reply_confirmation",
      "reply_notice",
      expect.stringMatching(/^reply_(notice|digest)$/),
    ]);
    expect(await kinds(email)).toEqual(["reply_confirmation"]);
    // A stranger's reply still reaches the laptop's address.
    await t.visitor().reply(postId, question, "Keep it at half charge.", "Ravi");
    await smtp.waitFor(() => smtp.to(email).length === 2);
    expect(smtp.to(email)[1]?.parsed.text).toContain("Keep it at half charge.");
  });

  it("mails a follower a stranger's reply that gives the follower's mailbox as its own without confirming it", async () => {
    const { email, tagged } = spellings();
    const postId = freshItem("science");
    const question = await ask(t.visitor(), postId, email);
    await confirm(email);
    // A stranger types another spelling of the follower's mailbox: never confirmed, it is not theirs.
    await ask(t.visitor(), postId, tagged, question);
    await smtp.waitFor(() => smtp.to(email).length === 2);
    expect((await queuedFor(email)).map((row) => row.kind)).toEqual([
      "reply_confirmation",
      "reply_notice",
    ]);
  });

  it("stops every thread's mails with 'Stop all reply mails', forgets the address, and sends strangers' asks nothing", async () => {
    const email = inbox();
    const reader = t.visitor();
    const [firstPost, secondPost] = [freshItem("science"), freshItem("science")];
    const first = await ask(reader, firstPost, email);
    const second = await ask(reader, secondPost, email);
    await confirm(email);
    await t.visitor().reply(firstPost, first, "An answer in the first thread.", "Ravi");
    await smtp.waitFor(() => smtp.to(email).length === 2);
    const notice = smtp.to(email)[1] as ReceivedMail;
    const asked = dom((await t.app.inject({ method: "GET", url: stopPage(notice) })).body);
    const buttons = [...asked.querySelectorAll("form button")].map((b) => b.textContent);
    expect(buttons).toEqual(["Stop mails for this thread", "Stop all reply mails"]);
    const stopped = await stopAll(notice);
    expect(stopped.statusCode).toBe(200);
    expect(stopped.body).toContain("the site has forgotten it");

    // Neither thread mails it again, and the address is gone with its records,
    // as the privacy page promises ("stopping all deletes the address and its records").
    await t.visitor().reply(firstPost, first, "Another answer in the first thread.", "Meera");
    await t.visitor().reply(secondPost, second, "An answer in the second thread.", "Kiran");
    expect(await queuedFor(email)).toEqual([]);
    expect(await runSql(t, "select id from reply_addresses where email = ?", [email])).toEqual([]);
    expect(
      await runSql(t, "select id from reply_watches where comment_id in (?, ?)", [first, second]),
    ).toEqual([]);
    expect(json(await reader.get("/api/your-data"), yourDataResponseSchema).replyAddresses).toEqual(
      [],
    );

    // Typed into the form again, by anyone, in any case: answered as usual, mailed nothing.
    await ask(t.visitor(), freshItem("science"), email.toUpperCase());
    expect(await runSql(t, "select kind from outbox where lower(email) = ?", [email])).toEqual([]);
    // Nor with a +tag, which reaches the same mailbox; but at a provider whose
    // addresses' dots count, the same name without its dot is someone else's.
    const [local, domain] = email.split("@") as [string, string];
    await ask(t.visitor(), freshItem("science"), `${local}+again@${domain}`);
    expect(await queuedFor(`${local}+again@${domain}`)).toEqual([]);
    const neighbour = `${local.replace(".", "")}@${domain}`;
    await ask(t.visitor(), freshItem("science"), neighbour);
    await smtp.waitFor(() => smtp.to(neighbour).length === 1);
    // Until its reader asks the owner to lift the stop: the next day, as these three
    // spellings had the mailbox's share of confirmations (counted loosely) for today.
    clock.advance(24 * 60 * 60 * 1000);
    expect((await admin(adminEnv(t), "suppressions", "lift", email)).code).toBe(0);
    await ask(t.visitor(), freshItem("science"), email);
    await smtp.waitFor(() => smtp.to(email).length === 3);
    expect(smtp.to(email)[2]?.parsed.subject).toBe(
      "Confirm reply notifications from Engage with Engineer",
    );
  });

  it("lifts a reader's stop of all reply mails from the console, as from the command line", async () => {
    const email = inbox();
    const postId = freshItem("science");
    const question = await ask(t.visitor(), postId, email);
    await confirm(email);
    await t.visitor().reply(postId, question, "An answer to be stopped.", "Ravi");
    await smtp.waitFor(() => smtp.to(email).length === 2);
    expect((await stopAll(smtp.to(email)[1] as ReceivedMail)).statusCode).toBe(200);
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const lift = () => owner.post("/api/admin/suppressions/lift", { email });
    expect((await lift()).statusCode).toBe(204);
    // Lifted once: nothing is left to lift, and the next ask is mailed a confirmation.
    expect((await lift()).statusCode).toBe(404);
    await ask(t.visitor(), freshItem("science"), email);
    await smtp.waitFor(() => smtp.to(email).length === 3);
    expect(smtp.to(email)[2]?.parsed.subject).toBe(
      "Confirm reply notifications from Engage with Engineer",
    );
  });

  it("stops all mails to the address with 'Stop all reply mails', whichever browser left it", async () => {
    const email = inbox();
    const [laptop, phone] = [t.visitor(), t.visitor()];
    const [laptopPost, phonePost] = [freshItem("science"), freshItem("science")];
    const fromLaptop = await ask(laptop, laptopPost, email);
    await confirm(email, 0);
    const fromPhone = await ask(phone, phonePost, email);
    await confirm(email, 1);
    await t.visitor().reply(laptopPost, fromLaptop, "An answer on the laptop's thread.", "Ravi");
    await smtp.waitFor(() => smtp.to(email).length === 3);
    const stopped = await stopAll(smtp.to(email)[2] as ReceivedMail);
    expect(stopped.body).toContain("No more reply mails will be sent to this address");

    await t.visitor().reply(phonePost, fromPhone, "An answer on the phone's thread.", "Meera");
    expect((await queuedFor(email)).filter((row) => row.kind !== "reply_confirmation")).toEqual([]);
    expect(await runSql(t, "select id from reply_addresses where email = ?", [email])).toEqual([]);
    for (const browser of [laptop, phone]) {
      expect(
        json(await browser.get("/api/your-data"), yourDataResponseSchema).replyAddresses,
      ).toEqual([]);
    }
    expect(smtp.to(email)).toHaveLength(3);
  });

  it("stops every spelling of the mailbox with 'Stop all reply mails', and none of a neighbour's", async () => {
    const { email, tagged, neighbour, gmail, googlemail } = spellings();
    const addresses = [email, tagged, neighbour, gmail, googlemail];
    const threads = new Map<string, { postId: string; comment: number }>();
    for (const address of addresses) {
      const postId = freshItem("science");
      threads.set(address, { postId, comment: await ask(t.visitor(), postId, address) });
      await confirm(address);
    }
    /** Replies in the thread `address` follows, numbered by it. */
    const reply = (address: string, text: string) => {
      const { postId, comment } = threads.get(address)!;
      return t
        .visitor()
        .reply(postId, comment, `${text} ${addresses.indexOf(address) + 1}.`, "Ravi");
    };
    /** Stops all from the stop page the first reply mail to `address` links. */
    async function stopAllOf(address: string) {
      await reply(address, "A first answer in thread");
      await smtp.waitFor(() => smtp.to(address).length === 2);
      const stopped = await stopAll(smtp.to(address)[1] as ReceivedMail);
      expect(stopped.body).toContain("No more reply mails will be sent to this address");
    }
    await stopAllOf(tagged);
    await stopAllOf(gmail);
    for (const address of addresses) await reply(address, "A later answer in thread");
    // The later replies mail neither spelling, which are forgotten with their
    // mails, the ones sent before the stop included.
    for (const address of [email, tagged, gmail, googlemail]) {
      expect(await queuedFor(address)).toEqual([]);
      expect(await runSql(t, "select id from reply_addresses where email = ?", [address])).toEqual(
        [],
      );
    }
    // The neighbour's mails go on: the reply that follows the stops reaches them.
    await smtp.waitFor(() => smtp.to(neighbour).length === 2);
    expect(smtp.to(neighbour)[1]?.parsed.text).toContain("A later answer in thread 3.");
    for (const address of [email, googlemail]) expect(smtp.to(address)).toHaveLength(1);
    for (const address of [tagged, gmail]) expect(smtp.to(address)).toHaveLength(2);
  });

  it("finds a Gmail mailbox's spellings among 20,000 other Gmail addresses by its name's index, for the cap and the stop", async () => {
    const { gmail, googlemail } = spellings();
    const local = gmail.slice(0, gmail.indexOf("@"));
    const addresses = [gmail, `${local}+news@gmail.com`, googlemail];
    // Other readers at Gmail, each sent a confirmation mail today, written with their digest as
    // this version writes them (those an older instance left without one: rolling-upgrade-digests).
    const now = new Date().toISOString();
    const others = Array.from(
      { length: 20_000 },
      (_, i) => `bulk.${i}.${backend}@${i % 2 ? "gmail.com" : "googlemail.com"}`,
    );
    for (let i = 0; i < others.length; i += 500) {
      const chunk = others.slice(i, i + 500);
      await runSql(
        t,
        `insert into reply_addresses (visitor_id, email, email_hash, status, unsubscribe_token, created_at, confirmation_sent_at) values ${chunk
          .map(() => "(?, ?, ?, 'confirmed', ?, ?, ?)")
          .join(", ")}`,
        chunk.flatMap((email) => [
          crypto.randomUUID(),
          email,
          t.addressKey(email),
          `bulk-${email}`,
          now,
          now,
        ]),
      );
    }
    const bulk = async () =>
      Number(
        (
          await runSql(t, "select count(*) as n from reply_addresses where email like ?", [
            `bulk.%.${backend}@%`,
          ])
        )[0]?.n,
      );
    try {
      // The query finds them by the index on their name, not by reading every Gmail address.
      if (backend === "postgres") await runSql(t, "analyze reply_addresses");
      const store = await openStore(
        t.databaseUrl
          ? { kind: "postgres", connectionString: t.databaseUrl }
          : { kind: "sqlite", file: `${t.dataDir}/engage.sqlite` },
      );
      try {
        const query = store.db
          .selectFrom("reply_addresses")
          .select("id")
          .where(spellingsOf(backend, addresses[1] as string))
          .compile();
        const explain = backend === "postgres" ? "explain" : "explain query plan";
        const plan = await store.db.executeQuery(
          CompiledQuery.raw(`${explain} ${query.sql}`, [...query.parameters]),
        );
        expect(JSON.stringify(plan.rows)).toContain("reply_addresses_by_name");
      } finally {
        await store.close();
      }
      // The day's share counts the three spellings among the others: a fourth is refused.
      const threads = [];
      for (const address of addresses) {
        const postId = freshItem("science");
        threads.push({ postId, comment: await ask(t.visitor(), postId, address) });
      }
      const fourth = await t.visitor().post(`/api/items/science/${freshItem("science")}/comments`, {
        content: "Is a fourth spelling of the mailbox mailed today?",
        userName: "Mallory",
        formToken: t.commentToken(),
        notifyEmail: `${local.replace(".", "")}+again@gmail.com`,
      });
      expect(fourth.statusCode).toBe(429);
      // "Stop all reply mails" from one forgets every spelling, and none of the others.
      await confirm(gmail);
      const [first] = threads as [{ postId: string; comment: number }];
      await t.visitor().reply(first.postId, first.comment, "Keep the cells cool.", "Ravi");
      await smtp.waitFor(() => smtp.to(gmail).length === 2);
      const stopped = await stopAll(smtp.to(gmail)[1] as ReceivedMail);
      expect(stopped.body).toContain("No more reply mails will be sent to this address");
      for (const address of addresses) {
        expect(
          await runSql(t, "select id from reply_addresses where email = ?", [address]),
        ).toEqual([]);
      }
      expect(await bulk()).toBe(others.length);
    } finally {
      await runSql(t, "delete from reply_addresses where email like ?", [`bulk.%.${backend}@%`]);
    }
  });

  it("mails each mailbox following a thread once per reply, whichever spellings follow it", async () => {
    // Followers of one thread: three mailboxes under five spellings.
    const { email, tagged, neighbour, gmail, googlemail } = spellings();
    const postId = freshItem("science");
    const question = await ask(t.visitor(), postId, email);
    for (const address of [tagged, neighbour, gmail, googlemail]) {
      await ask(t.visitor(), postId, address, question);
    }
    for (const address of [email, tagged, neighbour, gmail, googlemail]) await confirm(address);

    await t.visitor().reply(postId, question, "Cells age slower when kept cool.", "Ravi");
    const mailboxes = [[email, tagged], [neighbour], [gmail, googlemail]];
    const all = mailboxes.flat();
    const notices = async () =>
      (await Promise.all(all.map(queuedFor))).flat().filter((row) => row.kind === "reply_notice");
    await waitFor(
      async () => {
        const rows = await notices();
        return rows.length > 0 && rows.every((row) => row.status === "sent");
      },
      { what: "the reply's notices recorded as sent" },
    );
    const replyMails = (address: string) =>
      smtp.to(address).filter((mail) => mail.parsed.text?.includes("Ravi replied on"));
    for (const spellings of mailboxes) {
      expect(spellings.flatMap(replyMails).map((mail) => mail.parsed.text)).toEqual([
        expect.stringContaining("Cells age slower when kept cool."),
      ]);
    }
  });

  it("forgets an address never confirmed a week after its confirmation mail, with its watch", async () => {
    const [stale, recent, confirmed] = [inbox(), inbox(), inbox()];
    const postId = freshItem("science");
    const staleComment = await ask(t.visitor(), postId, stale);
    await ask(t.visitor(), postId, recent);
    await ask(t.visitor(), postId, confirmed);
    await confirm(confirmed);
    await smtp.waitFor(() => smtp.to(stale).length === 1 && smtp.to(recent).length === 1);
    // The confirmed address is as old: confirmed, it is kept however old.
    const eightDaysAgo = new Date(Date.now() - 8 * 86_400_000).toISOString();
    await runSql(
      t,
      "update reply_addresses set created_at = ?, confirmation_sent_at = ? where email in (?, ?)",
      [eightDaysAgo, eightDaysAgo, stale, confirmed],
    );
    const store = await openStore(
      t.databaseUrl
        ? { kind: "postgres", connectionString: t.databaseUrl }
        : { kind: "sqlite", file: `${t.dataDir}/engage.sqlite` },
    );
    await createReplyWatches(store, {
      clock: () => new Date(),
      mailboxKey: (email) => email,
      addressKey: t.addressKey,
      links: t.links,
    })
      .prune()
      .finally(() => store.close());
    const left = await runSql(t, "select email from reply_addresses where email in (?, ?, ?)", [
      stale,
      recent,
      confirmed,
    ]);
    expect(left.map((row) => row.email).sort()).toEqual([confirmed, recent].sort());
    expect(
      await runSql(t, "select id from reply_watches where comment_id = ?", [staleComment]),
    ).toEqual([]);
    expect(await queuedFor(stale)).toEqual([]);
    // The comment stays: only the address it asked mails at goes.
    const { comments } = json(
      await t.visitor().get(`/api/items/science/${postId}/comments`),
      commentsResponseSchema,
    );
    expect(comments.map((comment) => comment.id)).toContain(staleComment);
  });

  it("forgets the record of a reply mail sent, the reply once deleted, and keeps the others'", async () => {
    const postId = freshItem("science");
    const email = inbox();
    const question = await ask(t.visitor(), postId, email);
    await confirm(email);
    const ravi = t.visitor();
    const going = json(
      await ravi.reply(postId, question, "Years, if kept cool.", "Ravi"),
      commentResponseSchema,
    ).comment.id;
    await smtp.waitFor(() => smtp.to(email).length === 2);
    const staying = json(
      await t.visitor().reply(postId, question, "Months, if kept warm.", "Meera"),
      commentResponseSchema,
    ).comment.id;
    // Within ten minutes of the first, it waits for the digest.
    clock.advance(11 * 60_000);
    const sentFor = async () =>
      (
        await runSql(
          t,
          "select payload from outbox where email = ? and status = 'sent' and kind <> 'reply_confirmation'",
          [email],
        )
      )
        .map((row) => Number(JSON.parse(String(row.payload)).replyId))
        .sort((a, b) => a - b);
    await expect.poll(sentFor, { timeout: 20_000 }).toEqual([going, staying]);
    expect((await ravi.delete(`/api/comments/${going}`)).statusCode).toBe(204);
    // Without SMTP_URL the row is the record of the mail's file, which quotes the reply.
    expect(await sentFor()).toEqual([staying]);
  });

  it("mails nobody of a rejected reply, and the next published one as the first", async () => {
    const postId = freshItem("science");
    const email = inbox();
    const question = await ask(t.visitor(), postId, email);
    await confirm(email);
    // A link from a browser the site does not know yet is held.
    const held = json(
      await t.visitor().reply(postId, question, "Cheap cells at https://example.com/sale", "Spam"),
      commentResponseSchema,
    ).comment;
    expect(held.awaitingApproval).toBe(true);
    expect((await admin(adminEnv(t), "comments", "reject", String(held.id))).code).toBe(0);
    expect((await queuedFor(email)).map((row) => row.kind)).toEqual(["reply_confirmation"]);
    // The next reply, published, is mailed as the thread's first.
    const answer = json(
      await t.visitor().reply(postId, question, "Keep them at 40 % charge.", "Meera"),
      commentResponseSchema,
    ).comment;
    expect((await admin(adminEnv(t), "comments", "approve", String(answer.id))).code).toBe(0);
    await smtp.waitFor(() => smtp.to(email).length === 2);
    const mail = smtp.to(email)[1] as ReceivedMail;
    expect(mail.parsed.text).toContain("Keep them at 40 % charge.");
    expect(mail.parsed.text).not.toContain("example.com/sale");
    expect((await queuedFor(email)).map((row) => row.kind)).toEqual([
      "reply_confirmation",
      "reply_notice",
    ]);
  });

  it("refuses bad addresses with 400 and stores nothing", async () => {
    const postId = freshItem("science");
    const visitor = t.visitor();
    for (const notifyEmail of [
      "not an address",
      `${"a".repeat(250)}@example.org`,
      "reader@xn--exmple-cua.com",
      42,
    ]) {
      const response = await visitor.post(`/api/items/science/${postId}/comments`, {
        content: "A question about battery chemistry",
        userName: "Asha",
        formToken: t.commentToken(),
        notifyEmail,
      });
      expect(response.statusCode).toBe(400);
      expect(json(response, errorResponseSchema).error.code).toBe("validation_failed");
    }
    const list = json(
      await visitor.get(`/api/items/science/${postId}/comments`),
      commentsResponseSchema,
    );
    expect(list.total).toBe(0);
  });

  it("cannot be turned on an inbox: a day's confirmations per address are capped, then 429 and nothing stored", async () => {
    const postId = freshItem("science");
    const victim = inbox();
    for (let i = 0; i < 3; i += 1) await ask(t.visitor(), postId, victim);
    const response = await t.visitor().post(`/api/items/science/${postId}/comments`, {
      content: "Another question about cells",
      userName: "Mallory",
      formToken: t.commentToken(),
      notifyEmail: victim,
    });
    expect(response.statusCode).toBe(429);
    expect(response.headers["retry-after"]).toBeDefined();
    expect(
      json(await t.visitor().get(`/api/items/science/${postId}/comments`), commentsResponseSchema)
        .total,
    ).toBe(3);
    await smtp.waitFor(() => smtp.to(victim).length === 3);
    // The same reader asking again in another thread gets no second confirmation.
    const reader = t.visitor();
    const other = inbox();
    await ask(reader, postId, other);
    await ask(reader, freshItem("science"), other);
    expect((await queuedFor(other)).map((row) => row.kind)).toEqual(["reply_confirmation"]);
  });

  it("caps a day's confirmations per mailbox, not per spelling, even asked all at once", async () => {
    const postId = freshItem("science");
    const { email, tagged, neighbour } = spellings();
    const [local, domain] = email.split("@") as [string, string];
    // One inbox, as a limit counts it: a +tag, and the name without its dot.
    const spelt = [email, tagged, neighbour, `${local}+more@${domain}`];
    const askAs = (address: string, n: number) =>
      t.visitor({ ip: `203.0.113.${n + 1}` }).post(`/api/items/science/${postId}/comments`, {
        content: `Does a spelling of the address count apart? (${n})`,
        userName: "Mallory",
        formToken: t.commentToken(),
        notifyEmail: address,
      });
    await Promise.all(spelt.map(askAs));
    const confirmations = async () =>
      (await Promise.all(spelt.map(queuedFor)))
        .flat()
        .filter((row) => row.kind === "reply_confirmation");
    expect(await confirmations()).toHaveLength(3);
    // Past the day's share, another spelling is refused and stores nothing.
    const refused = await askAs(`${local}+again@${domain}`, 9);
    expect(refused.statusCode).toBe(429);
    expect(await queuedFor(`${local}+again@${domain}`)).toEqual([]);
    await smtp.waitFor(() => spelt.flatMap((address) => smtp.to(address)).length === 3);
  });

  it.runIf(backend === "postgres")(
    "caps a mailbox's confirmations when its spellings are asked at the same moment on two instances",
    async () => {
      const other = await startTestApp(backend, {
        databaseUrl: t.databaseUrl as string,
        env: { SMTP_URL: smtp.url },
        mail: { clock: clock.now },
      });
      const postId = freshItem("science");
      const email = inbox();
      const [local, domain] = email.split("@") as [string, string];
      const undotted = local.replace(".", "");
      // Six spellings of one inbox, as the limit counts it: +tags, and the name without its dot.
      const spelt = [
        local,
        `${local}+1`,
        `${local}+2`,
        undotted,
        `${undotted}+3`,
        `${local}+4`,
      ].map((name) => `${name}@${domain}`);
      // Every comment's transaction waits at its first write until all six are in
      // flight, each past the check before it (`admit`, which sees no mail sent yet).
      // Let go together, they must still count each other's mails: without the
      // turn comments take on PostgreSQL, all six were mailed.
      const gate = new pg.Client({ connectionString: t.databaseUrl });
      await gate.connect();
      try {
        await gate.query("begin");
        await gate.query("lock table science_comments in share mode");
        const asked = spelt.map((address, n) => {
          const site = n % 2 === 0 ? t : other;
          return site
            .visitor({ ip: `198.51.100.${n + 1}` })
            .post(`/api/items/science/${postId}/comments`, {
              content: `Is one inbox capped, however it is spelt? (${n})`,
              userName: "Mallory",
              formToken: site.commentToken(),
              notifyEmail: address,
            });
        });
        await waitFor(
          async () =>
            Number(
              (
                await runSql(
                  t,
                  `select count(*) as n from pg_stat_activity where datname = current_database()
                   and wait_event_type = 'Lock' and query like 'insert into "science_comments"%'`,
                )
              )[0]?.n,
            ) === spelt.length,
          { what: "six comments waiting to be written", timeoutMs: 30_000 },
        );
        await gate.query("commit");
        for (const answer of await Promise.all(asked)) expect(answer.statusCode).toBe(201);
      } finally {
        await gate.end();
        await other.close();
      }
      // Every comment is kept; three confirmation mails in all.
      const list = await t.visitor().get(`/api/items/science/${postId}/comments`);
      expect(json(list, commentsResponseSchema).total).toBe(spelt.length);
      const rows = (await Promise.all(spelt.map(queuedFor))).flat();
      expect(rows.filter((row) => row.kind === "reply_confirmation")).toHaveLength(3);
      // Every one of them gone out, and no more than the day's share in the inbox.
      await waitFor(async () =>
        (await Promise.all(spelt.map(queuedFor))).flat().every((row) => row.status === "sent"),
      );
      await smtp.waitFor(() => spelt.flatMap((address) => smtp.to(address)).length === 3);
      expect(spelt.flatMap((address) => smtp.to(address))).toHaveLength(3);
    },
  );

  it("keeps the address out of every public answer; Your data shows it and deletes it; deleting the comment forgets it", async () => {
    const postId = freshItem("science");
    const email = inbox();
    const reader = t.visitor();
    const question = await ask(reader, postId, email);
    await smtp.waitFor(() => smtp.to(email).length === 1);
    const publicList = await t.visitor().get(`/api/items/science/${postId}/comments`);
    expect(publicList.body).not.toContain(email);
    expect((await reader.get(`/api/items/science/${postId}/comments`)).body).not.toContain(email);

    const exported = json(await reader.get("/api/your-data"), yourDataResponseSchema);
    expect(exported.replyAddresses).toEqual([
      expect.objectContaining({ email, confirmed: false, commentIds: [question] }),
    ]);
    expect(
      json(await t.visitor().get("/api/your-data"), yourDataResponseSchema).replyAddresses,
    ).toEqual([]);

    const deletion = await reader.delete(`/api/comments/${question}`);
    expect(deletion.statusCode).toBe(204);
    expect(await runSql(t, "select id from reply_addresses where email = ?", [email])).toEqual([]);
    expect(await queuedFor(email)).toEqual([]);

    const again = inbox();
    await ask(reader, postId, again);
    const removed = json(
      await reader.post("/api/your-data/delete", { confirm: true }),
      deleteYourDataResponseSchema,
    );
    expect(removed.deleted).toMatchObject({ comments: 1, replyAddresses: 1 });
    expect(await runSql(t, "select id from reply_addresses where email = ?", [again])).toEqual([]);
    expect(await queuedFor(again)).toEqual([]);
  });

  it("answers unknown and malformed links with a page, and follows no address from the request", async () => {
    for (const url of [
      "/replies/unsubscribe?token=nope",
      `/replies/unsubscribe?token=${"A".repeat(43)}`,
    ]) {
      const response = await t.app.inject({ method: "GET", url });
      expect(response.statusCode).toBe(404);
      expect(response.headers["content-type"]).toContain("text/html");
    }
    const redirect = await t.app.inject({
      method: "GET",
      url: "/replies/one-click?token=https://evil.example/",
    });
    expect(redirect.headers.location).toBe("/replies/unsubscribe?token=");
    const bad = await t.app.inject({
      method: "POST",
      url: `/replies/one-click?token=${"A".repeat(43)}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "List-Unsubscribe=One-Click",
    });
    expect(bad.statusCode).toBe(404);
    // A provider may post the one-click body as multipart form data (RFC 8058).
    const multipart = (field: string) =>
      t.app.inject({
        method: "POST",
        url: `/replies/one-click?token=${"A".repeat(43)}`,
        headers: { "content-type": "multipart/form-data; boundary=x" },
        payload: `--x\r\nContent-Disposition: form-data; name="${field}"\r\n\r\nOne-Click\r\n--x--\r\n`,
      });
    expect((await multipart("List-Unsubscribe")).statusCode).toBe(404);
    const unreadable = await multipart("Something-Else");
    expect(unreadable.statusCode).toBe(400);
    expect(unreadable.body).toContain("List-Unsubscribe=One-Click (RFC 8058)");
  });

  it("changes nothing for a press from another site or a form it cannot read, and says so on a page", async () => {
    const email = inbox();
    await ask(t.visitor(), freshItem("science"), email);
    await smtp.waitFor(() => smtp.to(email).length > 0);
    const token = tokenOf(confirmLink(smtp.to(email)[0] as ReceivedMail));
    const press = (from: Record<string, string>, payload = `token=${token}`) =>
      t.app.inject({
        method: "POST",
        url: "/replies/confirm",
        headers: { ...from, "content-type": "application/x-www-form-urlencoded" },
        payload,
      });
    const heading = (html: string) => dom(html).querySelector("h1")?.textContent;

    const refused: Record<string, string>[] = [
      { origin: "https://evil.example" },
      // A sandboxed frame's opaque origin decides, whatever the Referer says.
      { origin: "null", referer: `${siteUrl}/replies/confirm?token=${token}` },
    ];
    for (const from of refused) {
      const elsewhere = await press(from);
      expect(elsewhere.statusCode).toBe(403);
      expect(elsewhere.headers["cache-control"]).toBe("no-store");
      expect(heading(elsewhere.body)).toBe("Nothing was changed");
      expect(elsewhere.body).toContain(`at ${siteUrl}; requests from elsewhere are refused`);
    }

    // Larger than any form of these pages sends.
    const unreadable = await press({ origin: siteUrl }, `token=${token}&pad=${"x".repeat(4096)}`);
    expect(unreadable.statusCode).toBe(413);
    expect(unreadable.headers["content-type"]).toContain("text/html");
    expect(heading(unreadable.body)).toBe("This request could not be read");
    expect(unreadable.body).toContain("Open the link from the mail and press the button again.");

    expect(await runSql(t, "select status from reply_addresses where email = ?", [email])).toEqual([
      { status: "pending" },
    ]);
    await confirm(email);
  });
});
