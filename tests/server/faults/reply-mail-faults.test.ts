import { describe, expect, inject, it } from "vitest";
import { commentResponseSchema } from "../../../contract/api.ts";
import { createDatabase, dropDatabase } from "../../support/postgres.ts";
import { httpVisitor, type VisitorResponse } from "../../support/visitor.ts";
import { killedSender } from "../support/killed-sender.ts";
import { type ReceivedMail, type SmtpSink, startSmtpSink } from "../support/smtp.ts";
import { runSql } from "../support/sql.ts";
import {
  backends,
  freshItem,
  json,
  siteUrl,
  startTestApp,
  type TestApp,
} from "../support/test-app.ts";

/*
 * Reply mails go through the outbox (docs/product.md, "Reply mails"): each is
 * delivered exactly once, across a kill -9 in the middle of sending and a
 * restart, and across two instances on one PostgreSQL database.
 */

const confirmation = "Confirm reply notifications from Engage with Engineer";
/** How many replies a mail holds: a notice one, a digest several. */
const repliesIn = (mail: ReceivedMail) =>
  (mail.parsed.text ?? "").split(' replied on "').length - 1;
const isNotice = (mail: ReceivedMail) => repliesIn(mail) === 1;
const isDigest = (mail: ReceivedMail) => repliesIn(mail) > 1;

/** How many mails of a kind each address received. */
function copies(smtp: SmtpSink, kind: (mail: ReceivedMail) => boolean): Map<string, number> {
  const counts = new Map<string, number>();
  for (const mail of smtp.received.filter(kind)) {
    for (const to of mail.to) counts.set(to, (counts.get(to) ?? 0) + 1);
  }
  return counts;
}

/** The addresses that did not receive exactly one mail of a kind. */
const notOnce = (smtp: SmtpSink, kind: (mail: ReceivedMail) => boolean, readers: string[]) => {
  const counts = copies(smtp, kind);
  return readers.filter((reader) => counts.get(reader) !== 1);
};

/** The token of the confirmation mail `email` received. */
function confirmToken(smtp: SmtpSink, email: string): string {
  const mail = smtp.to(email).find((m) => m.parsed.subject === confirmation);
  const token = /\/replies\/confirm\?token=([A-Za-z0-9_-]{43})/.exec(mail?.parsed.text ?? "")?.[1];
  if (!token) throw new Error(`no confirmation mail for ${email}`);
  return token;
}

/**
 * Each reader writes a comment asking for reply mails and confirms the address
 * by the button of its mail; returns the comments' ids, in the readers' order.
 */
async function askAndConfirm(
  smtp: SmtpSink,
  readers: string[],
  ask: (i: number, body: Record<string, unknown>) => Promise<VisitorResponse>,
  confirm: (i: number, token: string) => Promise<number>,
): Promise<number[]> {
  const ids: number[] = [];
  for (const [i, email] of readers.entries()) {
    const response = await ask(i, {
      content: `Question ${i} about how long a cell keeps its charge`,
      userName: `Reader ${i}`,
      notifyEmail: email,
    });
    expect(response.statusCode, response.body).toBe(201);
    ids.push(json(response, commentResponseSchema).comment.id);
  }
  await smtp.waitFor(
    () => readers.every((email) => smtp.to(email).some((m) => m.parsed.subject === confirmation)),
    60_000,
  );
  for (const [i, email] of readers.entries()) {
    expect(await confirm(i, confirmToken(smtp, email))).toBe(200);
  }
  return ids;
}

const confirmBody = (token: string) => ({
  headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
  body: `token=${token}`,
});

describe.each(backends)("reply mails through faults on %s", (backend) => {
  // Paced: one mail every 250 ms, so the replies are all queued before the
  // kill, and the restarted worker keeps the pace.
  const sender = killedSender(backend, {
    tag: "reply-kill",
    mailRatePerMinute: 240,
    startTimeoutMs: 60_000,
  });

  it("after kill -9 in the middle of sending reply mails and a restart, each reader has its mail exactly once", async () => {
    const { smtp } = sender;
    const first = await sender.start();
    const readers = Array.from({ length: 12 }, (_, i) => `kill-${backend}-${i}@example.org`);
    const visitor = () => httpVisitor(first.url, { origin: siteUrl });
    const threads = await askAndConfirm(
      smtp,
      readers,
      (_i, body) => visitor().post("/api/items/science/soap/comments", body),
      async (_i, token) => {
        const { headers, body } = confirmBody(token);
        return (await fetch(`${first.url}/replies/confirm`, { method: "POST", headers, body }))
          .status;
      },
    );

    // The kill comes with a reply mail arriving once every reply is stored
    // and at least five mails went out.
    let stored = 0;
    sender.killWhen(first, (arriving) => stored === readers.length && arriving > 5);
    const replier = visitor();
    await Promise.all(
      threads.map(async (parentId, i) => {
        const response = await replier.reply("soap", parentId, `Answer ${i}: about 2 % a year`);
        expect(response.statusCode, response.body).toBe(201);
        stored += 1;
      }),
    );
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
    const before = copies(smtp, isNotice);
    expect(before.size).toBeGreaterThanOrEqual(5);
    expect(before.size).toBeLessThan(readers.length);

    const second = await sender.start();
    await smtp.waitFor(() => copies(smtp, isNotice).size === readers.length, 60_000);
    expect(notOnce(smtp, isNotice, readers)).toEqual([]);
    // Paced after the restart too: the mails after the kill took at least
    // most of their spacing (a quarter of a second each).
    const sentAfter = smtp.received
      .filter(isNotice)
      .slice(before.size)
      .map((mail) => mail.receivedAt);
    expect(sentAfter.at(-1)! - sentAfter[0]!).toBeGreaterThanOrEqual(
      (sentAfter.length - 1) * 250 * 0.8,
    );
    await expect
      .poll(() =>
        runSql(
          sender.data,
          "select count(*) as n from outbox where kind = 'reply_notice' and status <> 'sent'",
        ),
      )
      .toEqual([{ n: backend === "postgres" ? "0" : 0 }]);
    await second.stop();
  }, 180_000);
});

