import { createHmac } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type {
  AssistantAction,
  AssistantResponse,
  AssistantSource,
} from "../../contract/assistant.ts";
import type { Store } from "../db/store.ts";
import { sameSecret } from "../lib/tokens.ts";
import type { Passage, ServiceRef } from "./passages.ts";
import {
  createQuestionsRepository,
  type QuestionsRepository,
  withoutContacts,
} from "./repository.ts";
import { type AssistantIndex, loadIndex } from "./retrieval.ts";
import type { Writer } from "./writer.ts";

/**
 * The site's own assistant (docs/product.md, "Chat with Me"): answers a
 * question from the passages the build indexed, records the question without
 * who asked it, takes the reader's verdict on the answer, and deletes
 * questions after the retention period. Every link in an answer is built here,
 * from the site's own paths; the reader's words travel only as text, never
 * in a link (an address is kept in the browser's history, access logs and the
 * Referer).
 */

const notFoundAnswer =
  "I could not find that on this site. The engineer can answer it personally: send an enquiry and you will have a reply by mail.";
/** How to reach the engineer: the enquiry form, and a call where the site takes bookings. */
const contactAnswer = (calls: boolean) =>
  `The engineer answers every enquiry personally: send one with the form and you will have a reply by mail${calls ? ", or book a call at a time that suits you" : ""}.`;

/** A first call as the owner sets it in the Bookings hours: its length, and whether it is free. */
const firstCallAnswer = ({ callMinutes, firstCallFree }: FirstCall) =>
  `A first call is ${callMinutes} minutes${firstCallFree ? " and free" : "; it is not free of charge"}. Book it at a time that suits you, or send an enquiry and you will have a reply by mail.`;
type FirstCall = { callMinutes: number; firstCallFree: boolean };

/** Why a question was refused 429: its address's minute, or its day, is spent. */
export const tooManyQuestions = (retryAfterSeconds: number, from = "your address") =>
  retryAfterSeconds > 60
    ? from === "your network"
      ? "As many questions as one network may ask in a day have been asked from your network; ask again tomorrow."
      : "You have asked as many questions as one address may in a day; ask again tomorrow."
    : from === "your network"
      ? "Many questions have been asked from your network in a short time; wait a minute, then ask again."
      : "You have asked many questions in a short time; wait a minute, then ask again.";

/** Who asked, as far as readership may count it (its address and headers), and forgets. */
type Asker = { ip: string; headers: IncomingHttpHeaders };

/** How a written answer reaches a reader who takes it as it is written. */
type Streaming = {
  /** The answer's sources, once found, before the model writes. */
  onSources?: (sources: AssistantSource[]) => void;
  /** Each piece of the written answer as the model writes it. */
  onText?: (text: string) => void;
  /** Aborted when the reader leaves: the model stops writing. */
  signal?: AbortSignal;
};

/**
 * Aborted when the reader's connection closes before the answer has gone:
 * the model stops writing (JSON, server-sent events or the page without
 * JavaScript alike), so a reader who leaves runs up no hosted model's bill.
 */
export function whileReaderWaits(response: ServerResponse): AbortController {
  const left = new AbortController();
  response.on("close", () => {
    if (!response.writableFinished) left.abort();
  });
  return left;
}

