import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema, errorResponseSchema } from "../../contract/api.ts";
import { momentLabel } from "../../contract/time-zones.ts";
import { htmlMistakes } from "../../scripts/validate-html.ts";
import { createFormTokens } from "../../server/lib/form-token.ts";
import { webhookSignature } from "../../server/notifications/webhook.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { movableClock } from "./support/clock.ts";
import { deletionToken, pressDelete } from "./support/enquiry-link.ts";
import { dom } from "./support/html.ts";
import { mailingApp } from "./support/mailing-app.ts";
import type { SmtpSink } from "./support/smtp.ts";
import { runSql } from "./support/sql.ts";
import { backends, freshItem, json, siteUrl, type TestApp } from "./support/test-app.ts";
import { startReceiver } from "./support/webhook-receiver.ts";

const owner = "owner@example.com";
const cookieSecret = "enquiry-tests-cookie-secret-0123456789abcdef";
const webhookSecret = "w".repeat(40);
const hourMs = 60 * 60 * 1000;

/** The form's signed time as the page holds it once a person has had time to write. */
const tokens = createFormTokens(cookieSecret, { purpose: "enquiry form timing", minimumMs: 0 });
const aged = () => tokens.issue(Date.now() - 60_000);

let sender = 0;
/** A valid enquiry from an address no other test uses. */
function enquiry(overrides: Record<string, unknown> = {}) {
  sender += 1;
  return {
    name: "Priya Raman",
    email: `client${sender}@example.org`,
    service: "dfmea",
    message:
      "We are launching a fuel pump module and need a DFMEA workshop for our team of six in March. Call me on +91 98765 43210 or see https://example.org/spec.",
    organisation: "Raman Motors",
    timeline: "Before March",
    formToken: aged(),
    ...overrides,
  };
}

