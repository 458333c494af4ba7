import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadContent } from "../../content/load.ts";
import { priceSignal } from "../../content/service-page.ts";
import { errorResponseSchema } from "../../contract/api.ts";
import {
  assistantFeedbackResponseSchema,
  assistantResponseSchema,
  questionsResponseSchema,
} from "../../contract/assistant.ts";
import { limits } from "../../contract/limits.ts";
import { loadIndex } from "../../server/assistant/retrieval.ts";
import { termsOf } from "../../server/assistant/terms.ts";
import { longestTurn } from "../support/event-loop.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { testIndexJson, testPassages } from "./support/assistant-index.ts";
import { dom } from "./support/html.ts";
import { Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import {
  backends,
  capturedLogs,
  json,
  siteUrl,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

/*
 * The site's own assistant (docs/product.md, "Chat with Me"): answers quoted
 * from the site's real pages, indexed as the build indexes them; a question
 * the site cannot answer declined with the offer to ask the engineer; bad
 * input refused and nothing recorded; questions kept without identity.
 */

const indexJson = testIndexJson();

/** A question to the API from `ip`, as the site's pages send it. */
const askApi = (app: TestApp["app"], question: string, ip: string) =>
  app.inject({
    method: "POST",
    url: "/api/assistant",
    remoteAddress: ip,
    headers: { origin: siteUrl },
    payload: { question },
  });

describe.each(backends)("the assistant on %s", (backend) => {
  let t: TestApp;
  const questions = async () =>
    runSql(
      t,
      "select question, known, page, service, helpful from assistant_questions order by id",
    );

  beforeAll(async () => {
    t = await startTestApp(backend, {
      assistantIndex: () => indexJson,
      env: { ASSISTANT_QUESTIONS_PER_MINUTE: "5" },
    });
  });
  afterAll(() => t.close());

  it("quotes the page that answers, with a link to its part, and records the question without identity", async () => {
    const reader = t.visitor({ ip: "10.1.0.1" });
    const response = await reader.post("/api/assistant", {
      question: "What temperature should I iron cotton at?",
    });
    expect(response.statusCode).toBe(200);
    const answer = json(response, assistantResponseSchema);
    expect(answer.known).toBe(true);
    expect(answer.answer).toMatch(/cotton 180–200°C/);
    expect(answer.sources[0]?.url).toBe("/science/ironing#pressing-temperatures");
    expect(answer.sources[0]?.title).toBe(
      "Why does an iron remove wrinkles? › Pressing temperatures",
    );
    const rows = await questions();
    const row = rows.at(-1) as Record<string, unknown>;
    expect(row.question).toBe("What temperature should I iron cotton at?");
    expect(Number(row.known)).toBe(1);
    expect(row.page).toBe("/science/ironing#pressing-temperatures");
    // Nothing but the question and its answer's page: no visitor, IP or address column.
    expect(Object.keys(row).sort()).toEqual(["helpful", "known", "page", "question", "service"]);
    const columns = await runSql(
      t,
      backend === "sqlite"
        ? "select name from pragma_table_info('assistant_questions')"
        : "select column_name as name from information_schema.columns where table_name = 'assistant_questions'",
    );
    expect(columns.map((c) => c.name).sort()).toEqual(
      ["asked_at", "helpful", "id", "known", "page", "question", "service", "written"].sort(),
    );
  });

  it("keeps no e-mail address or phone number a reader wrote in a question, and answers it without them", async () => {
    const asked =
      "What temperature should I iron cotton at? Write to meera.iyer+site@example.org or call +91 98765 43210.";
    const response = await t.visitor({ ip: "10.1.0.40" }).post("/api/assistant", {
      question: asked,
    });
    const answer = json(response, assistantResponseSchema);
    expect(answer.sources[0]?.url).toBe("/science/ironing#pressing-temperatures");
    const kept = await runSql(t, "select question from assistant_questions where id = ?", [
      answer.feedback.id,
    ]);
    expect(kept).toEqual([
      {
        question:
          "What temperature should I iron cotton at? Write to [e-mail address] or call [phone number].",
      },
    ]);
    const anywhere = await runSql(
      t,
      "select id from assistant_questions where question like ? or question like ?",
      ["%example.org%", "%98765%"],
    );
    expect(anywhere).toEqual([]);
  });

  it("finds words asked side by side where they stand side by side", async () => {
    // "Pumping loss", not the page on a coolant pump's seal that loses coolant.
    const answer = json(
      await t.visitor({ ip: "10.1.0.24" }).post("/api/assistant", {
        question: "What is pumping loss?",
      }),
      assistantResponseSchema,
    );
    expect(answer.sources[0]?.url).toMatch(/^\/technical\/ice-blog#/);
    expect(answer.answer).toContain("pumping loss");
  });

  it("keeps the topic of a follow-up", async () => {
    const response = await t.visitor({ ip: "10.1.0.2" }).post("/api/assistant", {
      question: "and for silk?",
      previous: "What temperature should I iron cotton at?",
    });
    const answer = json(response, assistantResponseSchema);
    expect(answer.known).toBe(true);
    expect(answer.answer).toMatch(/silk 120–150°C/);
    expect(answer.sources[0]?.url).toMatch(/^\/science\/ironing/);
  });

  it("declines what the site does not hold, and offers the enquiry form", async () => {
    const response = await t.visitor({ ip: "10.1.0.3" }).post("/api/assistant", {
      question: "What is the capital of Australia?",
    });
    const answer = json(response, assistantResponseSchema);
    expect(answer.known).toBe(false);
    expect(answer.sources).toEqual([]);
    expect(answer.answer).toMatch(/could not find that on this site/);
    expect(answer.actions).toEqual([
      {
        kind: "enquiry",
        label: "Send an enquiry",
        url: "/services#send-enquiry",
      },
    ]);
    // Asked on a service's page, it leads to that service's enquiry; an unknown one, to all.
    for (const [from, url] of [
      ["dfmea", "/services/ask/dfmea#send-enquiry"],
      ["no-such-service", "/services#send-enquiry"],
    ]) {
      const declined = await t.visitor({ ip: "10.1.0.3" }).post("/api/assistant", {
        question: "What is the capital of Australia?",
        from,
      });
      expect(json(declined, assistantResponseSchema).actions.map((action) => action.url)).toEqual([
        url,
      ]);
    }
  });

  it("carries the question to the enquiry form without JavaScript in a post, never in an address", async () => {
    const form = (payload: Record<string, string>, url = "/services/assistant") =>
      t.app.inject({
        method: "POST",
        url,
        remoteAddress: "10.1.0.30",
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams(payload).toString(),
      });
    for (const [question, service, from] of [
      ["Can Priya Nair of 12 Elm Road ask what the capital of Australia is?", "", ""],
      ["Can you review our tolerance stack-up?", "tolerance-stackups", ""],
      // Declined on a service's page: the enquiry keeps that service.
      ["What is the capital of Australia?", "dfmea", "dfmea"],
    ] as const) {
      const answer = dom((await form({ question, ...(from ? { from } : {}) })).body);
      // No link of the answer names the question.
      for (const link of answer.querySelectorAll("a")) {
        expect(link.getAttribute("href")).not.toMatch(/message|Priya|stack-up/);
      }
      const send = [...answer.querySelectorAll("button")].find(
        (button) => button.textContent === "Send an enquiry",
      );
      const enquiry = send?.closest("form");
      expect(enquiry?.getAttribute("method")).toBe("post");
      expect(enquiry?.getAttribute("action")).toBe("/services/enquiry");
      const fields = new URLSearchParams();
      for (const input of enquiry?.querySelectorAll("input") ?? []) {
        fields.set(input.getAttribute("name") ?? "", input.getAttribute("value") ?? "");
      }
      fields.set(send?.getAttribute("name") ?? "", send?.getAttribute("value") ?? "");
      // Pressed, it answers with the enquiry form, the question its message.
      const filled = await form(Object.fromEntries(fields), "/services/enquiry");
      expect(filled.statusCode).toBe(200);
      const page = dom(filled.body);
      expect(page.querySelector("h1")?.textContent).toBe("Send an enquiry");
      expect(page.querySelector("textarea[name=message]")?.textContent).toBe(question);
      expect(
        page.querySelector("select[name=service] option[selected]")?.getAttribute("value"),
      ).toBe(service);
      expect(page.querySelector("[aria-invalid]")).toBeNull();
    }
  });

  it("answers a question about help with the service, what it includes and the enquiry form", async () => {
    const response = await t.visitor({ ip: "10.1.0.4" }).post("/api/assistant", {
      question: "Can you review our tolerance stack-up?",
    });
    const answer = json(response, assistantResponseSchema);
    expect(answer.known).toBe(true);
    expect(answer.service?.id).toBe("tolerance-stackups");
    expect(answer.service?.includes.length).toBeGreaterThan(2);
    expect(answer.sources[0]?.url).toBe("/services#tolerance-stackups");
    // No booking page in this build: no "Book a call".
    expect(answer.actions.map((action) => action.url)).toEqual([
      "/services/ask/tolerance-stackups#send-enquiry",
    ]);
  });

  it("says what a service costs, how long it takes and where, when asked", async () => {
    const dfmea = loadContent().services.find((service) => service.id === "dfmea");
    if (!dfmea) throw new Error("no DFMEA service in the content");
    const reader = t.visitor({ ip: "10.1.0.6" });
    for (const question of ["How much does a DFMEA cost?", "How long does a DFMEA take?"]) {
      const answer = json(
        await reader.post("/api/assistant", { question }),
        assistantResponseSchema,
      );
      expect(answer.known).toBe(true);
      expect(answer.service?.id).toBe("dfmea");
      expect(answer.answer).toContain(priceSignal(dfmea.price));
      expect(answer.answer).toContain(dfmea.duration);
      expect(answer.answer).toContain(dfmea.where);
      // Its source is the service's page, named as the service, not the part that matched.
      expect(answer.sources[0]?.title).toBe("DFMEA");
    }
  });

  it("answers a follow-up that asks only the price with the service asked about before", async () => {
    const dfmea = loadContent().services.find((service) => service.id === "dfmea");
    if (!dfmea) throw new Error("no DFMEA service in the content");
    const reader = t.visitor({ ip: "10.1.0.7" });
    const ask = async (question: string, previous: string) =>
      json(await reader.post("/api/assistant", { question, previous }), assistantResponseSchema);
    for (const question of ["How much does it cost?", "What is the price?"]) {
      const answer = await ask(question, "What does the DFMEA service include?");
      expect(answer.known).toBe(true);
      expect(answer.service?.id).toBe("dfmea");
      expect(answer.answer).toContain(priceSignal(dfmea.price));
    }
    // After a question about a subject, not a service, the price is not the site's to say.
    const declined = await ask("How much does it cost?", "Why does a pressure cooker whistle?");
    expect(declined.known).toBe(false);
  });

  it("answers a price asked in other words with the service's terms, never with a page that shares a word", async () => {
    const dfmea = loadContent().services.find((service) => service.id === "dfmea");
    if (!dfmea) throw new Error("no DFMEA service in the content");
    const reader = t.visitor({ ip: "10.1.0.21" });
    const ask = async (question: string) =>
      json(await reader.post("/api/assistant", { question }), assistantResponseSchema);
    const workshop = await ask("How much do you charge for a DFMEA workshop?");
    expect(workshop.service?.id).toBe("dfmea");
    expect(workshop.answer).toContain(priceSignal(dfmea.price));
    // "Charge" is also a battery's: the day rate is a service's, not an article on EVs.
    const perDay = await ask("What do you charge per day?");
    expect(perDay.known).toBe(true);
    expect(perDay.service).not.toBeNull();
    expect(perDay.answer).toMatch(/per (consulting|training) day/);
  });

  it("answers a question a service page answers with its answer, the service beside it", async () => {
    const answer = json(
      await t.visitor({ ip: "10.1.0.22" }).post("/api/assistant", {
        question: "Do you calibrate engines?",
      }),
      assistantResponseSchema,
    );
    expect(answer.service?.id).toBe("ic-engine-projects");
    // The answer's "No." with the sentence that says why.
    expect(answer.answer).toMatch(/^No\. I review calibration results/);
    expect(answer.sources[0]?.title).toBe("IC Engine Projects › Do you calibrate engines?");
    expect(answer.actions.map((action) => action.kind)).toContain("enquiry");
  });

  it("answers how to reach the engineer with the enquiry form, not with a page that says 'contact'", async () => {
    const reader = t.visitor({ ip: "10.1.0.25" });
    const ask = async (question: string) =>
      json(await reader.post("/api/assistant", { question }), assistantResponseSchema);
    for (const question of [
      "How do I contact you?",
      "What is your email?",
      "Are you available next week?",
      // Where no call is booked, a first call is not offered.
      "Is the first call free?",
    ]) {
      const answer = await ask(question);
      expect(answer.known).toBe(false);
      expect(answer.answer).toMatch(/answers every enquiry personally/);
      expect(answer.actions.map((action) => action.kind)).toContain("enquiry");
      // A call is offered in words only where the site takes bookings (this one has no page).
      expect(answer.answer.includes("book a call")).toBe(
        answer.actions.some((action) => action.kind === "booking"),
      );
    }
    // A subject's "contact" is still the subject's.
    const starter = await ask("How does the starter motor make contact?");
    expect(starter.sources[0]?.url).toMatch(/^\/science\/starter-motor/);
  });

  it("says what a service is when asked what its subject is", async () => {
    const dfmea = loadContent().services.find((service) => service.id === "dfmea");
    if (!dfmea) throw new Error("no DFMEA service in the content");
    const answer = json(
      await t.visitor({ ip: "10.1.0.26" }).post("/api/assistant", { question: "What is DFMEA?" }),
      assistantResponseSchema,
    );
    expect(answer.service?.id).toBe("dfmea");
    expect(answer.answer.startsWith(dfmea.description)).toBe(true);
    expect(answer.sources[0]?.title).toBe("DFMEA");
  });

  it("says who the engineer is, where they work and since when, from About's header", async () => {
    const { owner } = loadContent();
    const reader = t.visitor({ ip: "10.1.0.23" });
    const ask = async (question: string) =>
      json(await reader.post("/api/assistant", { question }), assistantResponseSchema);
    for (const question of ["Who are you?", "Who writes this site?"]) {
      const answer = await ask(question);
      expect(answer.known).toBe(true);
      expect(answer.answer).toContain(owner.name);
      expect(answer.sources.map((source) => source.url)).toEqual(["/about"]);
    }
    expect((await ask("Where are you based?")).answer).toContain(`Based in ${owner.location}`);
    expect((await ask("What is your education?")).answer).toContain(owner.education[0]);
    // Their experience of a subject: the part of About that tells it.
    const dfmea = await ask("What is your experience with DFMEA?");
    expect(dfmea.sources[0]?.url).toMatch(/^\/about#/);
    expect(dfmea.answer).toContain("DFMEA");
  });

  it("answers a short question on a subject of its own, asked after another", async () => {
    const reader = t.visitor({ ip: "10.1.0.8" });
    const ask = async (question: string) =>
      json(
        await reader.post("/api/assistant", {
          question,
          previous: "Why does a pressure cooker whistle?",
        }),
        assistantResponseSchema,
      );
    const price = await ask("How much does a DFMEA cost?");
    expect(price.known).toBe(true);
    expect(price.service?.id).toBe("dfmea");
    const dpf = await ask("What is a DPF?");
    expect(dpf.known).toBe(true);
    expect(dpf.answer).toMatch(/particulate filter/i);
  });

  it("refuses bad questions with a clear message, and records none of them", async () => {
    const before = (await questions()).length;
    const reader = t.visitor({ ip: "10.1.0.5" });
    for (const [body, message] of [
      [{ question: "a" }, /at least 2 characters/],
      [{ question: "x".repeat(501) }, /at most 500 characters/],
      [{ question: "why\u202Eevil" }, /plain text/],
      [{ question: "   " }, /at least 2 characters/],
      [{ question: 42 }, /question/],
      [{ question: "fine question", extra: true }, /extra|Unrecognized/i],
    ] as const) {
      const response = await reader.post("/api/assistant", body);
      expect(response.statusCode).toBe(400);
      expect(json(response, errorResponseSchema).error.message).toMatch(message);
    }
    const notJson = await reader.request("POST", "/api/assistant", "question=hello", {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(notJson.statusCode).toBe(415);
    const elsewhere = await reader.request(
      "POST",
      "/api/assistant",
      JSON.stringify({ question: "What is a DPF?" }),
      { origin: "https://evil.example" },
    );
    expect(elsewhere.statusCode).toBe(403);
    expect((await questions()).length).toBe(before);
  });

  it("renders a question's HTML as text: the answer never carries it back as markup", async () => {
    const response = await t.visitor({ ip: "10.1.0.6" }).post("/api/assistant", {
      question: '<img src=x onerror="alert(1)"> what is a micelle?',
    });
    const answer = json(response, assistantResponseSchema);
    expect(JSON.stringify(answer.answer)).not.toContain("<img");
    for (const action of answer.actions) expect(action.url).not.toContain("<");
  });

  it("limits questions per visitor with 429 and Retry-After", async () => {
    const reader = t.visitor({ ip: "10.1.0.7" });
    // The first write gives the reader a visitor cookie; the limit then counts per visitor.
    await reader.post("/api/items/science/soap/reactions", { type: "like", userName: "Asha" });
    const statuses: number[] = [];
    for (let n = 0; n < 6; n += 1) {
      const response = await reader.post("/api/assistant", { question: "How does soap clean?" });
      statuses.push(response.statusCode);
      if (response.statusCode === 429) {
        expect(Number(response.headers["retry-after"])).toBeGreaterThan(0);
        expect(json(response, errorResponseSchema).error.message).toMatch(/wait a minute/);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it("takes a reader's thumbs up or down only with the answer's own token", async () => {
    const reader = t.visitor({ ip: "10.1.0.8" });
    const answer = json(
      await reader.post("/api/assistant", { question: "Why does a pressure cooker whistle?" }),
      assistantResponseSchema,
    );
    const { id, token } = answer.feedback;
    const forged = await reader.post("/api/assistant/feedback", {
      id,
      token: "A".repeat(22),
      helpful: false,
    });
    expect(forged.statusCode).toBe(403);
    const other = await reader.post("/api/assistant/feedback", {
      id: id + 1,
      token,
      helpful: false,
    });
    expect(other.statusCode).toBe(403);
    const given = await reader.post("/api/assistant/feedback", { id, token, helpful: true });
    expect(json(given, assistantFeedbackResponseSchema)).toEqual({ recorded: true });
    // Given once: the same again (a retry) is taken, the other is refused and changes nothing.
    const again = await reader.post("/api/assistant/feedback", { id, token, helpful: true });
    expect(json(again, assistantFeedbackResponseSchema)).toEqual({ recorded: true });
    const turned = await reader.post("/api/assistant/feedback", { id, token, helpful: false });
    expect(turned.statusCode).toBe(409);
    expect(json(turned, errorResponseSchema).error.message).toBe(
      "A verdict on that answer was given already.",
    );
    const row = (await runSql(t, "select helpful from assistant_questions where id = ?", [id]))[0];
    expect(Number(row?.helpful)).toBe(1);
  });

  it("answers the form without JavaScript on a page of its own, escaping the question", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/services/assistant",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({
        question: "How does a <b>pressure</b> cooker cook faster?",
      }).toString(),
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain("<b>pressure</b>");
    const page = dom(response.body);
    expect(page.querySelector("h1")?.textContent).toBe("Chat with Me");
    const links = [...page.querySelectorAll("a")].map((a) => a.getAttribute("href"));
    expect(links.some((href) => href?.startsWith("/science/pressure-cooker"))).toBe(true);
    expect(page.querySelector("input[name=previous]")?.getAttribute("value")).toBe(
      "How does a <b>pressure</b> cooker cook faster?",
    );
    expect(page.querySelector("a[href='/services']")?.textContent).toBe("Back to the services");

    // Asked on a service's page, the answer leads back to it, and the next question keeps it;
    // a page the site does not offer leads back to the services.
    const askFrom = (from: string) =>
      t.app.inject({
        method: "POST",
        url: "/services/assistant",
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ question: "What does DFMEA include?", from }).toString(),
      });
    const fromService = dom((await askFrom("dfmea")).body);
    expect(fromService.querySelector("a[href='/services/dfmea']")?.textContent).toMatch(
      /^Back to .*DFMEA/,
    );
    expect(fromService.querySelector("a[href='/services']")).toBeNull();
    expect(fromService.querySelector("input[name=from]")?.getAttribute("value")).toBe("dfmea");
    for (const forged of ["//evil.example", "no-such-service", "dfmea/../../admin"]) {
      const page = dom((await askFrom(forged)).body);
      expect(page.querySelector("a[href='/services']")?.textContent).toBe("Back to the services");
      expect(page.querySelector("input[name=from]")).toBeNull();
    }

    const empty = await t.app.inject({
      method: "POST",
      url: "/services/assistant",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: "question=",
    });
    expect(empty.statusCode).toBe(400);
    expect(dom(empty.body).querySelector("[role=alert]")?.textContent).toMatch(/at least 2/);

    const elsewhere = await t.app.inject({
      method: "POST",
      url: "/services/assistant",
      headers: {
        origin: "https://evil.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      payload: "question=hello+there",
    });
    expect(elsewhere.statusCode).toBe(403);
  });

  it("reads the longest question the form takes, in any script, with the one before it", async () => {
    // 500 characters of Devanagari are 4,500 bytes once the form encodes them.
    const longest = "क".repeat(500);
    const response = await t.app.inject({
      method: "POST",
      url: "/services/assistant",
      remoteAddress: "10.1.0.32",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({
        question: longest,
        previous: longest,
        from: "dfmea",
      }).toString(),
    });
    expect(response.statusCode).toBe(200);
    expect(dom(response.body).querySelector("blockquote")?.textContent).toBe(longest);
  });

  // Once, on SQLite: refused by the form's rules, the index or the limit in memory, no statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("keeps the service page a question was asked on when the form is refused", async () => {
        const ask = async (
          app: TestApp["app"],
          fields: Record<string, string>,
          ip: string,
          referer?: string,
        ) => {
          const response = await app.inject({
            method: "POST",
            url: "/services/assistant",
            remoteAddress: ip,
            headers: {
              origin: siteUrl,
              "content-type": "application/x-www-form-urlencoded",
              ...(referer === undefined ? {} : { referer }),
            },
            payload: new URLSearchParams(fields).toString(),
          });
          const page = dom(response.body);
          return {
            status: response.statusCode,
            problem: page.querySelector("[role=alert]")?.textContent,
            from: page.querySelector("form input[name=from]")?.getAttribute("value"),
            back: page.querySelector("a[href='/services/dfmea']")?.textContent,
          };
        };
        const leadsBack = { from: "dfmea", back: expect.stringMatching(/^Back to .*DFMEA/) };
        expect(await ask(t.app, { question: "", from: "dfmea" }, "10.1.0.30")).toEqual({
          status: 400,
          problem: expect.stringMatching(/at least 2/),
          ...leadsBack,
        });
        expect(await ask(t.app, { question: "x".repeat(501), from: "dfmea" }, "10.1.0.30")).toEqual(
          {
            status: 400,
            problem: expect.stringMatching(/at most 500/),
            ...leadsBack,
          },
        );
        // A page the site does not offer is not carried on.
        expect(await ask(t.app, { question: "", from: "no-such-service" }, "10.1.0.30")).toEqual({
          status: 400,
          problem: expect.stringMatching(/at least 2/),
          from: undefined,
          back: undefined,
        });
        // The form's page wins over the Referer's.
        expect(
          await ask(
            t.app,
            { question: "", from: "dfmea" },
            "10.1.0.30",
            `${siteUrl}/services/voicebots`,
          ),
        ).toEqual({ status: 400, problem: expect.stringMatching(/at least 2/), ...leadsBack });

        // A question too large to read leaves only the Referer to say which page it was asked on:
        // this site's page of a service it offers, and nothing else.
        const oversized = { question: "x".repeat(20_000), from: "dfmea" };
        const tooLong = {
          status: 413,
          problem: "The question was too long to read. Ask a shorter one.",
        };
        expect(await ask(t.app, oversized, "10.1.0.30", `${siteUrl}/services/dfmea?ref=x`)).toEqual(
          {
            ...tooLong,
            ...leadsBack,
          },
        );
        for (const referer of [
          "https://evil.example/services/dfmea",
          "not a url",
          `${siteUrl}/services/dfmea/`,
          `${siteUrl}/services/dfmea/../dfmea/x`,
          `${siteUrl}/services/no-such-service`,
          `${siteUrl}/services`,
          `${siteUrl}/`,
        ]) {
          expect(await ask(t.app, oversized, "10.1.0.30", referer), referer).toEqual({
            ...tooLong,
            from: undefined,
            back: undefined,
          });
        }
        const plain = await t.app.inject({
          method: "POST",
          url: "/services/assistant",
          remoteAddress: "10.1.0.30",
          headers: {
            origin: siteUrl,
            referer: "https://evil.example/services/dfmea",
            "content-type": "application/x-www-form-urlencoded",
          },
          payload: new URLSearchParams(oversized).toString(),
        });
        expect(plain.body).not.toContain("evil.example");
        expect(dom(plain.body).querySelector(".note:last-child")?.textContent).toBe(
          "Or go back with your browser's Back button.",
        );

        // A site built without the assistant's index, and a reader over the limit.
        const bare = await startTestApp(backend, {
          dataDir: t.dataDir,
          ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : {}),
          assistantIndex: () => null,
          env: { ASSISTANT_QUESTIONS_PER_MINUTE_PER_IP: "1" },
        });
        try {
          const question = { question: "What does DFMEA include?", from: "dfmea" };
          expect(await ask(bare.app, question, "10.1.0.31")).toEqual({
            status: 503,
            problem: "The assistant is not available just now.",
            ...leadsBack,
          });
          expect(await ask(bare.app, question, "10.1.0.31")).toEqual({
            status: 429,
            problem: expect.stringMatching(/wait a minute/),
            ...leadsBack,
          });
          // The form and the API share one count per address: a question asked through the
          // API leaves none for the form that minute, and the form's none for the API.
          const throughApi = (ip: string) => askApi(bare.app, "What does DFMEA include?", ip);
          expect((await throughApi("10.1.0.32")).statusCode).toBe(503);
          expect((await ask(bare.app, question, "10.1.0.32")).status).toBe(429);
          expect((await throughApi("10.1.0.31")).statusCode).toBe(429);
        } finally {
          await bare.close();
        }
      });
    });
  }

  it("shows the owner, and no one else, what readers asked, with the unanswered ones grouped", async () => {
    const reader = t.visitor({ ip: "10.1.0.9" });
    for (const question of [
      "How do I tune a guitar string?",
      "What tension should a guitar string have?",
      "Who won the 2018 world cup?",
    ]) {
      await reader.post("/api/assistant", { question });
    }
    expect((await t.visitor().get("/api/admin/questions")).statusCode).toBe(401);
    const me = new Owner(t);
    expect((await me.signIn()).statusCode).toBe(200);
    const screen = json(await me.get("/api/admin/questions"), questionsResponseSchema);
    expect(screen.retentionDays).toBe(90);
    expect(screen.totals.asked).toBe((await questions()).length);
    expect(screen.totals.helpful).toBeGreaterThanOrEqual(1);
    const guitar = screen.unanswered.find((group) => group.words.includes("guitar"));
    expect(guitar?.count).toBe(2);
    expect(screen.questions[0]?.question).toBe("Who won the 2018 world cup?");
    const answered = json(
      await me.get("/api/admin/questions?answered=yes"),
      questionsResponseSchema,
    );
    expect(answered.questions.every((question) => question.known)).toBe(true);
    expect(
      answered.questions.some((q) => q.page === "/science/ironing#pressing-temperatures"),
    ).toBe(true);

    const id = screen.questions[0]?.id as number;
    expect((await me.delete(`/api/admin/questions/${id}`)).statusCode).toBe(204);
    expect((await me.delete(`/api/admin/questions/${id}`)).statusCode).toBe(404);
    const audit = await runSql(t, "select action, object from owner_audit order by id desc");
    expect(audit[0]).toMatchObject({ action: "question delete", object: `question ${id}` });
  });

  it("names the unanswered questions' groups by whole words in any script, accents folded only off Latin letters", async () => {
    const reader = t.visitor({ ip: "10.1.0.31" });
    const asked = [
      "ഇത് എങ്ങനെ പ്രവർത്തിക്കുന്നു",
      "हाइड्रोजन इंजन कैसे चलता है",
      "Quelle température pour un moteur diesel à froid ?",
    ];
    for (const question of asked) await reader.post("/api/assistant", { question });
    const me = new Owner(t);
    await me.signIn();
    const { unanswered } = json(await me.get("/api/admin/questions"), questionsResponseSchema);
    const groupOf = (question: string) =>
      unanswered.find((group) => group.examples.includes(question))?.words;
    // As the reader wrote them: vowel signs and viramas are part of their letters.
    expect(groupOf(asked[0] as string)).toBe("ഇത്, എങ്ങനെ, പ്രവർത്തിക്കുന്നു");
    expect(groupOf(asked[1] as string)).toContain("हाइड्रोजन, इंजन");
    // A French accent is folded off, as before, so "temperature" finds "température".
    expect(groupOf(asked[2] as string)).toContain("temperatur");
  });

  it("lists on the command line what the console's Questions screen shows, and deletes as it does", async () => {
    const reader = t.visitor({ ip: "10.1.0.30" });
    for (const question of [
      "How often should a sourdough starter be fed?",
      "What flour does a sourdough starter need?",
    ]) {
      await reader.post("/api/assistant", { question });
    }
    const me = new Owner(t);
    await me.signIn();
    const screen = json(await me.get("/api/admin/questions"), questionsResponseSchema);
    const listed = await admin(adminEnv(t), "questions", "list", "--json", "--limit", "500");
    expect(listed.code).toBe(0);
    expect(questionsResponseSchema.parse(JSON.parse(listed.stdout))).toEqual(screen);

    const text = await admin(adminEnv(t), "questions", "list", "--unanswered", "--limit", "2");
    expect(text.code).toBe(0);
    // The feedback test above left one answer found helpful: "1 answer", not "1 answers".
    const { helpful, unhelpful } = screen.totals;
    expect(text.stdout).toContain(
      `readers found ${helpful} answer${helpful === 1 ? "" : "s"} helpful and ${unhelpful} not.`,
    );
    expect(text.stdout).toMatch(/Not answered yet, grouped by their words/);
    expect(text.stdout).toMatch(/ 2× {2}.*sourdough/);
    expect(text.stdout).toContain("What flour does a sourdough starter need?");
    expect(text.stdout).toMatch(/Unanswered questions, newest first/);
    expect(text.stdout).not.toMatch(/iron cotton/);

    const bad = await admin(adminEnv(t), "questions", "list", "--limit", "zero");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--limit is a number from 1 to 500/);

    const id = screen.questions[0]?.id as number;
    const deleted = await admin(adminEnv(t), "questions", "delete", String(id));
    expect(deleted).toMatchObject({ code: 0, stdout: `Deleted question ${id}.\n` });
    expect((await admin(adminEnv(t), "questions", "delete", String(id))).code).toBe(3);
    const audit = await runSql(t, "select action, object from owner_audit order by id desc");
    expect(audit[0]).toMatchObject({ action: "question delete", object: `question ${id}` });
  });

  it("attributes each question answered, through the API or the plain form, to the reader's visit, and no refused one", async () => {
    const browser = {
      "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36",
    };
    const counted = async () => {
      await t.app.readers.flush();
      return Number(
        (
          await runSql(
            t,
            "select coalesce(sum(count), 0) as n from reader_conversion_days where kind = 'question'",
          )
        )[0]?.n,
      );
    };
    const before = await counted();
    const asked = await t
      .visitor({ ip: "10.1.0.20" })
      .request(
        "POST",
        "/api/assistant",
        { question: "Why does a pressure cooker whistle?" },
        browser,
      );
    expect(asked.statusCode).toBe(200);
    const form = await t.app.inject({
      method: "POST",
      url: "/services/assistant",
      remoteAddress: "10.1.0.21",
      headers: {
        origin: siteUrl,
        "content-type": "application/x-www-form-urlencoded",
        ...browser,
      },
      payload: "question=What+is+a+DPF%3F",
    });
    expect(form.statusCode).toBe(200);
    const refused = await t
      .visitor({ ip: "10.1.0.22" })
      .request("POST", "/api/assistant", { question: "x" }, browser);
    expect(refused.statusCode).toBe(400);
    expect(await counted()).toBe(before + 2);
  });

  it("deletes questions older than the retention period", async () => {
    await runSql(
      t,
      "insert into assistant_questions (question, known, written, asked_at) values (?, 0, 0, ?), (?, 0, 0, ?)",
      [
        "an old question",
        new Date(Date.now() - 91 * 86_400_000).toISOString(),
        "a recent question",
        new Date(Date.now() - 89 * 86_400_000).toISOString(),
      ],
    );
    // The retention runs when a server starts, and hourly after.
    const again = await startTestApp(backend, {
      dataDir: t.dataDir,
      ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : {}),
      assistantIndex: () => indexJson,
    });
    try {
      const count = async (question: string) =>
        Number(
          (
            await runSql(t, "select count(*) as n from assistant_questions where question = ?", [
              question,
            ])
          )[0]?.n,
        );
      await waitFor(async () => (await count("an old question")) === 0);
      expect(await count("a recent question")).toBe(1);
    } finally {
      await again.close();
    }
  });
});

