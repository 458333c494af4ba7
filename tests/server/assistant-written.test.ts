import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import { assistantResponseSchema, assistantStreamEvents } from "../../contract/assistant.ts";
import { loadIndex } from "../../server/assistant/retrieval.ts";
import { createWriter, modelRequest, writerInstructions } from "../../server/assistant/writer.ts";
import { type ModelStub, startModelStub } from "../support/model-stub.ts";
import { waitFor } from "../support/wait-for.ts";
import { testIndexJson } from "./support/assistant-index.ts";
import { movableClock } from "./support/clock.ts";
import { dom } from "./support/html.ts";
import { runSql } from "./support/sql.ts";
import { backends, json, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * Written answers (docs/product.md, "Chat with Me"): with ASSISTANT_LLM_URL
 * and ASSISTANT_LLM_MODEL set, a model on an OpenAI-compatible endpoint (here
 * a stub on loopback speaking that protocol) writes the answer from the
 * passages found and the question, and is sent nothing else; the answer comes
 * as JSON, or streamed as server-sent events; past the timeout, or on any
 * error, the quoted answer stands.
 */

const indexJson = testIndexJson();
const cotton = "What temperature should I iron cotton at?";
const written = [
  "Cotton takes a hot iron, ",
  "about 180–200°C [1], ",
  "while silk wants far less [1][2].",
];
const timeoutMs = 2500;

type Frame = { event: string; data: unknown };
function frames(body: string): Frame[] {
  return body
    .split("\n\n")
    .filter((frame) => frame.trim() !== "")
    .map((frame) => {
      const lines = frame.split("\n");
      const field = (name: string) =>
        lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2) ?? "";
      return { event: field("event"), data: JSON.parse(field("data")) };
    });
}