describe.each(backends)("enquiries on %s", (backend) => {
  let smtp: SmtpSink;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let t: TestApp;
  const clock = movableClock();
  let ip = 0;
  /** A browser on an address of its own, so the per-address limit stays out of the way. */
  const browser = () => t.visitor({ ip: `10.9.${Math.floor(++ip / 250)}.${ip % 250}` });
  /** The enquiry form posted without JavaScript, from `remoteAddress`. */
  const postForm = (fields: Record<string, string>, remoteAddress: string, origin = siteUrl) =>
    t.app.inject({
      method: "POST",
      url: "/services/enquiry",
      remoteAddress,
      headers: { origin, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams(fields).toString(),
    });
  const count = async (table: string) =>
    Number((await runSql(t, `select count(*) as n from ${table}`))[0]?.n);

  beforeAll(async () => {
    receiver = await startReceiver([]);
  });
  afterAll(() => receiver?.close());
  mailingApp(
    backend,
    () => ({
      env: {
        COOKIE_SECRET: cookieSecret,
        OWNER_EMAIL: owner,
        WEBHOOK_URL: receiver.url,
        WEBHOOK_SECRET: webhookSecret,
        ENQUIRIES_PER_HOUR: "3",
      },
      mail: { clock: clock.now },
    }),
    (app) => ({ t, smtp } = app),
  );

  it("mails the owner with Reply-To the sender, acknowledges the sender, calls the webhook, and answers nothing back", async () => {
    const sent = enquiry();
    const hitsBefore = receiver.hits.length;
    const response = await browser().post("/api/enquiries", sent);
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual({ received: true });

    await smtp.waitFor((mail) => mail.some((m) => m.to.includes(sent.email)));
    await smtp.waitFor(() => smtp.to(owner).some((m) => m.parsed.text?.includes(sent.message)));
    const notice = smtp.to(owner).find((m) => m.parsed.text?.includes(sent.message));
    expect(notice?.parsed.subject).toBe("Enquiry: DFMEA, from Priya Raman");
    expect(notice?.parsed.replyTo?.value).toEqual([{ name: "Priya Raman", address: sent.email }]);
    expect(notice?.parsed.text).toContain("Organisation: Raman Motors");
    expect(notice?.parsed.text).toContain(`${siteUrl}/admin/enquiries`);

    const ack = smtp.to(sent.email)[0];
    expect(ack?.parsed.subject).toBe("Your enquiry about DFMEA · Engage with Engineer");
    expect(ack?.parsed.text).toContain("within two working days");
    // Sent to an address nobody confirmed, it carries nothing the sender typed.
    for (const typed of [sent.message.slice(0, 20), sent.name, sent.organisation, sent.timeline]) {
      expect(ack?.parsed.text).not.toContain(typed);
      expect(ack?.parsed.html).not.toContain(typed);
    }
    expect(ack?.parsed.text).toContain("Service: DFMEA");
    expect(ack?.parsed.messageId).toMatch(/^<enquiry\.[0-9a-f]{24}@ewe\.test>$/);
    expect(ack?.parsed.replyTo?.value[0]?.address).toBe(owner);
    expect(ack?.parsed.text).toMatch(/\/enquiries\/delete\?token=[A-Za-z0-9_-]{43}/);

    await receiver.waitFor(hitsBefore + 1);
    const hit = receiver.hits[hitsBefore];
    const body = JSON.parse(hit?.body ?? "{}");
    expect(body).toMatchObject({
      type: "enquiry.created",
      enquiry: { email: sent.email, service: "dfmea", serviceTitle: "DFMEA" },
    });
    expect(hit?.headers["x-ewe-signature"]).toBe(
      webhookSignature(webhookSecret, String(hit?.headers["x-ewe-timestamp"]), hit?.body ?? ""),
    );

    // Nothing of it in the live-event journal, and the deletion link's token is not kept in the clear.
    const events = await runSql(t, "select data from events");
    expect(JSON.stringify(events)).not.toContain(sent.email);
    const ackToken = async () =>
      (
        await runSql(t, "select token from outbox where kind = 'enquiry_ack' and email = ?", [
          sent.email,
        ])
      )[0]?.token;
    await expect.poll(ackToken, { timeout: 20_000 }).toBeNull();
  });

  it("shows the owner a name that spells an encoded word as typed, never what it decodes to", async () => {
    // What the name check refuses, hidden in an encoded word: mail programs decode one even
    // in a quoted display name, so the owner's Reply-To would show it.
    const hidden = `=?utf-8?B?${Buffer.from("ceo@bank.test\u202egnp.exe\u0000\r\nBcc: x@evil.test").toString("base64")}?=`;
    const sent = enquiry({ name: hidden });
    expect((await browser().post("/api/enquiries", sent)).statusCode).toBe(201);
    await smtp.waitFor(() => smtp.to(owner).some((m) => m.parsed.text?.includes(sent.email)));
    const notice = smtp.to(owner).find((m) => m.parsed.text?.includes(sent.email));
    const [replyTo] = notice?.parsed.replyTo?.value ?? [];
    expect(replyTo?.address).toBe(sent.email);
    expect(replyTo?.name).toBe(hidden.replaceAll("=?", "= ?"));
    expect(notice?.parsed.subject).toBe(`Enquiry: DFMEA, from ${hidden.replaceAll("=?", "= ?")}`);
    for (const header of [notice?.parsed.subject, replyTo?.name]) {
      expect(header).not.toMatch(/[\u202e\r\n]|ceo@bank/);
      expect(header).not.toContain("\0");
    }
    expect(notice?.parsed.bcc).toBeUndefined();
    // The body shows it exactly as typed.
    expect(notice?.parsed.text).toContain(`Name: ${hidden}`);
  });

  it("gives the acknowledgement's time in the zone the sender's browser gave, else in UTC, and names it", async () => {
    const ackOf = async (zone: string | undefined) => {
      const sent = enquiry(zone === undefined ? {} : { zone });
      expect((await browser().post("/api/enquiries", sent)).statusCode).toBe(201);
      await smtp.waitFor(() => smtp.to(sent.email).length > 0);
      const [row] = await runSql(t, "select created_at from enquiries where email = ?", [
        sent.email,
      ]);
      const at = new Date(String(row?.created_at)).getTime();
      return { text: smtp.to(sent.email)[0]?.parsed.text ?? "", at };
    };
    // V8 still spells India's zone "Asia/Calcutta"; people read it as Kolkata.
    const pune = await ackOf("Asia/Calcutta");
    expect(pune.text).toContain(`Sent: ${momentLabel(pune.at, "Asia/Kolkata")}`);
    expect(pune.text).toMatch(
      /Sent: \w+day \d+ \w+ \d{4}, \d\d:\d\d \(Asia \/ Kolkata, GMT\+5:30\)/,
    );
    // Every zone is named by its offset, as the booking mails name theirs: never "CET" or "EST".
    // The minus is a non-breaking hyphen, so a narrow screen keeps "GMT-5" whole.
    const berlin = await ackOf("Europe/Berlin");
    expect(berlin.text).toMatch(/\(Europe \/ Berlin, GMT\+[12]\)/);
    const newYork = await ackOf("America/New_York");
    expect(newYork.text).toMatch(/\(America \/ New York, GMT\u2011[45]\)/);
    // At no offset, "GMT" alone: never "GMT+0".
    const reykjavik = await ackOf("Atlantic/Reykjavik");
    expect(reykjavik.text).toMatch(/\(Atlantic \/ Reykjavik, GMT\)/);
    // No zone, or one off the list: UTC, said so, and the enquiry is not refused for it.
    for (const zone of [undefined, "Mars/Olympus_Mons", "+05:30"]) {
      const ack = await ackOf(zone);
      expect(ack.text, zone).toContain(`Sent: ${momentLabel(ack.at, "UTC")}`);
      expect(ack.text, zone).toMatch(/, \d\d:\d\d \(UTC\)/);
    }
  });

  it("accepts links, addresses and phone numbers, which a comment would refuse", async () => {
    const response = await browser().post(
      "/api/enquiries",
      enquiry({
        message:
          "Write to me at ravi@example.com or call +44 20 7946 0958. Drawings: https://example.org/a and https://example.org/b and https://example.org/c.",
      }),
    );
    expect(response.statusCode).toBe(201);
  });

  it("takes one enquiry per form token, whoever sends it again", async () => {
    const first = enquiry();
    expect((await browser().post("/api/enquiries", first)).statusCode).toBe(201);
    const before = await count("enquiries");
    const replayed = await browser().post(
      "/api/enquiries",
      enquiry({ formToken: first.formToken }),
    );
    expect(replayed.statusCode).toBe(400);
    expect(json(replayed, errorResponseSchema).error).toMatchObject({
      code: "form_token_invalid",
      message: expect.stringMatching(/sent already/),
    });
    expect(await count("enquiries")).toBe(before);
  });

  it("spends the form's token on a refusal too, so one token cannot be sent again and again", async () => {
    const visitor = browser();
    const refused = enquiry({
      message: "Please log in at https://paypa1-secure.com/verify to see the drawings.",
    });
    expect((await visitor.post("/api/enquiries", refused)).statusCode).toBe(422);
    const before = await count("enquiries");
    const again = await visitor.post("/api/enquiries", {
      ...refused,
      message: "We need a tolerance stack-up review for a gearbox housing before our build.",
    });
    expect(again.statusCode).toBe(400);
    expect(json(again, errorResponseSchema).error).toMatchObject({
      code: "form_token_invalid",
      message: expect.stringMatching(/sent already/),
    });
    expect(await count("enquiries")).toBe(before);
  });

  it("keeps what the spam classifier takes for advertising, tells the owner so, and acknowledges nothing", async () => {
    const sent = enquiry({
      message:
        "Boost your website ranking today! We offer guaranteed first page results and more traffic for a low monthly price. Order our growth package now.",
    });
    const response = await browser().post("/api/enquiries", sent);
    expect(response.statusCode).toBe(201);
    await smtp.waitFor(() => smtp.to(owner).some((m) => m.parsed.text?.includes(sent.message)));
    const notice = smtp.to(owner).find((m) => m.parsed.text?.includes(sent.message));
    expect(notice?.parsed.subject).toBe("Probably spam · Enquiry: DFMEA, from Priya Raman");
    expect(notice?.parsed.text).toContain("the sender was sent no acknowledgement");
    const kept = await runSql(t, "select id from enquiries where email = ?", [sent.email]);
    expect(kept).toHaveLength(1);
    const queued = await runSql(t, "select kind from outbox where email = ?", [sent.email]);
    expect(queued).toEqual([]);
    expect(smtp.to(sent.email)).toEqual([]);
  });

  it("refuses every bad input with a clear message, and stores and sends nothing", async () => {
    const before = await count("enquiries");
    const outboxBefore = await count("outbox");
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ name: "" }, 400, /Enter your name/],
      [{ name: "   " }, 400, /Enter your name/],
      [{ name: "Eve\r\nBcc: victim@example.net" }, 400, /one line/],
      [{ organisation: "Acme\nBcc: victim@example.net" }, 400, /one line/],
      [{ email: "not an address" }, 400, /valid email/],
      [{ email: "eve@example.org\r\nBcc: victim@example.net" }, 400, /valid email/],
      [{ message: "Too short." }, 400, /at least 20 characters/],
      [{ message: "x".repeat(4001) }, 400, /at most 4000 characters/],
      // As long as a message, and blank: zero-width spaces, Hangul fillers, blank braille.
      [{ message: "\u200b\u3164\u2800 ".repeat(10) }, 400, /at least 20 characters/],
      [{ message: "Hello there \u202Eevil text that hides itself" }, 400, /text-direction/],
      [{ service: "" }, 400, /Choose a service/],
      [{ service: "free-money" }, 400, /Choose a service from the list/],
      [{ formToken: undefined }, 400, /token is missing/],
      [{ formToken: tokens.issue() }, 400, /faster than a person/],
      [{ formToken: "1700000000000.forged-signature-forged-signature-forged-sig" }, 400, /token/],
      [{ extra: "field" }, 400, /Unrecognized key|unrecognized/i],
      [
        {
          message:
            "Please read the offer at https://bit.ly/3abcdef for your project now, it is really good.",
        },
        422,
        /does not accept/,
      ],
      [
        { message: "Cheap viagra and casino bonus for your engineering team, act now please." },
        422,
        /blocks because spam/,
      ],
    ];
    for (const [change, status, message] of cases) {
      const response = await browser().post("/api/enquiries", enquiry(change));
      expect({ change, status: response.statusCode }).toEqual({ change, status });
      expect(json(response, errorResponseSchema).error.message).toMatch(message);
    }
    const json415 = await t.app.inject({
      method: "POST",
      url: "/api/enquiries",
      headers: { origin: siteUrl, "content-type": "text/plain" },
      payload: "name=x",
    });
    expect(json415.statusCode).toBe(415);
    const crossSite = await t.app.inject({
      method: "POST",
      url: "/api/enquiries",
      headers: { origin: "https://evil.example", "content-type": "application/json" },
      payload: JSON.stringify(enquiry()),
    });
    expect(crossSite.statusCode).toBe(403);
    expect(await count("enquiries")).toBe(before);
    expect(await count("outbox")).toBe(outboxBefore);
  });

  describe("refusals", () => {
    /** Runs `act`, then proves it stored no enquiry and queued no mail or webhook call. */
    async function nothingKept(act: () => Promise<void>) {
      const before = [await count("enquiries"), await count("outbox")];
      await act();
      expect([await count("enquiries"), await count("outbox")]).toEqual(before);
    }
    const noJs = postForm;
    const alert = (html: string) => dom(html).querySelector("[role=alert]")?.textContent ?? "";

    it("refuses a banned browser and a banned connection, politely, with or without JavaScript", async () => {
      const troll = t.visitor({ ip: "203.0.113.40" });
      const { comment } = json(
        await troll.comment(freshItem("science"), "Something rude"),
        commentResponseSchema,
      );
      // The troll's browser, wherever it goes, and the address it wrote from, whoever is there.
      for (const scope of ["browser", "address"]) {
        const banned = await admin(
          { ...adminEnv(t), COOKIE_SECRET: cookieSecret },
          "visitor",
          "ban",
          "--comment",
          String(comment.id),
          "--scope",
          scope,
        );
        expect(banned.code, banned.stderr).toBe(0);
      }
      await nothingKept(async () => {
        const moved = t.visitor({ ip: "203.0.113.41" });
        moved.cookie = troll.cookie;
        for (const who of [troll, moved, t.visitor({ ip: "203.0.113.40" })]) {
          const response = await who.post("/api/enquiries", enquiry());
          expect(response.statusCode).toBe(403);
          expect(json(response, errorResponseSchema).error).toMatchObject({
            code: "banned",
            message: expect.stringMatching(/not accepted at the moment/),
          });
        }
        const { formToken: _none, ...fields } = enquiry() as Record<string, string>;
        const page = await noJs({ ...fields, formToken: aged() }, "203.0.113.40");
        expect(page.statusCode).toBe(403);
        expect(alert(page.body)).toMatch(/not accepted at the moment/);
      });
    });

    it("refuses a stale form token and a spent one", async () => {
      const first = enquiry();
      expect((await browser().post("/api/enquiries", first)).statusCode).toBe(201);
      await nothingKept(async () => {
        const cases: [string, RegExp][] = [
          [tokens.issue(Date.now() - 25 * hourMs), /form has expired/],
          [first.formToken, /sent already/],
        ];
        for (const [formToken, message] of cases) {
          const response = await browser().post("/api/enquiries", enquiry({ formToken }));
          expect(response.statusCode).toBe(400);
          expect(json(response, errorResponseSchema).error).toMatchObject({
            code: "form_token_invalid",
            message: expect.stringMatching(message),
          });
        }
      });
    });

    it("refuses look-alike links, keyword stuffing, long or multi-line details and an empty email", async () => {
      const cases: [Record<string, unknown>, number, RegExp][] = [
        [
          {
            message:
              "Please review our brief at https://paypa1-secure.com/brief before the call next week.",
          },
          422,
          /look-alike letters or imitating/,
        ],
        [
          { message: "Our drawings are at https://аpple.com/share, please quote for the work." },
          422,
          /look-alike letters or imitating/,
        ],
        [{ timeline: "see https://xn--pple-43d.com/plan" }, 422, /look-alike letters or imitating/],
        [
          {
            message:
              "engine design engine design engine design engine design engine price engine cost engine",
          },
          422,
          /list of keywords/,
        ],
        [{ organisation: "A".repeat(121) }, 400, /Organisation is at most 120 characters/],
        [{ timeline: "B".repeat(121) }, 400, /Timeline is at most 120 characters/],
        [{ timeline: "March\r\nBcc: victim@example.net" }, 400, /Timeline must be one line/],
        [{ email: "" }, 400, /valid email/],
      ];
      await nothingKept(async () => {
        for (const [change, status, message] of cases) {
          const response = await browser().post("/api/enquiries", enquiry(change));
          expect({ change, status: response.statusCode }).toEqual({ change, status });
          expect(json(response, errorResponseSchema).error.message).toMatch(message);
        }
      });
    });

    it("shows the no-JavaScript sender a page saying there were too many, with Retry-After", async () => {
      const address = "10.8.5.1";
      for (let i = 0; i < 3; i += 1) {
        const sent = await t.visitor({ ip: address }).post("/api/enquiries", enquiry());
        expect(sent.statusCode).toBe(201);
      }
      await nothingKept(async () => {
        const { formToken: _none, ...fields } = enquiry() as Record<string, string>;
        const page = await noJs({ ...fields, formToken: aged() }, address);
        expect(page.statusCode).toBe(429);
        expect(page.headers["retry-after"]).toBe("3600");
        expect(dom(page.body).querySelector("h1")?.textContent).toBe("Your enquiry was not sent");
        expect(alert(page.body)).toMatch(/Too many enquiries/);
        // Refused at its second step: the form again as typed, not Back to "Check your enquiry".
        expect(dom(page.body).querySelector('form [name="message"]')?.textContent).toBe(
          fields.message,
        );
        expect(page.body).not.toContain("Back button");
      });
    });
  });

  it("counts the form's posts without JavaScript per address, so a program cannot spend form tokens as fast as it posts", async () => {
    const address = "10.8.6.1";
    const { formToken: _none, ...fields } = enquiry({
      message: "Cheap viagra and casino bonus for your engineering team, act now please.",
    }) as Record<string, string>;
    const post = (remoteAddress = address) =>
      t.app.inject({
        method: "POST",
        url: "/services/enquiry",
        remoteAddress,
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ ...fields, formToken: aged() }).toString(),
      });
    const spent = () => count("spent_form_tokens");
    const before = await spent();
    // Each a second step with a token of its own, refused for its words: a token spent each.
    for (let i = 0; i < 60; i += 1) expect((await post()).statusCode).toBe(422);
    expect(await spent()).toBe(before + 60);
    const refused = await post();
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60);
    const page = dom(refused.body);
    expect(page.querySelector("[role=alert]")?.textContent).toMatch(
      /sent too often from your address in the last minute/,
    );
    // The form again, as typed.
    expect(page.querySelector('form [name="message"]')?.textContent).toBe(fields.message);
    expect(await spent()).toBe(before + 60);
    // Another address is not held back.
    expect((await post("10.8.6.2")).statusCode).toBe(422);
  });

  it("answers a filled honeypot as if it went through, and keeps and sends nothing", async () => {
    const before = await count("enquiries");
    const outboxBefore = await count("outbox");
    const response = await browser().post(
      "/api/enquiries",
      enquiry({ website: "http://spam.example" }),
    );
    expect(response.statusCode).toBe(201);
    expect(await count("enquiries")).toBe(before);
    expect(await count("outbox")).toBe(outboxBefore);
  });

  it("limits enquiries per address and per email address, with Retry-After", async () => {
    const visitor = browser();
    for (let i = 0; i < 3; i += 1) {
      expect((await visitor.post("/api/enquiries", enquiry())).statusCode).toBe(201);
    }
    const before = await count("enquiries");
    const refused = await visitor.post("/api/enquiries", enquiry());
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["retry-after"]).toBe("3600");
    expect(json(refused, errorResponseSchema).error.message).toMatch(/Too many enquiries/);
    // The limit is checked before the text is read: an address over it costs one count.
    const unread = await visitor.post(
      "/api/enquiries",
      enquiry({
        message: "Please log in at https://paypa1-secure.com/verify to see the drawings.",
      }),
    );
    expect(unread.statusCode).toBe(429);

    const same = enquiry();
    for (let i = 0; i < 3; i += 1) {
      expect(
        (await browser().post("/api/enquiries", { ...same, formToken: aged() })).statusCode,
      ).toBe(201);
    }
    const byEmail = await browser().post("/api/enquiries", {
      ...same,
      email: same.email.toUpperCase(),
      formToken: aged(),
    });
    expect(byEmail.statusCode).toBe(429);
    expect(await count("enquiries")).toBe(before + 3);
  });

  it("acknowledges one address at most once in eight hours, however often the form names it", async () => {
    const victim = enquiry().email;
    for (let i = 0; i < 3; i += 1) {
      const response = await browser().post("/api/enquiries", enquiry({ email: victim }));
      expect(response.statusCode).toBe(201);
    }
    await smtp.waitFor(
      () =>
        smtp.to(owner).filter((m) => m.parsed.replyTo?.value[0]?.address === victim).length === 3,
    );
    const acks = await runSql(t, "select id from outbox where kind = 'enquiry_ack' and email = ?", [
      victim,
    ]);
    expect(acks).toHaveLength(1);

    // A stranger who types the address again each hour has it sent three a day, not 24.
    for (let hour = 1; hour < 8; hour += 1) {
      clock.advance(hourMs);
      const again = await browser().post("/api/enquiries", enquiry({ email: victim }));
      expect(again.statusCode).toBe(201);
    }
    const ackedOf = () =>
      runSql(t, "select id from outbox where kind = 'enquiry_ack' and email = ?", [victim]);
    expect(await ackedOf()).toHaveLength(1);
    clock.advance(hourMs + 1000);
    expect((await browser().post("/api/enquiries", enquiry({ email: victim }))).statusCode).toBe(
      201,
    );
    expect(await ackedOf()).toHaveLength(2);
    await smtp.waitFor(() => smtp.to(victim).length === 2);
  });

  it("counts one mailbox once, however its address is spelled", async () => {
    const mailbox = `ana.lyst${++sender}@example.com`;
    const [local, domain] = mailbox.split("@");
    const spellings = [
      mailbox,
      `${local}+1@${domain}`,
      `${local}+invoices@${domain}`,
      `${local?.replace(".", "")}@${domain}`,
      `${local?.toUpperCase()}@${domain}`,
    ];
    for (const email of spellings) {
      expect((await browser().post("/api/enquiries", enquiry({ email }))).statusCode).toBe(201);
    }
    const acks = await runSql(
      t,
      `select email from outbox where kind = 'enquiry_ack' and lower(email) in (${spellings.map(() => "?").join(", ")})`,
      spellings.map((email) => email.toLowerCase()),
    );
    expect(acks).toHaveLength(1);
  });

  it("works without JavaScript: a form post, a page that shows it back, then the thank-you page", async () => {
    const sent = enquiry({ formToken: undefined });
    const form = (fields: Record<string, string>, origin = siteUrl) =>
      postForm(fields, "10.8.0.1", origin);
    const { formToken: _none, ...fields } = sent as Record<string, string>;
    const review = await form(fields);
    expect(review.statusCode).toBe(200);
    const page = dom(review.body);
    expect(page.querySelector("h1")?.textContent).toBe("Check your enquiry");
    // The site's name above the title leads back to the site, as on every plain page.
    expect(page.querySelector(".note a")?.getAttribute("href")).toBe("/");
    expect(page.querySelector(".note")?.textContent).toBe("Engage with Engineer · enquiries");
    expect(page.querySelector("blockquote")?.textContent).toBe(sent.message);
    const hidden = Object.fromEntries(
      [...page.querySelectorAll("form input[type=hidden]")].map((input) => [
        input.getAttribute("name"),
        input.getAttribute("value") ?? "",
      ]),
    );
    expect(hidden.formToken).toMatch(/^\d{13}\./);

    // Pressed at once: shown again with the same time, so the next press is taken.
    const quick = await form(hidden as Record<string, string>);
    expect(quick.statusCode).toBe(400);
    expect(dom(quick.body).querySelector("[role=alert]")?.textContent).toMatch(
      /quicker than a person/,
    );
    expect(dom(quick.body).querySelector("input[name=formToken]")?.getAttribute("value")).toBe(
      hidden.formToken,
    );

    const before = await count("enquiries");
    const done = await form({ ...(hidden as Record<string, string>), formToken: aged() });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe("/services/enquiry-sent");
    expect(await count("enquiries")).toBe(before + 1);

    const elsewhere = await form(fields, "https://evil.example");
    expect(elsewhere.statusCode).toBe(403);
  });

  it("without JavaScript asks once about an address that looks mistyped, and takes the one the sender keeps", async () => {
    const form = (fields: Record<string, string>) => postForm(fields, "10.8.0.2");
    const { formToken: _none, ...fields } = enquiry({ email: "meera@gmial.com" }) as Record<
      string,
      string
    >;
    const asked = dom((await form(fields)).body);
    expect(asked.querySelector("[role=status]")?.textContent).toBe(
      "Did you mean meera@gmail.com? Correct the address above, or send the form again to keep meera@gmial.com.",
    );
    expect(asked.querySelector("#enquiry-email")?.getAttribute("value")).toBe("meera@gmial.com");
    // What the page's form sends as it stands (its first submit button's value aside).
    const sentFrom = (page: ReturnType<typeof dom>) =>
      Object.fromEntries(
        [...page.querySelectorAll("form input, form textarea, form select")].flatMap((field) => {
          const name = field.getAttribute("name");
          const value =
            field.tagName === "TEXTAREA"
              ? field.textContent
              : field.tagName === "SELECT"
                ? field.querySelector("option[selected]")?.getAttribute("value")
                : field.getAttribute("value");
          return name && name !== "change" ? [[name, value ?? ""]] : [];
        }),
      );
    const sentAgain = sentFrom(asked);
    // Sent as it is: the review of what goes, to the address kept; corrected: the same.
    const kept = dom((await form(sentAgain)).body);
    expect(kept.querySelector("h1")?.textContent).toBe("Check your enquiry");
    // Its time is the first post's, carried through the question: the press counts from it.
    expect(sentAgain.since).toMatch(/^\d{13}\./);
    expect(kept.querySelector("input[name=formToken]")?.getAttribute("value")).toBe(
      sentAgain.since,
    );
    expect(kept.querySelector("input[name=email]")?.getAttribute("value")).toBe("meera@gmial.com");
    const corrected = dom((await form({ ...sentAgain, email: "meera@gmail.com" })).body);
    expect(corrected.querySelector("h1")?.textContent).toBe("Check your enquiry");

    // Kept through the form's way back: the review changed, then a field to correct.
    const changed = dom((await form({ ...sentFrom(kept), change: "yes" })).body);
    expect(changed.querySelector("h1")?.textContent).toBe("Change your enquiry");
    expect(sentFrom(changed).since).toBe(sentAgain.since);
    expect(changed.querySelector("[role=status]")).toBeNull();
    const refused = dom((await form({ ...sentFrom(changed), message: "Too short" })).body);
    expect(refused.querySelector("h1")?.textContent).toBe("Your enquiry was not sent");
    expect(refused.querySelector("[role=status]")).toBeNull();
    const again = dom((await form({ ...sentFrom(refused), message: sentAgain.message! })).body);
    expect(again.querySelector("h1")?.textContent).toBe("Check your enquiry");
    expect(again.querySelector("input[name=email]")?.getAttribute("value")).toBe("meera@gmial.com");
  });

  it("without JavaScript a refused enquiry comes back as the form, as typed and escaped, each message by its field", async () => {
    const form = (fields: Record<string, string>) => postForm(fields, "10.8.0.2");
    const hostile = '<script>alert("x")</script> & "quoted"';
    const typed = {
      name: `Priya ${hostile}`,
      email: `priya${hostile}@example.org`,
      service: "dfmea",
      organisation: `Raman ${hostile}`,
      timeline: `March ${hostile}`,
      message: hostile.slice(0, 15),
    };
    const before = [await count("enquiries"), await count("outbox")];
    const refused = await form(typed);
    expect(refused.statusCode).toBe(400);
    // Kept by the reader's browser alone, so that Back shows it without posting it again.
    expect(refused.headers["cache-control"]).toBe("private, no-cache");
    // Valid as the built pages are, its doctype theirs; nothing typed became markup.
    expect(await htmlMistakes(refused.body)).toEqual([]);
    const page = dom(refused.body);
    expect(page.querySelector("h1")?.textContent).toBe("Your enquiry was not sent");
    expect(page.querySelector(".note a")?.getAttribute("href")).toBe("/");
    expect(page.querySelectorAll("script")).toHaveLength(0);
    const field = (name: string) => page.querySelector(`form [name="${name}"]`);
    for (const name of ["name", "email", "organisation", "timeline"] as const) {
      expect(field(name)?.getAttribute("value"), name).toBe(typed[name]);
    }
    expect(field("message")?.textContent).toBe(typed.message);
    // (happy-dom reads a select's value wrongly: its selected option, as the browser takes it.)
    expect(field("service")?.querySelector("option[selected]")?.getAttribute("value")).toBe(
      "dfmea",
    );
    // The refused fields are marked and described by their messages; the first is focused.
    const problemOf = (name: string) =>
      page.getElementById(field(name)?.getAttribute("aria-describedby")?.split(" ")[0] ?? "")
        ?.textContent;
    expect(field("email")?.getAttribute("aria-invalid")).toBe("true");
    expect(problemOf("email")).toBe("Enter a valid email address.");
    expect(field("email")?.hasAttribute("autofocus")).toBe(true);
    expect(field("message")?.getAttribute("aria-invalid")).toBe("true");
    expect(problemOf("message")).toMatch(/at least 20 characters/);
    expect(field("message")?.hasAttribute("autofocus")).toBe(false);
    expect(field("name")?.hasAttribute("aria-invalid")).toBe(false);
    expect(page.querySelector("[role=alert]")?.textContent).toMatch(/valid email.*at least 20/);
    // Nothing sends the reader Back: the form posts again, to be shown back for review.
    expect(refused.body).not.toContain("Back button");
    expect(page.querySelector("form")?.getAttribute("action")).toBe("/services/enquiry");
    expect([await count("enquiries"), await count("outbox")]).toEqual(before);

    // The review's "Change the enquiry" brings the form back, as typed, with nothing refused.
    const fixed = {
      ...typed,
      email: "priya.fix@example.org",
      message: `${hostile} and more words`,
    };
    const review = dom((await form(fixed)).body);
    expect(review.querySelector("h1")?.textContent).toBe("Check your enquiry");
    const kept = Object.fromEntries(
      [...review.querySelectorAll("form input[type=hidden]")].map((input) => [
        input.getAttribute("name"),
        input.getAttribute("value") ?? "",
      ]),
    ) as Record<string, string>;
    const change = await form({ ...kept, change: "yes" });
    expect(change.statusCode).toBe(200);
    expect(await htmlMistakes(change.body)).toEqual([]);
    const again = dom(change.body);
    expect(again.querySelector("h1")?.textContent).toBe("Change your enquiry");
    expect(again.querySelector("[role=alert]")).toBeNull();
    expect(again.querySelector('form [name="message"]')?.textContent).toBe(fixed.message);
    expect(again.querySelector('form [name="formToken"]')).toBeNull();
    expect([await count("enquiries"), await count("outbox")]).toEqual(before);
  });

  it("deletes every enquiry of the sender by the link in the acknowledgement, only by the page's POST", async () => {
    // With the zone the island sends: the acknowledgement's row names it.
    const sent = enquiry({ zone: "Europe/Paris" });
    expect((await browser().post("/api/enquiries", sent)).statusCode).toBe(201);
    expect(
      (await browser().post("/api/enquiries", { ...enquiry(), email: sent.email })).statusCode,
    ).toBe(201);
    await smtp.waitFor(() => smtp.to(sent.email).length === 1);
    const token = deletionToken(smtp, sent.email);
    const rows = () => runSql(t, "select id from enquiries where lower(email) = ?", [sent.email]);
    expect(await rows()).toHaveLength(2);

    const opened = await t.app.inject({ url: `/enquiries/delete?token=${token}` });
    expect(opened.statusCode).toBe(200);
    expect(dom(opened.body).querySelector("button")?.textContent).toBe("Delete my enquiry");
    expect(await rows()).toHaveLength(2);

    const press = (origin: string) => pressDelete(t, token, origin);
    expect((await press("https://evil.example")).statusCode).toBe(403);
    expect(await rows()).toHaveLength(2);
    const deleted = await press(siteUrl);
    expect(deleted.statusCode).toBe(200);
    expect(dom(deleted.body).querySelector("h1")?.textContent).toBe("Your enquiry is deleted");
    expect(await rows()).toHaveLength(0);
    // The trail records the deletion, never whose it was.
    const trail = await runSql(
      t,
      "select object from owner_audit where action = 'enquiry deleted by its sender'",
    );
    expect(trail.map((row) => row.object)).toContain("2 deleted");
    expect(JSON.stringify(trail)).not.toContain(sent.email);
    const left = await runSql(t, "select kind from outbox where email = ? or payload like ?", [
      sent.email,
      `%${sent.email}%`,
    ]);
    expect(left).toEqual([]);
    expect((await press(siteUrl)).statusCode).toBe(404);
    expect((await t.app.inject({ url: "/enquiries/delete?token=nonsense" })).statusCode).toBe(404);
  });

  it("deletes by the link every enquiry that named the sender's mailbox, however it was spelled", async () => {
    // One acknowledgement an hour reaches a mailbox however the form spells it, so its one
    // link is all its owner gets: it deletes every spelling that reaches them.
    const mailbox = `ana.lyst${++sender}@gmail.com`;
    const [local, domain] = mailbox.split("@") as [string, string];
    const spellings = [
      mailbox,
      `${local.toUpperCase()}+invoices@${domain}`,
      `${local.replace(".", "")}@googlemail.com`,
    ];
    const other = `${local}x@${domain}`;
    for (const email of [...spellings, other]) {
      expect((await browser().post("/api/enquiries", enquiry({ email }))).statusCode).toBe(201);
    }
    await smtp.waitFor(() => smtp.to(mailbox).length === 1);
    expect((await pressDelete(t, deletionToken(smtp, mailbox))).statusCode).toBe(200);
    const left = await runSql(t, "select email from enquiries where email in (?, ?, ?, ?)", [
      ...spellings,
      other,
    ]);
    expect(left.map((row) => row.email)).toEqual([other]);

    // An enquiry sent within the hour after it is acknowledged with a link of its own,
    // or its sender could never delete it.
    expect((await browser().post("/api/enquiries", enquiry({ email: mailbox }))).statusCode).toBe(
      201,
    );
    await smtp.waitFor(() => smtp.to(mailbox).length === 2);
    expect((await pressDelete(t, deletionToken(smtp, mailbox, 1))).statusCode).toBe(200);
    expect(await runSql(t, "select id from enquiries where email = ?", [mailbox])).toEqual([]);
  });
});

describe.each(backends)("enquiries without OWNER_EMAIL on %s", (backend) => {
  let smtp: SmtpSink;
  let t: TestApp;
  const contact = "contact@ewe-owner.example.org";

  mailingApp(
    backend,
    { env: { COOKIE_SECRET: cookieSecret, CONTACT_EMAIL: contact } },
    (app) => ({ t, smtp } = app),
  );

  it("mails the owner at CONTACT_EMAIL, and the acknowledgement's Reply-To is that address", async () => {
    const sent = enquiry();
    expect((await t.visitor({ ip: "10.6.0.1" }).post("/api/enquiries", sent)).statusCode).toBe(201);
    await smtp.waitFor(() => smtp.to(contact).length === 1 && smtp.to(sent.email).length === 1);
    const notice = smtp.to(contact)[0];
    expect(notice?.parsed.subject).toBe("Enquiry: DFMEA, from Priya Raman");
    expect(notice?.parsed.replyTo?.value[0]?.address).toBe(sent.email);
    expect(smtp.to(sent.email)[0]?.parsed.replyTo?.value[0]?.address).toBe(contact);
  });
});