describe("questions from one address in a day", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite", {
      assistantIndex: () => indexJson,
      env: { ASSISTANT_QUESTIONS_PER_DAY_PER_IP: "3" },
    });
  });
  afterAll(() => t.close());

  it("are ASSISTANT_QUESTIONS_PER_DAY_PER_IP at most, through the API and the form together, each kept no more: then 429 until the next day", async () => {
    const question = "What temperature should I iron cotton at?";
    const throughApi = (ip: string) => askApi(t.app, question, ip);
    const throughForm = (ip: string) =>
      t.app.inject({
        method: "POST",
        url: "/services/assistant",
        remoteAddress: ip,
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ question }).toString(),
      });
    const statuses = [];
    for (const ask of [throughApi, throughForm, throughApi]) {
      statuses.push((await ask("10.3.0.1")).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200]);
    const day = "You have asked as many questions as one address may in a day; ask again tomorrow.";
    const api = await throughApi("10.3.0.1");
    expect(api.statusCode).toBe(429);
    expect(Number(api.headers["retry-after"])).toBeGreaterThan(23 * 3600);
    expect(json(api, errorResponseSchema).error.message).toBe(day);
    const form = await throughForm("10.3.0.1");
    expect(form.statusCode).toBe(429);
    expect(dom(form.body).querySelector("#question-problem")?.textContent).toBe(day);
    expect(await runSql(t, "select id from assistant_questions")).toHaveLength(3);
    // Another address asks on.
    expect((await throughApi("10.3.0.2")).statusCode).toBe(200);
  });
});

