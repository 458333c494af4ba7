import type { Config } from "../config.ts";
import { networkFactor } from "../lib/address-limit.ts";
import { addressScope, networkOf } from "../lib/address-scope.ts";
import type { Passage } from "./passages.ts";

/**
 * Written answers (docs/product.md, "Chat with Me"; docs/decisions/042): an
 * OpenAI-compatible chat-completions endpoint (Ollama, llama.cpp's server,
 * vLLM, a hosted one) writes the answer, streamed, from the passages the
 * search found and the question, and is given nothing else: no earlier
 * question, no page, nothing about the reader. Whatever goes wrong (the
 * timeout, a refusal, a broken stream, an empty answer, too many answers
 * being written at once, the day's answers all asked for) ends in null, and
 * the assistant keeps its quoted answer. The text is only ever shown as text.
 */

type WriterOptions = {
  /** The chat-completions endpoint, or the API's base (`…/v1`), which gets `/chat/completions`. */
  url: string;
  model: string;
  apiKey?: string | undefined;
  /** The whole answer must be written within this. */
  timeoutMs: number;
  /** Answers asked of the model a day (UTC) on this instance; past it, the quotes stand. */
  perDay: number;
  log: { warn(object: unknown, message: string): void };
  /** Whose date is the day's: the site's clock. */
  clock?: () => Date;
};

/** Answers written at once; a question beyond them keeps its quoted answer. */
const concurrency = 4;

/**
 * One address may have this share of the day's written answers (at least one), its
 * network ten times as much: else one address, asking what the site answers 60 times a
 * minute, spent every reader's written answers for the day within the hour.
 */
const addressShare = 1 / 20;

/** Enough for the few sentences asked for; a model that runs on past this is stopped. */
const answerCharsMax = 2400;

export const writerInstructions = `You answer a reader's question on an engineer's website, using only the numbered passages from that website given with the question.
- Answer in two to five plain sentences, in British English, as the site would: clear, exact and friendly.
- Use nothing but the passages. If they do not answer the question, say that the site does not cover it; never guess and never add facts of your own.
- After each claim, cite the passage it comes from by its number in square brackets, such as [1] or [2].
- Plain text only: no Markdown, no headings, no lists, no links, no HTML.`;

/** The request the model is sent: the instructions, then the passages and the question. */
export function modelRequest(model: string, question: string, passages: Passage[]) {
  const numbered = passages
    .map((passage, at) => {
      const title = passage.heading ? `${passage.title}: ${passage.heading}` : passage.title;
      return `[${at + 1}] ${title}\n${passage.text}`;
    })
    .join("\n\n");
  return {
    model,
    stream: true,
    temperature: 0.2,
    max_tokens: 500,
    messages: [
      { role: "system", content: writerInstructions },
      { role: "user", content: `Passages:\n\n${numbered}\n\nQuestion: ${question}` },
    ],
  };
}

/**
 * Bytes of an answer read at most, streamed or whole: 500 tokens streamed are
 * some 150 kB. A server that sends on past this, or a line that never ends,
 * is hung up on rather than held in memory until the timeout.
 */
const answerBytesMax = 1_000_000;

async function* capped(body: ReadableStream<Uint8Array>) {
  let size = 0;
  for await (const bytes of body) {
    size += bytes.length;
    if (size > answerBytesMax) throw new Error("the answer ran too long");
    yield bytes;
  }
}

/**
 * Characters of one line of a streamed answer: a piece of it is a few hundred.
 * A longer line never ends; each chunk of it would be split again with all
 * before it, a megabyte read in small chunks costing seconds of the processor.
 */
const lineCharsMax = 65_536;

/** An answer not streamed: one JSON body. */
async function wholeAnswer(body: ReadableStream<Uint8Array>): Promise<Chunk> {
  const parts: Uint8Array[] = [];
  for await (const bytes of capped(body)) parts.push(bytes);
  return JSON.parse(Buffer.concat(parts).toString()) as Chunk;
}

/** Control characters the model may emit, other than line breaks, and the markers of Markdown's emphasis. */
const unwanted = /[^\P{Cc}\n]|\p{Cf}|\*\*|__/gu;

/**
 * A model's text with a blank line at most between paragraphs: a model that runs on into
 * line breaks (a small model's loop, to its 500 tokens) would stand a bubble thousands of
 * pixels tall in the Conversation. `breaks` is how many line breaks the text before ended
 * with (spaces between them count for none, and go after the second); it carries from
 * piece to piece of a stream.
 */
function withBlankLinesAtMostOne(piece: string, breaks: number): [string, number] {
  let kept = "";
  let run = breaks;
  for (const character of piece) {
    if (character === "\n") {
      run += 1;
      if (run > 2) continue;
    } else if (character.trim() === "") {
      if (run >= 2) continue;
    } else run = 0;
    kept += character;
  }
  return [kept, run];
}

type Chunk = { choices?: { delta?: { content?: unknown }; message?: { content?: unknown } }[] };
const contentOf = (chunk: Chunk) => {
  const choice = chunk.choices?.[0];
  const content = choice?.delta?.content ?? choice?.message?.content;
  return typeof content === "string" ? content : "";
};