/** A clock both instances read, which the test moves past the digest window. */
function sharedClock() {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms: number) {
      offset += ms;
    },
  };
}

describe("two instances on one PostgreSQL", () => {
  it("send each reader's reply mail and digest exactly once", async () => {
    const smtp = await startSmtpSink();
    const databaseUrl = await createDatabase(inject("postgresUrl"));
    const clock = sharedClock();
    const start = () =>
      startTestApp("postgres", {
        databaseUrl,
        env: { SMTP_URL: smtp.url },
        mail: { clock: clock.now, pollMs: 20 },
      });
    const instances = [await start(), await start()];
    const on = (i: number) => instances[i % 2] as TestApp;
    try {
      const readers = Array.from({ length: 20 }, (_, i) => `pair-${i}@example.org`);
      const posts = readers.map(() => freshItem("science"));
      const threads = await askAndConfirm(
        smtp,
        readers,
        (i, body) =>
          on(i)
            .visitor()
            .post(`/api/items/science/${posts[i]}/comments`, {
              ...body,
              formToken: on(i).commentToken(),
            }),
        async (i, token) => {
          const { headers, body } = confirmBody(token);
          const response = await on(i + 1).app.inject({
            method: "POST",
            url: "/replies/confirm",
            headers,
            payload: body,
          });
          return response.statusCode;
        },
      );
      // Three replies in each thread, written on either instance: the first
      // is mailed at once, the two after it wait for the digest.
      for (let round = 0; round < 3; round += 1) {
        await Promise.all(
          threads.map(async (parentId, i) => {
            const response = await on(i + round)
              .visitor()
              .reply(posts[i] as string, parentId, `Answer ${round} in thread ${i}`, "Meera");
            expect(response.statusCode, response.body).toBe(201);
          }),
        );
      }
      await smtp.waitFor(() => copies(smtp, isNotice).size === readers.length, 60_000);
      clock.advance(11 * 60 * 1000);
      await smtp.waitFor(() => copies(smtp, isDigest).size === readers.length, 60_000);
      await expect
        .poll(() =>
          runSql(
            { databaseUrl, dataDir: "" },
            "select count(*)::int as n from outbox where status <> 'sent'",
          ),
        )
        .toEqual([{ n: 0 }]);
      expect(notOnce(smtp, isNotice, readers)).toEqual([]);
      expect(notOnce(smtp, isDigest, readers)).toEqual([]);
      for (const [i, email] of readers.entries()) {
        const digest = smtp.to(email).find(isDigest);
        expect(digest?.parsed.text).toContain(`Answer 1 in thread ${i}`);
        expect(digest?.parsed.text).toContain(`Answer 2 in thread ${i}`);
      }
    } finally {
      for (const instance of instances) await instance.close();
      await dropDatabase(databaseUrl);
      await smtp.close();
    }
  }, 180_000);

  it("send one address no more confirmations a day than the limit, however many ask at once", async () => {
    const databaseUrl = await createDatabase(inject("postgresUrl"));
    // No mail server: the confirmations stay queued, where they are counted.
    const start = () =>
      startTestApp("postgres", { databaseUrl, env: { SMTP_URL: "smtp://127.0.0.1:9" } });
    const instances = [await start(), await start()];
    try {
      const email = "asked-at-once@example.org";
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => {
          const instance = instances[i % 2] as TestApp;
          return instance
            .visitor({ ip: `10.44.0.${i + 1}` })
            .post(`/api/items/science/${freshItem("science")}/comments`, {
              content: `Does the tea cool faster in steel or ceramic? (${i})`,
              userName: "Meera",
              notifyEmail: email,
              formToken: instance.commentToken(),
            });
        }),
      );
      expect(answers.every((answer) => [201, 429].includes(answer.statusCode))).toBe(true);
      const queued = await runSql(
        { databaseUrl, dataDir: "" },
        "select count(*)::int as n from outbox where kind = 'reply_confirmation' and email = ?",
        [email],
      );
      expect(queued).toEqual([{ n: 3 }]);
    } finally {
      for (const instance of instances) await instance.close();
      await dropDatabase(databaseUrl);
    }
  }, 120_000);
});