describe("the longest questions", () => {
  it("cost the server's one thread a few milliseconds each, however long and misspelt their words", () => {
    const index = loadIndex(indexJson);
    const ordinary = "What temperature should I iron cotton at?";
    // The site's own long words cut anywhere: each near enough to many to be searched
    // for its misspellings, a follow-up's with the question before it.
    const site =
      "combustionemissionsinjectiontemperaturehydrogenelectrolyserturbochargerpressurecooker";
    const wordsOf = (length: number, from: number) =>
      Array.from({ length: 60 }, (_, at) => {
        const start = (from + at * 5) % (site.length - length);
        return site.slice(start, start + length);
      }).join(" ");
    const longest = (text: string) => text.slice(0, limits.questionMax);
    const hostile = [10, 12, 28].map((length) => ({
      question: longest(`and can you help ${wordsOf(length, 0)}`),
      previous: longest(`can you help with ${wordsOf(length, 7)}`),
    }));
    /** The median of the thread's CPU time a question takes, in ms. */
    const cost = (question: string, previous?: string) => {
      index.find(question, previous);
      const times = Array.from({ length: 9 }, () => {
        const before = process.threadCpuUsage();
        index.find(question, previous);
        const { user, system } = process.threadCpuUsage(before);
        return (user + system) / 1000;
      });
      return times.sort((a, b) => a - b)[4] as number;
    };
    expect(cost(ordinary)).toBeLessThan(5);
    // 25 to 70 ms each when every word of both was searched for words up to four letters off.
    for (const { question, previous } of hostile) {
      expect(question.length).toBe(limits.questionMax);
      expect(cost(question, previous), question.slice(0, 40)).toBeLessThan(25);
    }
  });
});