export function createWriter({
  url,
  model,
  apiKey,
  timeoutMs,
  perDay,
  log,
  clock = () => new Date(),
}: WriterOptions) {
  const endpoint = /\/chat\/completions\/?$/.test(new URL(url).pathname)
    ? url
    : `${url.replace(/\/+$/, "")}/chat/completions`;
  let writing = 0;
  /**
   * The model's answers asked for today: each may cost the owner (a hosted model bills by
   * the token), and questions are free to ask from anywhere, 60 a minute from each address;
   * and how many each address and network had (`addressShare`).
   */
  let today = { day: "", asked: 0, by: new Map<string, number>() };
  const share = Math.max(1, Math.floor(perDay * addressShare));
  function withinDay(from: string | undefined): boolean {
    const day = clock().toISOString().slice(0, 10);
    if (today.day !== day) today = { day, asked: 0, by: new Map() };
    if (today.asked >= perDay) return false;
    // Counted only once an answer is asked for: at most two keys for each of the day's answers.
    const counts: [string, number][] =
      from === undefined
        ? []
        : [
            [addressScope(from), share],
            [`network ${networkOf(from)}`, share * networkFactor],
          ];
    if (counts.some(([key, most]) => (today.by.get(key) ?? 0) >= most)) return false;
    for (const [key] of counts) today.by.set(key, (today.by.get(key) ?? 0) + 1);
    today.asked += 1;
    if (today.asked === perDay) {
      log.warn({ perDay }, "written answers: the day's ASSISTANT_LLM_ANSWERS_PER_DAY reached");
    }
    return true;
  }

  /**
   * The server-sent events of a streamed answer, `data: {…}` lines up to
   * `data: [DONE]`, each piece of text handed to `onText` as it comes.
   */
  async function readStream(
    body: ReadableStream<Uint8Array>,
    onText: (text: string) => void,
  ): Promise<string> {
    const decoder = new TextDecoder();
    let pending = "";
    let text = "";
    let breaks = 0;
    for await (const bytes of capped(body)) {
      pending += decoder.decode(bytes, { stream: true });
      const lines = pending.split(/\r?\n/);
      pending = lines.pop() ?? "";
      if (pending.length > lineCharsMax) throw new Error("a line of the stream ran past 64 kB");
      for (const line of lines) {
        if (!line.startsWith("data:")) continue;
        const data = line.slice(5).trim();
        if (data === "[DONE]") return text;
        let chunk: Chunk;
        try {
          chunk = JSON.parse(data) as Chunk;
        } catch {
          throw new Error("the stream carried a line that is not JSON");
        }
        let piece = contentOf(chunk).replace(unwanted, "");
        // The answer starts at its first word, as the whole answer is trimmed.
        if (text === "") piece = piece.trimStart();
        [piece, breaks] = withBlankLinesAtMostOne(piece, breaks);
        if (piece === "") continue;
        text += piece;
        if (text.length > answerCharsMax) throw new Error("the answer ran too long");
        onText(piece);
      }
    }
    throw new Error("the stream ended before [DONE]");
  }

  return {
    model,

    /**
     * The answer to `question` written from `passages`, its pieces handed to
     * `onText` as the model writes them; null when it could not be written
     * in time, or at all, and the quoted answer should stand. `from`, the asker's IP
     * address, is counted against its share of the day's answers.
     */
    async write(
      question: string,
      passages: Passage[],
      {
        onText = () => {},
        signal,
        from,
      }: { onText?: (text: string) => void; signal?: AbortSignal; from?: string } = {},
    ): Promise<string | null> {
      if (writing >= concurrency || !withinDay(from)) return null;
      writing += 1;
      const timeout = AbortSignal.timeout(timeoutMs);
      try {
        const response = await fetch(endpoint, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "text/event-stream",
            ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
          },
          body: JSON.stringify(modelRequest(model, question, passages)),
          signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
          redirect: "error",
        });
        if (!response.ok || !response.body) {
          await response.body?.cancel();
          throw new Error(`the endpoint answered ${response.status}`);
        }
        // A server that does not stream answers with the whole completion at once.
        const text = (response.headers.get("content-type") ?? "").includes("application/json")
          ? withBlankLinesAtMostOne(
              contentOf(await wholeAnswer(response.body)).replace(unwanted, ""),
              0,
            )[0]
          : await readStream(response.body, onText);
        const answer = text.trim();
        if (answer === "") throw new Error("the answer was empty");
        if (answer.length > answerCharsMax) throw new Error("the answer ran too long");
        return answer;
      } catch (error) {
        if (signal?.aborted) return null;
        const reason = timeout.aborted
          ? `no answer within ${timeoutMs} ms`
          : (error as Error).message;
        log.warn({ endpoint: new URL(endpoint).origin, model }, `written answer failed: ${reason}`);
        return null;
      } finally {
        writing -= 1;
      }
    },
  };
}

export type Writer = ReturnType<typeof createWriter>;

/** The writer the settings name (ASSISTANT_LLM_URL and ASSISTANT_LLM_MODEL), or none. */
export const writerOf = (config: Config, log: WriterOptions["log"], clock?: () => Date) =>
  config.ASSISTANT_LLM_URL && config.ASSISTANT_LLM_MODEL
    ? createWriter({
        url: config.ASSISTANT_LLM_URL,
        model: config.ASSISTANT_LLM_MODEL,
        apiKey: config.ASSISTANT_LLM_API_KEY,
        timeoutMs: config.ASSISTANT_LLM_TIMEOUT_MS,
        perDay: config.ASSISTANT_LLM_ANSWERS_PER_DAY,
        log,
        clock,
      })
    : null;