export function createAssistant({
  store,
  indexJson,
  cookieSecret,
  retentionDays,
  bookings,
  firstCall,
  services,
  writer = null,
  attribute,
  clock = () => new Date(),
}: {
  store: Store;
  /** The built index (server/assistant/index-file.ts), read at the first question. */
  indexJson: () => string | null;
  /** The site's services, whose pages a question asked on one leads back to. */
  services: readonly { id: string; title: string }[];
  cookieSecret: string;
  retentionDays: number;
  /** Whether the site has a booking page (/book), for "Book a call". */
  bookings: () => boolean;
  /** The first call's terms (the Bookings hours), for a question about it. */
  firstCall?: () => Promise<FirstCall>;
  /** The model that writes answers from the passages (ASSISTANT_LLM_URL), when there is one. */
  writer?: Writer | null;
  /** Readership's attribution of the question to the visit that led to it (server/readers/). */
  attribute?: (asker: Asker, kind: "question") => Promise<void>;
  clock?: () => Date;
}) {
  const repository: QuestionsRepository = createQuestionsRepository(store, clock);
  const feedbackKey = createHmac("sha256", cookieSecret).update("assistant feedback").digest();
  const feedbackToken = (id: number) =>
    createHmac("sha256", feedbackKey).update(String(id)).digest("base64url").slice(0, 22);

  let index: AssistantIndex | null | undefined;
  /** The index, read at the first question; null when the build wrote none. */
  function currentIndex(): AssistantIndex | null {
    if (index === undefined) {
      const json = indexJson();
      index = json === null ? null : loadIndex(json);
    }
    return index;
  }

  const sourceOf = (passage: Passage) => ({
    title: passage.heading ? `${passage.title} › ${passage.heading}` : passage.title,
    url: passage.url,
  });

  /**
   * What the answer offers. The enquiry link names no question: the island hands the
   * question to the form in the browser, the page without JavaScript posts it.
   */
  function actionsFor(service: Pick<ServiceRef, "id"> | null): AssistantAction[] {
    const actions: AssistantAction[] = [
      {
        kind: "enquiry",
        label: "Send an enquiry",
        url: service ? `/services/ask/${service.id}#send-enquiry` : "/services#send-enquiry",
      },
    ];
    if (bookings()) {
      actions.push({
        kind: "booking",
        label: "Book a call",
        url: service ? `/book?service=${service.id}` : "/book",
      });
    }
    return actions;
  }

  return {
    repository,
    retentionDays,

    /** Whether the build wrote an index to answer from. */
    ready: () => currentIndex() !== null,

    /** The title of the service with this id, or null when the site offers none such. */
    serviceTitle: (id: string): string | null =>
      services.find((service) => service.id === id)?.title ?? null,

    /** Whether a model writes the answers. */
    writes: writer !== null,

    /**
     * Finds the answer, records the question (the one place a question is
     * recorded, and counted for readership) and answers with the quote, or,
     * when a model writes answers, with what it wrote from the passages
     * found, handed on as it is written. Null when the site was built
     * without an index.
     */
    async ask(
      question: string,
      previous: string | undefined,
      asker: Asker,
      streaming: Streaming = {},
      /** The id of the service page it was asked on: a question declined leads back to it. */
      from?: string,
    ): Promise<AssistantResponse | null> {
      const found = currentIndex();
      if (!found) return null;
      const searched = (text: string) => withoutContacts(text, { marked: false });
      const finding = found.find(searched(question), previous && searched(previous));
      const service = finding.known ? finding.service : null;
      const id = await repository.record({
        question,
        known: finding.known,
        page: finding.known ? (finding.sources[0]?.url ?? null) : null,
        service: service?.id ?? null,
        written: false,
      });
      await attribute?.(asker, "question");
      const feedback = { id, token: feedbackToken(id) };
      if (!finding.known) {
        const calls = bookings();
        return {
          answer:
            finding.firstCall && calls && firstCall
              ? firstCallAnswer(await firstCall())
              : finding.contact
                ? contactAnswer(calls)
                : notFoundAnswer,
          sources: [],
          known: false,
          written: false,
          service: null,
          actions: actionsFor(services.find((each) => each.id === from) ?? null),
          feedback,
        };
      }
      // A service answered with what it is, not with the part of its page that matched
      // ("DFMEA › Can you write the DFMEA without our team?"), names its page by its title.
      const summary = service && finding.summary ? service : null;
      const sources = finding.sources.map((passage, at) =>
        summary && at === 0 ? { title: summary.title, url: passage.url } : sourceOf(passage),
      );
      const quoted: AssistantResponse = {
        answer: summary ? summary.summary : finding.quote,
        sources,
        known: true,
        written: false,
        service: service
          ? { id: service.id, title: service.title, includes: service.includes }
          : null,
        actions: service ? actionsFor(service) : [],
        feedback,
      };
      // A service is answered with what it is; the model writes only from the writing.
      if (!writer || service) return quoted;
      streaming.onSources?.(sources);
      const written = await writer.write(withoutContacts(question), finding.sources, {
        ...(streaming.onText ? { onText: streaming.onText } : {}),
        ...(streaming.signal ? { signal: streaming.signal } : {}),
        from: asker.ip,
      });
      if (written === null) return quoted;
      await repository.markWritten(id);
      return { ...quoted, answer: written, written: true };
    },

    /** The reader's thumbs up or down, once: "refused" for a token that is not the question's. */
    async feedback(id: number, token: string, helpful: boolean) {
      if (!sameSecret(token, feedbackToken(id))) return "refused";
      return repository.feedback(id, helpful);
    },
  };
}

export type Assistant = ReturnType<typeof createAssistant>;

/** The build's index file, or null when there is none. */
export const readIndexFile = (file: string) => () =>
  existsSync(file) ? readFileSync(file, "utf8") : null;