describe("the Questions screen of as many unanswered questions as it groups", () => {
  it("is grouped without holding the server's one thread for long, however they were worded", async () => {
    const t = await startTestApp("sqlite", { assistantIndex: () => indexJson });
    try {
      // 2,000 questions of the longest, each of words of its own: a few days of one address's.
      let seed = 48;
      const random = () => {
        seed ^= seed << 13;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
        return (seed >>> 0) / 2 ** 32;
      };
      const word = () =>
        Array.from({ length: 4 + Math.floor(random() * 6) }, () =>
          String.fromCharCode(97 + Math.floor(random() * 26)),
        ).join("");
      const asked = new Date().toISOString();
      for (let chunk = 0; chunk < 10; chunk += 1) {
        const rows = Array.from({ length: 200 }, () => {
          let question = "";
          while (question.length < limits.questionMax - 10) question += `${word()} `;
          return [question.trim(), 0, asked];
        });
        await runSql(
          t,
          `insert into assistant_questions (question, known, written, asked_at) values ${rows.map(() => "(?, ?, 0, ?)").join(", ")}`,
          rows.flat(),
        );
      }
      const me = new Owner(t);
      await me.signIn();
      const { value: response, longestCpu } = await longestTurn(() =>
        me.get("/api/admin/questions"),
      );
      const screen = json(response, questionsResponseSchema);
      expect(screen.totals.asked).toBe(2000);
      expect(screen.unanswered).toHaveLength(50);
      // Some ten seconds, when each question was compared with every group before it: the
      // CPU time of the longest turn, which other work on the machine does not stretch.
      expect(longestCpu).toBeLessThan(3000);
    } finally {
      await t.close();
    }
  });
});