describe.each(backends)("written answers on %s", (backend) => {
  let t: TestApp;
  let model: ModelStub;

  const ask = (question: string, headers: Record<string, string> = {}, previous?: string) =>
    t.app.inject({
      method: "POST",
      url: "/api/assistant",
      remoteAddress: "10.9.0.1",
      headers: {
        origin: siteUrl,
        "content-type": "application/json",
        "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0",
        ...headers,
      },
      payload: JSON.stringify({ question, ...(previous ? { previous } : {}) }),
    });
  const streamed = (question: string) => ask(question, { accept: "text/event-stream" });

  beforeAll(async () => {
    model = await startModelStub();
    t = await startTestApp(backend, {
      assistantIndex: () => indexJson,
      env: {
        ASSISTANT_LLM_URL: model.url,
        ASSISTANT_LLM_MODEL: "site-writer:8b",
        ASSISTANT_LLM_API_KEY: "stub-key-0123456789",
        ASSISTANT_LLM_TIMEOUT_MS: String(timeoutMs),
        ASSISTANT_QUESTIONS_PER_MINUTE: "1000",
        ASSISTANT_QUESTIONS_PER_MINUTE_PER_IP: "1000",
        // Every question here comes from one address: its share of the day's answers is ample.
        ASSISTANT_LLM_ANSWERS_PER_DAY: "100000",
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await model?.close();
  });
  beforeEach(() => model.behave({ write: written }));

  it("sends the model no e-mail address or phone number a reader wrote in the question", async () => {
    const before = model.calls.length;
    const asked = `${cotton} Mail ana@example.org, or call +44 7700 900123.`;
    const answer = json(await ask(asked), assistantResponseSchema);
    expect(answer).toMatchObject({ known: true, written: true });
    const call = model.calls.at(-1) as (typeof model.calls)[number];
    expect(model.calls.length).toBe(before + 1);
    const { messages } = call.body as { messages: { role: string; content: string }[] };
    expect(messages[1]?.content).toMatch(
      /\n\nQuestion: .+ Mail \[e-mail address\], or call \[phone number\]\.$/,
    );
    expect(JSON.stringify(call.body)).not.toMatch(/example\.org|7700/);
  });

  it("answers with what the model wrote, and sends the model only the passages found and the question", async () => {
    const before = model.calls.length;
    const response = await ask(
      cotton,
      { cookie: "ewe_visitor=someone; ewe_owner=else" },
      "A previous question the model must not see",
    );
    expect(response.statusCode).toBe(200);
    const answer = json(response, assistantResponseSchema);
    expect(answer).toMatchObject({ known: true, written: true, answer: written.join("").trim() });
    expect(answer.sources[0]?.url).toBe("/science/ironing#pressing-temperatures");
    const row = (
      await runSql(t, "select written from assistant_questions where id = ?", [answer.feedback.id])
    )[0];
    expect(Number(row?.written)).toBe(1);

    expect(model.calls.length).toBe(before + 1);
    const call = model.calls.at(-1) as (typeof model.calls)[number];
    expect(call.path).toBe("/v1/chat/completions");
    expect(call.headers.authorization).toBe("Bearer stub-key-0123456789");
    expect(call.headers.cookie).toBeUndefined();
    // Exactly the instructions, the passages the answer's sources came from, and the question.
    const finding = loadIndex(indexJson).find(cotton);
    if (!finding.known) throw new Error("the cotton question has an answer on the site");
    expect(call.body).toEqual(modelRequest("site-writer:8b", cotton, finding.sources));
    const { messages } = call.body as { messages: { role: string; content: string }[] };
    const [system, user] = messages;
    expect(system).toEqual({ role: "system", content: writerInstructions });
    expect(user?.content).toBe(
      `Passages:\n\n${finding.sources
        .map(
          (p, at) => `[${at + 1}] ${p.heading ? `${p.title}: ${p.heading}` : p.title}\n${p.text}`,
        )
        .join("\n\n")}\n\nQuestion: ${cotton}`,
    );
    const sent = JSON.stringify(call.body);
    for (const secret of ["previous question", "10.9.0.1", "Firefox", "ewe_visitor"]) {
      expect(sent).not.toContain(secret);
    }
  });

  it("streams the sources, then each piece as the model writes it, then the whole answer", async () => {
    const response = await streamed(cotton);
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^text\/event-stream/);
    const events = frames(response.body);
    expect(events.map((e) => e.event)).toEqual(["sources", "text", "text", "text", "answer"]);
    const sources = assistantStreamEvents.sources.parse(events[0]?.data).sources;
    expect(sources[0]?.url).toBe("/science/ironing#pressing-temperatures");
    const pieces = events
      .filter((e) => e.event === "text")
      .map((e) => assistantStreamEvents.text.parse(e.data).text);
    expect(pieces).toEqual(written);
    const answer = assistantStreamEvents.answer.parse(events.at(-1)?.data);
    expect(answer).toMatchObject({ written: true, answer: written.join("").trim(), sources });
  });

  it("falls back to the quoted answer when the model takes longer than the timeout", async () => {
    model.behave({ hangAfter: "Cotton is ironed " });
    const started = Date.now();
    // Asked whole and streamed at once: both wait out the same timeout, side by side.
    const [whole, stream] = await Promise.all([ask(cotton), streamed(cotton)]);
    const answer = json(whole, assistantResponseSchema);
    expect(answer).toMatchObject({ known: true, written: false });
    expect(answer.answer).toMatch(/cotton 180–200°C/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(timeoutMs - 50);

    // Streamed: the piece written before the timeout, then the quote, which replaces it.
    const events = frames(stream.body);
    expect(events.map((e) => e.event)).toEqual(["sources", "text", "answer"]);
    const quoted = assistantStreamEvents.answer.parse(events.at(-1)?.data);
    expect(quoted.written).toBe(false);
    expect(quoted.answer).toMatch(/cotton 180–200°C/);
    const row = (
      await runSql(t, "select written from assistant_questions where id = ?", [quoted.feedback.id])
    )[0];
    expect(Number(row?.written)).toBe(0);
  });

  it("falls back to the quoted answer when the model's server fails or breaks off", async () => {
    for (const behaviour of [{ status: 500 }, { status: 401 }, { cutAfter: ["Cotton "] }]) {
      model.behave(behaviour);
      const answer = json(await ask(cotton), assistantResponseSchema);
      expect(answer, JSON.stringify(behaviour)).toMatchObject({ known: true, written: false });
      expect(answer.answer).toMatch(/cotton 180–200°C/);
    }
  });

  it("stops reading a model's answer that never ends at 1 MB, streamed or whole, well within the timeout", async () => {
    for (const type of ["text/event-stream", "application/json"]) {
      model.behave({ flood: type });
      const started = Date.now();
      const answer = json(await ask(cotton), assistantResponseSchema);
      expect(answer, type).toMatchObject({ known: true, written: false });
      expect(answer.answer).toMatch(/cotton 180–200°C/);
      // Hung up on once past 1 MB, not read until the timeout.
      await waitFor(async () => model.flooded.closed, { what: `the ${type} flood hung up on` });
      expect(model.flooded.sent, type).toBeLessThan(3_000_000);
      expect(Date.now() - started, type).toBeLessThan(timeoutMs);
    }
  });

  it("asks the model nothing for a question the site cannot answer, or one about a service", async () => {
    const before = model.calls.length;
    const declined = json(await ask("What is the capital of Australia?"), assistantResponseSchema);
    expect(declined).toMatchObject({ known: false, written: false });
    const service = json(
      await ask("Can you review our tolerance stack-up?"),
      assistantResponseSchema,
    );
    expect(service).toMatchObject({ known: true, written: false });
    expect(service.service?.id).toBe("tolerance-stackups");
    // Streamed, the answer comes alone.
    expect(
      frames((await streamed("Who won the 2018 world cup?")).body).map((e) => e.event),
    ).toEqual(["answer"]);
    expect(model.calls.length).toBe(before);
  });

  // Once, on SQLite: refused by the schema before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("refuses a bad question with JSON, streamed or not, and asks the model nothing", async () => {
        const before = model.calls.length;
        const response = await streamed("x");
        expect(response.statusCode).toBe(400);
        expect(json(response, errorResponseSchema).error.message).toMatch(/at least 2 characters/);
        expect(model.calls.length).toBe(before);
      });
    });
  }

  it("shows a hostile model's answer as text, fetching nothing and linking nowhere but the site", async () => {
    const hostile = [
      '<script>alert("x")</script><img src=https://tracker.example/p.gif> ',
      "![pixel](https://tracker.example/p.gif) [the source](javascript:alert(1)) ",
      "[1](https://evil.example/science/ironing) ",
      "\u202eevil.exe\u202c, \u2066hidden\u2069 and a\u200bzero width. ",
      "Cotton takes 180–200°C [1].",
    ];
    model.behave({ write: hostile });
    const answer = json(await ask(cotton), assistantResponseSchema);
    expect(answer.written).toBe(true);
    // Bidi and invisible characters are dropped: what the reader sees is what it says.
    expect(answer.answer).not.toMatch(/[\u200b-\u200f\u202a-\u202e\u2066-\u2069]/);
    const events = frames((await streamed(cotton)).body);
    for (const { data } of events) {
      expect(JSON.stringify(data)).not.toMatch(/\\u202e|\u202e|\u2066/);
    }
    const response = await t.app.inject({
      method: "POST",
      url: "/services/assistant",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ question: cotton }).toString(),
    });
    expect(response.statusCode).toBe(200);
    const page = dom(response.body);
    expect(
      page.querySelectorAll("script, img, iframe, object, embed, link[rel=preload]"),
    ).toHaveLength(0);
    for (const element of page.querySelectorAll("[href], [src], [action]")) {
      const address = ["href", "src", "action"]
        .map((name) => element.getAttribute(name))
        .find(Boolean);
      expect(address, element.outerHTML).toMatch(/^\/(?!\/)/);
    }
    expect(page.body.textContent).toContain("![pixel](https://tracker.example/p.gif)");
    expect(page.body.textContent).toContain('<script>alert("x")</script>');
  });

  it("falls back to the quoted answer on a redirect, a line or a body that is not JSON, and no answer", async () => {
    const sse = { "content-type": "text/event-stream" };
    const behaviours = [
      { status: 307, headers: { location: `${model.url}/chat/completions` }, body: "" },
      { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data" }, body: "" },
      { status: 200, headers: sse, body: "data: {not json\n\ndata: [DONE]\n\n" },
      { status: 200, headers: sse, body: "" },
      { status: 200, headers: { "content-type": "application/json" }, body: '{"choices": [' },
      { status: 200, headers: { "content-type": "application/json" }, body: "{}" },
      { status: 200, headers: { "content-type": "text/html" }, body: "<h1>Welcome to nginx</h1>" },
    ];
    for (const raw of behaviours) {
      model.behave({ raw });
      const before = model.calls.length;
      for (const response of [await ask(cotton), await streamed(cotton)]) {
        expect(response.statusCode, JSON.stringify(raw)).toBe(200);
      }
      const answer = json(await ask(cotton), assistantResponseSchema);
      expect(answer, JSON.stringify(raw)).toMatchObject({ known: true, written: false });
      expect(answer.answer).toMatch(/cotton 180–200°C/);
      // A redirect is not followed.
      expect(model.calls.length - before, JSON.stringify(raw)).toBe(3);
    }
  });

  it("shows a written answer without JavaScript as text, its citations links to its sources", async () => {
    model.behave({ write: ["Cotton <b>takes</b> 180–200°C [1]; see [7]."] });
    const response = await t.app.inject({
      method: "POST",
      url: "/services/assistant",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ question: cotton }).toString(),
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain("<b>takes</b>");
    const page = dom(response.body);
    const cite = [...page.querySelectorAll("a")].find((a) => a.textContent === "[1]");
    expect(cite?.getAttribute("href")).toBe("/science/ironing#pressing-temperatures");
    // A number that names no source stays text.
    expect(page.body.textContent).toContain("see [7].");
  });
});

