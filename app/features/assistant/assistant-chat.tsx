import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import type { AssistantResponse, AssistantSource } from "../../../contract/assistant.ts";
import { citedParts } from "../../../contract/citations.ts";
import { limits } from "../../../contract/limits.ts";
import { ApiError, api, formRefusal } from "../../lib/api-client.ts";
import { offerDraft } from "../../lib/enquiry-draft.ts";

type Exchange = {
  key: number;
  question: string;
  answer: AssistantResponse | null;
  /** A written answer as the model writes it, before the whole answer comes. */
  writing: { sources: AssistantSource[]; text: string } | null;
  problem: string | null;
  /** The reader's verdict on the answer, once given. */
  helpful: boolean | null;
};

type StreamEvent =
  | { event: "sources"; data: { sources: AssistantSource[] } }
  | { event: "text"; data: { text: string } }
  | { event: "answer"; data: AssistantResponse };

/**
 * Asks the API for the answer as server-sent events (`POST /api/assistant`
 * with `Accept: text/event-stream`), handing each event on as it arrives;
 * resolves with the whole answer, the last event. A refusal comes as JSON.
 */
async function askStreamed(
  body: { question: string; previous?: string; from?: string },
  onEvent: (event: StreamEvent) => void,
): Promise<AssistantResponse> {
  let response: Response;
  try {
    response = await fetch("/api/assistant", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError(0, "network_error", (error as Error).message);
  }
  if (!response.ok || !response.body) {
    throw ApiError.of(response, await response.json().catch(() => null));
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  let answer: AssistantResponse | null = null;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    pending += value;
    const frames = pending.split("\n\n");
    pending = frames.pop() ?? "";
    for (const frame of frames) {
      const field = (name: string) =>
        frame
          .split("\n")
          .find((line) => line.startsWith(`${name}: `))
          ?.slice(name.length + 2);
      const event = { event: field("event"), data: JSON.parse(field("data") ?? "null") };
      if (event.event === "answer") answer = event.data;
      onEvent(event as StreamEvent);
    }
  }
  if (!answer) throw new ApiError(0, "network_error", "the answer was cut off");
  return answer;
}

/** Where the forms post without JavaScript (server/assistant/pages.ts). */
const askPath = "/services/assistant";

/** Who answers, said plainly: the engineer's voice asks, the site's assistant answers. */
const intro =
  "Ask about anything written on this site: engines, electric and fuel-cell vehicles, AI for engineers, the science of everyday things, the stories, or how I can help with your project. The site's assistant answers from its pages and links to them; what it cannot find, ask me in an enquiry.";

/**
 * "Chat with Me", the site's own assistant (docs/product.md, "Chat with Me"),
 * in the area on /services and on each service's page when no third-party
 * chatbot is configured. In the HTML it is a plain form that posts to the
 * server, which answers on a page of its own; once hydrated (on first use) it
 * asks the API and keeps the conversation in a log. A `suggestion` (a service
 * page's question about its service) is a button that asks it, a form of its
 * own without JavaScript, whose press before hydration is held and asked here
 * once live (`data-replay`: it has nothing typed to lose, deferred-directive.ts);
 * `from` (that service's id) lets the answer page lead back to it. Answers are
 * text and the site's own links, never HTML.
 */
export function AssistantChat({ suggestion, from }: { suggestion?: string; from?: string }) {
  const [exchanges, setExchanges] = useState<Exchange[]>([]);
  const [asking, setAsking] = useState(false);
  const [canSpeak, setCanSpeak] = useState(false);
  const [speaking, setSpeaking] = useState<number | null>(null);
  const log = useRef<HTMLDivElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const id = useId();

  useEffect(() => {
    setCanSpeak("speechSynthesis" in window && typeof SpeechSynthesisUtterance === "function");
    return () => {
      if ("speechSynthesis" in window) window.speechSynthesis.cancel();
    };
  }, []);

  const count = exchanges.length;
  useEffect(() => {
    if (count === 0) return;
    const element = log.current;
    if (!element) return;
    const reduce = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    element.scrollTo({ top: element.scrollHeight, behavior: reduce ? "auto" : "smooth" });
  }, [count]);

  /** Asks the question of the form sent: the one typed, or the suggestion. */
  async function ask(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const input = field.current;
    const question = String(new FormData(form).get("question") ?? "").trim();
    if (asking || question === "") return;
    const previous = exchanges.findLast((exchange) => exchange.answer)?.question;
    const key = Date.now();
    setExchanges((all) => [
      ...all,
      { key, question, answer: null, writing: null, problem: null, helpful: null },
    ]);
    setAsking(true);
    const update = (change: (exchange: Exchange) => Partial<Exchange>) =>
      setExchanges((all) =>
        all.map((each) => (each.key === key ? { ...each, ...change(each) } : each)),
      );
    try {
      const answer = await askStreamed(
        { question, ...(previous ? { previous } : {}), ...(from ? { from } : {}) },
        ({ event, data }) => {
          if (event === "sources") update(() => ({ writing: { sources: data.sources, text: "" } }));
          else if (event === "text")
            update(({ writing }) => ({
              writing: writing ? { ...writing, text: writing.text + data.text } : null,
            }));
        },
      );
      update(() => ({ answer, writing: null }));
      if (input && form.contains(input)) input.value = "";
    } catch (error) {
      // The question's own message, without the field's name ("body.question: …").
      const { problems, problem: general } = formRefusal(
        error,
        ["question"],
        "The site did not answer. Check your connection and ask again.",
      );
      const problem = problems.question ?? general;
      setExchanges((all) => all.map((each) => (each.key === key ? { ...each, problem } : each)));
    } finally {
      setAsking(false);
      input?.focus();
    }
  }

  async function judge(exchange: Exchange, helpful: boolean) {
    if (!exchange.answer || exchange.helpful !== null) return;
    setExchanges((all) =>
      all.map((each) => (each.key === exchange.key ? { ...each, helpful } : each)),
    );
    await api("POST /assistant/feedback", {
      body: { ...exchange.answer.feedback, helpful },
    }).catch(() => undefined);
  }

  function readAloud(exchange: Exchange) {
    const synthesis = window.speechSynthesis;
    synthesis.cancel();
    if (speaking === exchange.key || !exchange.answer) {
      setSpeaking(null);
      return;
    }
    const answer = exchange.answer;
    const words = [
      answer.answer,
      answer.service ? `It includes: ${answer.service.includes.join("; ")}.` : "",
      answer.sources[0] ? `From ${answer.sources[0].title}.` : "",
    ].join(" ");
    const utterance = new SpeechSynthesisUtterance(words);
    utterance.lang = "en-GB";
    utterance.onend = () => setSpeaking((current) => (current === exchange.key ? null : current));
    setSpeaking(exchange.key);
    synthesis.speak(utterance);
  }

  return (
    <div className="flex h-[500px] max-h-[calc(100dvh-8.5rem)] flex-col overflow-hidden rounded-2xl border border-line bg-ink">
      <div
        ref={log}
        role="log"
        aria-label="Conversation"
        aria-live="polite"
        // The answer is announced whole, not piece by piece as it is written.
        aria-busy={asking}
        // A long unbroken word (a pasted address, a model's run-on) wraps rather than scrolling sideways.
        className="flex-1 space-y-4 overflow-y-auto p-5 text-sm leading-relaxed [overflow-wrap:anywhere]"
      >
        <p className="text-slate-300">{intro}</p>
        {suggestion && count === 0 ? (
          <form action={askPath} method="post" onSubmit={ask}>
            <input type="hidden" name="question" value={suggestion} />
            {from ? <input type="hidden" name="from" value={from} /> : null}
            <button type="submit" className="btn-secondary text-left" disabled={asking} data-replay>
              {suggestion}
            </button>
          </form>
        ) : null}
        {exchanges.map((exchange) => (
          <div key={exchange.key} className="space-y-2">
            <p className="ml-auto w-fit max-w-[85%] rounded-xl bg-accent/15 px-3 py-2 text-slate-100">
              <span className="sr-only">You asked: </span>
              {exchange.question}
            </p>
            {exchange.problem ? (
              <p role="alert" className="text-red-300">
                {exchange.problem}
              </p>
            ) : exchange.answer ? (
              <Answer
                exchange={exchange}
                canSpeak={canSpeak}
                speaking={speaking === exchange.key}
                onReadAloud={() => readAloud(exchange)}
                onJudge={(helpful) => void judge(exchange, helpful)}
              />
            ) : exchange.writing?.text ? (
              <p className="max-w-[92%] whitespace-pre-line rounded-xl bg-panel px-4 py-3 text-slate-200">
                <Cited text={exchange.writing.text} sources={exchange.writing.sources} />
              </p>
            ) : (
              <p className="text-slate-400">
                {exchange.writing
                  ? "Writing an answer from the site…"
                  : "Looking through the site…"}
              </p>
            )}
          </div>
        ))}
      </div>
      <form
        action={askPath}
        method="post"
        onSubmit={ask}
        className="flex gap-2 border-t border-line bg-panel p-3"
      >
        {from ? <input type="hidden" name="from" value={from} /> : null}
        <label htmlFor={`${id}-question`} className="sr-only">
          Ask a question
        </label>
        <input
          ref={field}
          id={`${id}-question`}
          name="question"
          type="text"
          required
          minLength={limits.questionMin}
          maxLength={limits.questionMax}
          autoComplete="off"
          placeholder="e.g. Why does a pressure cooker whistle?"
          className="field min-w-0 flex-1"
        />
        <button type="submit" className="btn-primary" disabled={asking}>
          Ask
        </button>
      </form>
    </div>
  );
}

function Answer({
  exchange,
  canSpeak,
  speaking,
  onReadAloud,
  onJudge,
}: {
  exchange: Exchange;
  canSpeak: boolean;
  speaking: boolean;
  onReadAloud(): void;
  onJudge(helpful: boolean): void;
}) {
  const answer = exchange.answer as AssistantResponse;
  const [first, ...further] = answer.sources;
  const small = "rounded-lg border border-line px-2 py-1 text-xs text-slate-300 hover:bg-white/5";
  return (
    <div className="max-w-[92%] space-y-2 rounded-xl bg-panel px-4 py-3 text-slate-200">
      {answer.service ? (
        <p className="font-semibold text-slate-100">{answer.service.title}</p>
      ) : null}
      {answer.written ? (
        <p className="whitespace-pre-line text-slate-100">
          <Cited text={answer.answer} sources={answer.sources} />
        </p>
      ) : answer.known && !answer.service ? (
        <blockquote className="border-l-2 border-accent pl-3 text-slate-100">
          {answer.answer}
        </blockquote>
      ) : (
        <p>{answer.answer}</p>
      )}
      {answer.service ? (
        <ul className="list-disc space-y-1 pl-5 text-slate-300">
          {answer.service.includes.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      ) : null}
      {first ? (
        <p className="text-slate-400">
          From{" "}
          <a href={first.url} className="font-semibold text-accent underline">
            {first.title}
          </a>
        </p>
      ) : null}
      {further.length > 0 ? (
        <p className="text-slate-400">
          See also{" "}
          {further.map((source, at) => (
            <span key={source.url}>
              {at > 0 ? "; " : ""}
              <a href={source.url} className="text-accent underline">
                {source.title}
              </a>
            </span>
          ))}
        </p>
      ) : null}
      {answer.actions.length > 0 ? (
        <p className="flex flex-wrap gap-3 pt-1">
          {answer.actions.map((action) => (
            <a
              key={action.kind}
              href={action.url}
              className="font-semibold text-accent underline"
              // The question goes to the enquiry form in the browser, never in the address.
              onClick={
                action.kind === "enquiry"
                  ? () => offerDraft(exchange.question, action.url)
                  : undefined
              }
            >
              {action.label}
            </a>
          ))}
        </p>
      ) : null}
      <div className="flex flex-wrap items-center gap-2 pt-1">
        {canSpeak ? (
          <button type="button" className={small} aria-pressed={speaking} onClick={onReadAloud}>
            Read aloud
          </button>
        ) : null}
        {[true, false].map((helpful) => (
          <button
            key={String(helpful)}
            type="button"
            className={small}
            aria-pressed={exchange.helpful === helpful}
            // Not `disabled`: the button pressed keeps the focus (a second press does nothing).
            aria-disabled={exchange.helpful !== null}
            onClick={() => onJudge(helpful)}
          >
            {helpful ? "Helpful" : "Not helpful"}
          </button>
        ))}
        {exchange.helpful !== null ? (
          <span className="text-xs text-slate-400">Thank you: the engineer will see it.</span>
        ) : null}
      </div>
    </div>
  );
}

/** A written answer as text, each citation ("[1]") a link to its source. */
function Cited({ text, sources }: { text: string; sources: AssistantSource[] }) {
  let cited = 0;
  return citedParts(text, sources.length).map((part) => {
    if ("text" in part) return part.text;
    const source = sources[part.source - 1] as AssistantSource;
    cited += 1;
    return (
      <a
        key={`cite-${cited}`}
        href={source.url}
        aria-label={`[${part.source}] ${source.title}`}
        className="text-accent underline"
      >
        [{part.source}]
      </a>
    );
  });
}