describe("a question the owner deletes, alone", () => {
  it("is in no file of the database soon after, the write-ahead log's included", async () => {
    const t = await startTestApp("sqlite", { assistantIndex: () => indexJson });
    try {
      const marker = "Quillerbyfenwick";
      const asked = await t.visitor({ ip: "10.4.0.1" }).post("/api/assistant", {
        question: `My name is ${marker}, at 12 Elm Road: how hot to iron cotton?`,
      });
      expect(asked.statusCode).toBe(200);
      const { id } = json(asked, assistantResponseSchema).feedback;
      const files = () =>
        readdirSync(t.dataDir)
          .filter((name) => name.startsWith("engage.sqlite"))
          .filter((name) => readFileSync(path.join(t.dataDir, name)).includes(marker));
      expect(files().length).toBeGreaterThan(0);
      const owner = new Owner(t);
      await owner.signIn();
      expect((await owner.delete(`/api/admin/questions/${id}`)).statusCode).toBe(204);
      await waitFor(async () => files().length === 0, {
        timeoutMs: 15_000,
        what: "the question gone from every file of the database",
      });
    } finally {
      await t.close();
    }
  });
});

describe("a question past its retention", () => {
  it("is in no table, no file of the database, no export and no log line once the retention has run", async () => {
    const marker = "Quillerbyretained";
    const logs = capturedLogs("info");
    const t = await startTestApp("sqlite", { assistantIndex: () => indexJson });
    let again: TestApp | undefined;
    try {
      // A question asked, then made 91 days old.
      const asked = await t.visitor({ ip: "10.5.0.1" }).post("/api/assistant", {
        question: `My name is ${marker}: how hot to iron cotton?`,
      });
      const { id } = json(asked, assistantResponseSchema).feedback;
      await runSql(t, "update assistant_questions set asked_at = ? where id = ?", [
        new Date(Date.now() - 91 * 86_400_000).toISOString(),
        id,
      ]);
      const files = () =>
        readdirSync(t.dataDir)
          .filter((name) => name.startsWith("engage.sqlite"))
          .filter((name) => readFileSync(path.join(t.dataDir, name)).includes(marker));
      expect(files().length).toBeGreaterThan(0);
      // The retention runs when a server starts, and hourly after.
      again = await startTestApp("sqlite", {
        dataDir: t.dataDir,
        assistantIndex: () => indexJson,
        logger: logs.logger,
      });
      await waitFor(async () => files().length === 0, {
        timeoutMs: 15_000,
        what: "the old question gone from every file of the database",
      });
      const tables = await runSql(
        t,
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%'",
      );
      for (const { name } of tables) {
        const rows = await runSql(t, `select * from "${String(name)}"`);
        expect(JSON.stringify(rows), String(name)).not.toContain(marker);
      }
      const out = path.join(t.dataDir, "export.json");
      const exported = await admin(adminEnv(t), "export", "--out", out);
      expect(exported.code, exported.stderr).toBe(0);
      expect(readFileSync(out, "utf8")).not.toContain(marker);
      expect(readFileSync(out, "utf8")).toContain("assistant_questions");
      expect(JSON.stringify(logs.lines)).not.toContain(marker);
      // The reader's verdict on it finds it gone.
      const verdict = await t.visitor({ ip: "10.5.0.1" }).post("/api/assistant/feedback", {
        ...json(asked, assistantResponseSchema).feedback,
        helpful: true,
      });
      expect(verdict.statusCode).toBe(404);
    } finally {
      await again?.close();
      await t.close();
    }
  });
});