/** A site on SQLite whose model writes answers; its day's count read on `clock`, which the test sets. */
async function writingSite(env: Record<string, string>, clock = movableClock()) {
  const model = await startModelStub();
  const t = await startTestApp("sqlite", {
    assistantIndex: () => indexJson,
    env: { ASSISTANT_LLM_URL: model.url, ASSISTANT_LLM_MODEL: "site-writer:8b", ...env },
    clock: clock.now,
  });
  return { t, model };
}

/** The answer of `t` to the cotton question, asked from `remoteAddress`. */
async function askCotton(t: TestApp, remoteAddress: string) {
  const response = await t.app.inject({
    method: "POST",
    url: "/api/assistant",
    remoteAddress,
    headers: { origin: siteUrl, "content-type": "application/json" },
    payload: JSON.stringify({ question: cotton }),
  });
  expect(response.statusCode).toBe(200);
  return json(response, assistantResponseSchema);
}

describe("a model's streamed line that never ends", () => {
  let model: ModelStub;
  beforeAll(async () => {
    model = await startModelStub();
  });
  afterAll(() => model?.close());

  it("is hung up on past 64 kB, however small its pieces, not read to the megabyte, and the owner told why", async () => {
    const reasons: string[] = [];
    const writer = createWriter({
      url: model.url,
      model: "site-writer:8b",
      timeoutMs: 60_000,
      perDay: 10,
      log: { warn: (_, message) => reasons.push(message) },
    });
    // A kilobyte a turn: each piece split again with the whole line before it cost seconds.
    model.behave({ trickle: 1024 });
    expect(await writer.write(cotton, [])).toBeNull();
    await waitFor(async () => model.flooded.closed, { what: "the endless line hung up on" });
    expect(reasons).toEqual(["written answer failed: a line of the stream ran past 64 kB"]);
    expect(model.flooded.sent).toBeLessThan(512 * 1024);
  });
});

