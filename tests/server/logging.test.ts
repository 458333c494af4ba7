import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import { assistantResponseSchema } from "../../contract/assistant.ts";
import { serializeIndex } from "../../server/assistant/retrieval.ts";
import { loggerOptions, redactUrl } from "../../server/logging.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { editionFile, requestSubscription } from "./support/newsletter.ts";
import { Owner } from "./support/owner.ts";
import { type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { capturedLogs, json, siteOrigin, startTestApp, type TestApp } from "./support/test-app.ts";

describe("redacting URLs in logs", () => {
  const token = "q3Vn1zYh0pXc6o2m8b5KwTnRrLdAeGfHiJkS4uE7t9a";

  it.each([
    ["plainly", `/unsubscribe?token=${token}`, "/unsubscribe?token=[redacted]"],
    ["in capitals", `/unsubscribe?TOKEN=${token}`, "/unsubscribe?TOKEN=[redacted]"],
    ["percent-encoded", `/unsubscribe?%74oken=${token}`, "/unsubscribe?%74oken=[redacted]"],
    ["partly encoded", `/u?a=1&t%6F%6Ben=${token}&b=2`, "/u?a=1&t%6F%6Ben=[redacted]&b=2"],
    ["twice", `/u?token=${token}&token=${token}`, "/u?token=[redacted]&token=[redacted]"],
    ["before a fragment", `/u?token=${token}#x`, "/u?token=[redacted]#x"],
    ["as an array", `/u?token[]=${token}`, "/u?token[]=[redacted]"],
    ["with an index", `/u?token%5B0%5D=${token}`, "/u?token%5B0%5D=[redacted]"],
    ["with a NUL", `/u?token%00=${token}`, "/u?token%00=[redacted]"],
    [
      "as the newsletter's sealed ticket",
      `/newsletter/continue?ticket=${token}`,
      "/newsletter/continue?ticket=[redacted]",
    ],
    ["in the owner's calendar feed's path", `/book/feed/${token}.ics`, "/book/feed/[redacted]"],
    [
      "in the calendar feed's path, percent-encoded",
      `/book/%66eed/${token}.ics?x=1`,
      "/book/feed/[redacted]?x=1",
    ],
    [
      "in the page a reader came from, as the readers' beacon reports it",
      `/api/readers/view?p=%2F&r=${encodeURIComponent(`http://ewe.test/unsubscribe?token=${token}`)}&z=UTC`,
      "/api/readers/view?p=%2F&r=[redacted]&z=UTC",
    ],
  ])("hides a token passed %s", (_case, url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it("hides the words of a search, which the privacy page says logs never hold", () => {
    expect(redactUrl("/search?q=my+own+words")).toBe("/search?q=[redacted]");
    expect(redactUrl("/search?Q=x&page=2")).toBe("/search?Q=[redacted]&page=2");
  });

  it("hides the place a console list's page starts after, which names a follower", () => {
    const after = encodeURIComponent(
      "MjAyNi0xMi0wNFQxMDowMDowMC4wMDBafGh0dHBzOi8vbWFzdG9kb24udGVzdC91c2Vycy9hZGE",
    );
    expect(redactUrl(`/api/admin/followers?after=${after}&limit=50`)).toBe(
      "/api/admin/followers?after=[redacted]&limit=50",
    );
  });

  it("leaves other parameters, malformed encodings and paths alone", () => {
    for (const url of ["/science/wifi", "/u?ref=mail&page=2", "/u?%E0%A4%A=1", "/token=x"]) {
      expect(redactUrl(url)).toBe(url);
    }
  });
});

describe("the access log", () => {
  it("writes one line per request when it is answered: every write and error, one read in LOG_SAMPLE_READS", async () => {
    const logs = capturedLogs("info");
    const t = await startTestApp("sqlite", { logger: logs.logger, env: { LOG_SAMPLE_READS: "5" } });
    try {
      const reader = t.visitor();
      for (let i = 0; i < 20; i += 1) {
        expect((await reader.get("/api/items/science/wifi/reactions")).statusCode).toBe(200);
      }
      // Page views from the readers' beacon are sampled as reads are: the
      // counter they share stands at 20, so the 25th and the 30th are written.
      for (let i = 0; i < 10; i += 1) {
        const beacon = await t.app.inject({
          method: "POST",
          url: "/api/readers/view?p=%2Fscience&z=Europe%2FLondon",
          headers: { ...siteOrigin, "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0" },
        });
        expect(beacon.statusCode).toBe(204);
      }
      const written = await reader.react("science", "wifi", "idea", "Meera");
      expect(written.statusCode).toBe(201);
      const missing = await reader.get("/api/items/science/no-such-post/comments");
      expect(missing.statusCode).toBe(404);

      const completed = () => logs.lines.filter((line) => line.msg === "request completed");
      await waitFor(async () => completed().length >= 8, { what: "eight access lines" });
      expect(logs.lines.some((line) => line.msg === "incoming request")).toBe(false);
      const reads = completed().filter(
        (line) =>
          line.req?.method === "GET" && line.req.url === "/api/items/science/wifi/reactions",
      );
      expect(reads).toHaveLength(4);
      expect(reads[0]).toMatchObject({ sampled: 5, res: { statusCode: 200 } });
      const views = completed().filter((line) => line.route === "/api/readers/view");
      expect(views).toHaveLength(2);
      expect(views[0]).toMatchObject({ sampled: 5, res: { statusCode: 204 } });

      const write = completed().find(
        (line) => line.req?.method === "POST" && line.route !== "/api/readers/view",
      );
      expect(write).toMatchObject({
        reqId: expect.any(String),
        route: "/api/items/:kind/:id/reactions",
        req: { method: "POST", url: "/api/items/science/wifi/reactions" },
        res: { statusCode: 201 },
        responseTime: expect.any(Number),
        bytes: expect.any(Number),
      });
      expect(write).not.toHaveProperty("sampled");
      const error = completed().find((line) => line.res?.statusCode === 404);
      expect(error?.req?.url).toBe("/api/items/science/no-such-post/comments");
    } finally {
      await t.close();
    }
  });

  it("writes no calendar feed's address, nor a token in the page a reader came from", async () => {
    const logs = capturedLogs("info");
    // The server's own logger options (its serializers), writing here.
    const logger = { ...(loggerOptions("info") as object), stream: logs.logger.stream };
    const t = await startTestApp("sqlite", { logger, env: { LOG_SAMPLE_READS: "1" } });
    const token = "Zq3Vn1zYh0pXc6o2m8b5KwTnRrLdAeGfHiJkS4uE7t9";
    try {
      for (const url of [`/book/feed/${token}.ics`, `/book/%66eed/${token}.ics`]) {
        expect((await t.app.inject({ method: "GET", url })).statusCode).toBe(404);
      }
      const came = encodeURIComponent(`http://ewe.test/unsubscribe?token=${token}`);
      const beacon = await t.app.inject({
        method: "POST",
        url: `/api/readers/view?p=%2Fscience&r=${came}`,
        headers: { ...siteOrigin, "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0" },
      });
      expect(beacon.statusCode).toBe(204);
      const completed = () => logs.lines.filter((line) => line.msg === "request completed");
      await waitFor(async () => completed().length >= 3, { what: "three access lines" });
      expect(completed().map((line) => line.req?.url)).toEqual([
        "/book/feed/[redacted]",
        "/book/feed/[redacted]",
        "/api/readers/view?p=%2Fscience&r=[redacted]",
      ]);
      expect(JSON.stringify(logs.lines)).not.toContain(token);
    } finally {
      await t.close();
    }
  });

  it("writes no question to the assistant, and its enquiry link carries none", async () => {
    const logs = capturedLogs("info");
    const logger = { ...(loggerOptions("info") as object), stream: logs.logger.stream };
    const t = await startTestApp("sqlite", {
      logger,
      env: { LOG_SAMPLE_READS: "1" },
      // A site with nothing to quote: every question is declined with the enquiry link.
      assistantIndex: () => serializeIndex([]),
      clientFiles: { "services/index.html": "<!doctype html><title>Services</title>" },
    });
    try {
      const asked = await t.visitor({ ip: "10.1.0.9" }).post("/api/assistant", {
        question: "What is the capital of Australia, asks Priya Nair?",
      });
      const link = String(json(asked, assistantResponseSchema).actions[0]?.url);
      expect(link).toBe("/services#send-enquiry");
      // The reader follows it, from the IP address the line records.
      const followed = link.replace(/#.*/, "");
      expect((await t.app.inject({ url: followed, remoteAddress: "10.1.0.9" })).statusCode).toBe(
        200,
      );
      const line = () =>
        logs.lines.find((l) => l.msg === "request completed" && l.req?.url === followed);
      await waitFor(async () => line() !== undefined, { what: "the enquiry page's line" });
      expect(JSON.stringify(logs.lines)).not.toContain("Priya");
    } finally {
      await t.close();
    }
  });

  it("writes the line of a read answered before Fastify as Fastify writes it: a view, a page", async () => {
    const logs = capturedLogs("info");
    const t = await startTestApp("sqlite", { logger: logs.logger, env: { LOG_SAMPLE_READS: "2" } });
    try {
      const origin = await t.app.listen({ host: "127.0.0.1", port: 0 });
      const headers = {
        ...siteOrigin,
        "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0",
      };
      const targets = [
        { method: "POST", url: "/api/readers/view?p=%2Fscience&z=Europe%2FLondon" },
        // Its first read goes through Fastify, which the later ones skip.
        { method: "GET", url: "/" },
      ] as const;
      for (const { method, url } of targets) {
        const lines = () =>
          logs.lines.filter((line) => line.msg === "request completed" && line.req?.url === url);
        const before = lines().length;
        // The counter the reads share stands at an even number: the 2nd and 4th
        // are answered before Fastify and written down there, the 5th and 6th
        // go through Fastify, which writes the 6th.
        const ids: string[] = [];
        for (let i = 0; i < 4; i += 1) {
          const answer = await fetch(`${origin}${url}`, { method, headers });
          expect(answer.ok).toBe(true);
          ids.push(answer.headers.get("x-request-id") ?? "");
        }
        for (let i = 0; i < 2; i += 1) {
          expect((await t.app.inject({ method, url, headers })).statusCode).toBeLessThan(300);
        }
        await waitFor(async () => lines().length >= before + 3, { what: `three lines of ${url}` });
        const [first, second, byFastify] = lines().slice(before);
        expect(byFastify).toMatchObject({
          sampled: 2,
          res: { statusCode: method === "GET" ? 200 : 204 },
        });
        for (const [line, id] of [
          [first, ids[1]],
          [second, ids[3]],
        ] as const) {
          expect(line).toEqual({
            ...byFastify,
            time: expect.any(Number),
            reqId: id,
            req: { method, url, host: new URL(origin).host, remoteAddress: "127.0.0.1" },
            responseTime: expect.any(Number),
          });
          expect(Object.keys(line ?? {})).toEqual(Object.keys(byFastify ?? {}));
        }
      }
    } finally {
      await t.close();
    }
  });

  it("at debug, sends every read through Fastify, which logs its arrival too", async () => {
    const logs = capturedLogs("debug");
    const t = await startTestApp("sqlite", { logger: logs.logger });
    try {
      const origin = await t.app.listen({ host: "127.0.0.1", port: 0 });
      const headers = {
        ...siteOrigin,
        "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0",
      };
      const url = "/api/readers/view?p=%2Fscience";
      for (const [method, path] of [
        ["GET", "/"],
        ["GET", "/"],
        ["POST", url],
      ] as const) {
        expect((await fetch(`${origin}${path}`, { method, headers })).ok).toBe(true);
      }
      const arrived = () => logs.lines.filter((line) => line.msg === "incoming request");
      await waitFor(async () => arrived().length >= 3, { what: "three arrivals" });
      expect(arrived().map((line) => line.req?.url)).toEqual(["/", "/", url]);
    } finally {
      await t.close();
    }
  });
});

describe("a mail server's refusal in the log", () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let refusedEdition: string;
  const logs = capturedLogs("info");
  beforeAll(async () => {
    smtp = await startSmtpSink();
    // As Postfix answers an unknown mailbox: the address in its words.
    smtp.recipient = (address) => ({
      code: 550,
      message: `5.1.1 <${address}>: Recipient address rejected: User unknown in virtual mailbox table`,
    });
    refusedEdition = editionFile("2026-12-refused");
    const editions = path.dirname(refusedEdition);
    t = await startTestApp("sqlite", {
      logger: logs.logger,
      env: { SMTP_URL: smtp.url, EDITIONS_DIR: editions },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it("names the row and the reason, never the address the server quoted", async () => {
    expect((await requestSubscription(t, "Nobody.Home@Example.com")).statusCode).toBe(202);
    const refusals = () => logs.lines.filter((line) => line.msg === "mail not accepted");
    await waitFor(async () => refusals().length > 0, { what: "the refusal logged" });
    expect(refusals()[0]).toMatchObject({ permanent: true });
    expect(String(refusals()[0]?.reason)).toContain("Recipient address rejected");
    expect(JSON.stringify(logs.lines).toLowerCase()).not.toContain("nobody.home");
  });

  it("of an edition's test copy, gives the reason and not the address it was for", async () => {
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const sent = await owner.post("/api/admin/editions/2026-12-refused/test", {
      to: "Proof.Reader@example.com",
    });
    expect(sent.statusCode).toBe(503);
    const line = logs.lines.find((entry) => entry.msg === "test copy could not be sent");
    expect(JSON.stringify(line)).toContain("Recipient address rejected");
    expect(JSON.stringify(logs.lines).toLowerCase()).not.toContain("proof.reader");
    // The owner is told the server's words, without the address, and what to check.
    expect(json(sent, errorResponseSchema).error.message).toMatch(
      /^The mail server did not take the test copy \(.*Recipient address rejected.*\): check the address, and that SMTP_URL names a mail server that is running, then try again\.$/,
    );
    expect(json(sent, errorResponseSchema).error.message.toLowerCase()).not.toContain(
      "proof.reader",
    );
  });

  it("of a test copy from the command line, gives the server's words and what to check", async () => {
    const env = { ...adminEnv(t), SMTP_URL: smtp.url };
    const run = await admin(env, "newsletter", "send", refusedEdition, "--test", "me@example.com");
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^The mail server did not take the test copy \(.*Recipient address rejected.*\): check the address, and that SMTP_URL names a mail server that is running, then try again\.\n$/,
    );
  });
});