describe("a service's own page, cut into passages", () => {
  it("gives each question its anchor and its answer once, under its own heading", () => {
    const passages = testPassages((id) => `/services/${id}`);
    const sketch = passages.filter((passage) =>
      passage.text.includes("A hand sketch, a photograph"),
    );
    expect(sketch.map((passage) => passage.url)).toEqual([
      "/services/mechanical-design#can-you-take-a-design-from-a-sketch-or-an-old-sample-part",
    ]);
    expect(sketch[0]?.heading).toBe("Can you take a design from a sketch or an old sample part?");
  });
});

describe("the index, asked as readers ask", () => {
  const passages = testPassages((id) => `/services/${id}`);
  const index = loadIndex(testIndexJson((id) => `/services/${id}`));
  const best = (question: string) => {
    const finding = index.find(question);
    if (!finding.known) throw new Error(`declined: ${question}`);
    return finding.best;
  };

  it("answers why the site exists from About's part on the site, and a career from the rest", () => {
    const onTheSite = passages.find(
      (passage) => passage.page === "/about" && /\bsite\b/i.test(passage.heading ?? ""),
    );
    expect(onTheSite).toBeDefined();
    for (const question of [
      "Why did you start this website?",
      "What is this site about?",
      "Why do you write about mythology?",
    ]) {
      expect(best(question).url, question).toBe(onTheSite?.url);
    }
    const career = best("Why did you start your career in engines?");
    expect(career.page).toBe("/about");
    expect(career.url).not.toBe(onTheSite?.url);
  });

  it("answers a question not put to the engineer from the writing, one put to them from the service", () => {
    expect(best("What is the balance of plant in a fuel cell vehicle?").page).toBe(
      "/technical/fuel-cell-vehicles",
    );
    expect(best("Is hydrogen safe in a car?").page).toBe("/technical/fuel-cell-vehicles");
    expect(best("Do you calibrate engines?").page).toBe("/services/ic-engine-projects");
    // The home page's line on a piece is not the piece.
    expect(best("How does a differential work?").page).toBe("/science/differential-gear");
  });

  it("never answers with a list of sources", () => {
    expect(passages.filter((passage) => passage.heading === "Sources")).toEqual([]);
    expect(best("How does GPS know where I am?").heading).not.toBe("Sources");
  });

  it("reads an engineer as an engineer, not an engine, and 'articles' as asking, not the subject", () => {
    expect(termsOf("engineer engineers engineering")).toEqual(new Set(["engineer"]));
    expect(termsOf("engineer").has([...termsOf("engines")][0] ?? "")).toBe(false);
    expect(best("How do I become a better engineer?").service).toBeNull();
    expect(best("Do you have any articles on GPS?").page).toBe("/science/gps-navigation");
    // PINN is an abbreviation, not a pin (the differential's pinion).
    expect(best("What is a PINN?").page).toBe("/mechfusion-ai/pde-and-ai");
  });

  it("joins a word's forms without cutting a word that only ends like one", () => {
    const same = (a: string, b: string) => expect(termsOf(a), `${a}, ${b}`).toEqual(termsOf(b));
    same("refuelling", "refuel");
    same("optimize", "optimisation"); // the site writes British English
    same("starter", "starting"); // a doer is its word, as a comparative is
    same("faster", "fast");
    same("center", "centre"); // the American spelling is the British word, not a cent
    same("backed up", "backups"); // a back-up is one word however written...
    for (const [word, not] of [
      ["speed", "sped"],
      ["offer", "of"],
      ["matter", "mat"],
      ["career", "care"],
      ["capable", "cap"],
      ["router", "route"],
      ["center", "cent"],
      ["chartered", "chart"],
      ["corner", "corn"],
      ["back up", "back"], // ...and not "back"
    ] as const) {
      expect(termsOf(word), word).not.toEqual(termsOf(not));
      expect([...termsOf(word)][0]?.length, word).toBeGreaterThan(3);
    }
    // A shoulder is no "should", which is left out as a common word.
    expect(termsOf("shoulder")).toEqual(new Set(["shoulder"]));
    // "ICE" is the internal combustion engine, "ice" is ice.
    const engine = [...termsOf("engine")][0];
    expect(termsOf("an ICE")).toContain(engine);
    expect([...termsOf("on ice")]).toEqual(["ice"]);
  });

  it("answers from the best passage that holds the question, not the one that repeats a word of it", () => {
    // "GPS" is in every passage of its page; "accurate" only in the one on accuracy.
    expect(termsOf("accurate")).toEqual(termsOf("accuracy"));
    const accurate = best("How accurate is GPS?");
    expect(accurate.page).toBe("/science/gps-navigation");
    expect(accurate.text).toMatch(/accuracy/);
    // "need" is how a question asks, not what it asks about.
    expect(best("Why does my car need AdBlue?").page).toBe("/technical/emissions-blog");
    // A start-up is a startup, not a start.
    expect(termsOf("start-ups")).toEqual(termsOf("startup"));
    expect(best("How is a pressure cooker safe?").heading).toBe("Safety");
    // A figure and its unit are one thing: 800 V is not an 800 t press.
    expect(termsOf("800 V")).toContain("800v");
    expect(best("Why is 800 V better?").page).toBe("/technical/ev-intro");
    expect(best("Do you work with startups?").text).toMatch(/\bstart-up\b/);
  });

  it("reads what the site holds and a typical project as asked of the engineer", () => {
    const onTheSite = passages.find(
      (passage) => passage.page === "/about" && /\bsite\b/i.test(passage.heading ?? ""),
    );
    expect(best("What will I find here?").url).toBe(onTheSite?.url);
    // Each service has its own; the answer is one of them, with its lengths.
    const project = best("How long is a typical project?");
    expect(project.heading).toBe("Typical engagements");
    expect(project.service).not.toBeNull();
    expect(project.text).toMatch(/\d+ to \d+ (days|weeks)/);
  });

  it("declines a question whose subject the site only names in passing elsewhere", () => {
    // Each once in a passage about something else: the differential's patent in France,
    // Wi-Fi's laptop and its water; the capital, buying and sound are elsewhere or nowhere.
    for (const question of [
      "What is the capital of France?",
      "Which laptop should I buy?",
      "What is the speed of sound in water?",
    ]) {
      expect(index.find(question).known, question).toBe(false);
    }
    // A passage that dwells on the words it holds still answers without the rest.
    expect(best("How do I resolve a quarrel at work?").page).toBe(
      "/non-technical/workplace-harmony",
    );
    expect(best("Does relativity matter for satellite navigation?").page).toBe(
      "/science/gps-navigation",
    );
  });

  it("reads danger as safety, and what an abbreviation stands for as what it is", () => {
    expect(termsOf("dangerous unsafe")).toEqual(termsOf("safety"));
    expect(best("Is hydrogen dangerous in a car crash?").heading).toBe(
      "Is hydrogen on board safe?",
    );
    const dfmea = index.find("What does DFMEA stand for?");
    expect(dfmea.known && dfmea.summary && dfmea.service?.id).toBe("dfmea");
  });
});