describe("written answers a day", () => {
  let t: TestApp;
  let model: ModelStub;
  // A minute before a UTC midnight, whatever the hour the test runs at.
  const clock = movableClock();
  clock.set(new Date("2027-01-01T23:59:00Z"));
  beforeAll(async () => {
    ({ t, model } = await writingSite({ ASSISTANT_LLM_ANSWERS_PER_DAY: "2" }, clock));
    model.behave({ write: written });
  });
  afterAll(async () => {
    await t?.close();
    await model?.close();
  });

  it("asks the model for ASSISTANT_LLM_ANSWERS_PER_DAY answers, then quotes, so a flood of questions cannot run up a hosted model's bill", async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await askCotton(t, `10.9.1.${i + 1}`));
    expect(answers.map((answer) => answer.written)).toEqual([true, true, false, false]);
    expect(answers[3]?.answer).toContain("°C");
    expect(model.calls).toHaveLength(2);
    // The next UTC day has its own answers, by the site's clock.
    clock.set(new Date("2027-01-02T00:00:30Z"));
    expect((await askCotton(t, "10.9.1.5")).written).toBe(true);
    expect(model.calls).toHaveLength(3);
  });
});

describe("written answers a day from one address", () => {
  let t: TestApp;
  let model: ModelStub;
  beforeAll(async () => {
    // A twentieth of 40 a day: 2 for an address, 20 for a network; all asked at noon, so
    // no midnight falls between them.
    const noon = movableClock();
    noon.set(new Date("2027-01-01T12:00:00Z"));
    ({ t, model } = await writingSite({ ASSISTANT_LLM_ANSWERS_PER_DAY: "40" }, noon));
    model.behave({ write: written });
  });
  afterAll(async () => {
    await t?.close();
    await model?.close();
  });

  it("are a twentieth of the day's, ten times that from a network, so that no one address spends every reader's", async () => {
    const writtenFor = async (addresses: string[]) => {
      const answers = [];
      for (const address of addresses) answers.push(await askCotton(t, address));
      // Past its share, the quote: the same page's answer, never a refusal.
      for (const answer of answers.filter((each) => !each.written)) {
        expect(answer.answer).toContain("°C");
      }
      return answers.map((answer) => answer.written);
    };
    expect(await writtenFor(["10.9.2.1", "10.9.2.1", "10.9.2.1"])).toEqual([true, true, false]);
    expect(await writtenFor(["10.9.2.2"])).toEqual([true]);
    // An IPv6 address by its /64, and its /48 by ten addresses' share.
    const inNetwork = (n: number) => `2001:db8:7:${n.toString(16)}::1`;
    expect(await writtenFor([inNetwork(1), `${inNetwork(1)}0`, inNetwork(1)])).toEqual([
      true,
      true,
      false,
    ]);
    const network = Array.from({ length: 9 }, (_, at) => [inNetwork(at + 2), inNetwork(at + 2)]);
    expect(await writtenFor(network.flat())).toEqual(Array(18).fill(true));
    expect(await writtenFor([inNetwork(99), "2001:db8:8::1"])).toEqual([false, true]);
    expect(model.calls).toHaveLength(2 + 1 + 2 + 18 + 1);
  });
});

describe("a reader who leaves", () => {
  let t: TestApp;
  let model: ModelStub;
  let base: string;
  beforeAll(async () => {
    // Far past the test: only the reader's leaving can end the model's answer.
    ({ t, model } = await writingSite({ ASSISTANT_LLM_TIMEOUT_MS: "120000" }));
    base = await t.app.listen({ host: "127.0.0.1", port: 0 });
    model.behave({ hangAfter: "Cotton takes " });
  });
  afterAll(async () => {
    await t?.close();
    await model?.close();
  });

  it.each([
    ["as JSON", "/api/assistant", "application/json", JSON.stringify({ question: cotton })],
    [
      "without JavaScript",
      "/services/assistant",
      "application/x-www-form-urlencoded",
      new URLSearchParams({ question: cotton }).toString(),
    ],
  ])("stops the model writing when the reader asking %s leaves", async (_, url, type, body) => {
    const before = { calls: model.calls.length, left: model.hung.left };
    const reader = new AbortController();
    const asked = fetch(`${base}${url}`, {
      method: "POST",
      headers: { origin: siteUrl, "content-type": type },
      body,
      signal: reader.signal,
    }).catch((error: unknown) => error);
    await waitFor(async () => model.calls.length > before.calls, { what: "the model asked" });
    reader.abort();
    expect(await asked).toBeInstanceOf(Error);
    await waitFor(async () => model.hung.left > before.left, {
      what: "the model's answer hung up on",
    });
  });
});
