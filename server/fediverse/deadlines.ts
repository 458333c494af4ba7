import { AsyncLocalStorage } from "node:async_hooks";
import type { Log } from "../lib/log.ts";
import { AddressRefused, type RemoteFetch, responseOf } from "../lib/safe-fetch.ts";
import { dayMs } from "../lib/time.ts";

export class RunPastDeadline extends Error {}

/** The longest wait before a failed message is tried again. */
export const longestWaitMs = 60 * 60_000;
/** How long after its first failure a message still failing is given up. */
export const giveUpAfterMs = 3 * dayMs;

/**
 * Fedify's own retries of a delivery or of an activity received, on the queue's rule: after ever
 * longer waits (1 s, 2, 4, … at most an hour) for three days since it was first queued, instead
 * of Fedify's ten tries within about half an hour. The wait in ms; null: given up. Fedify takes
 * it as a Temporal duration, made where Fedify is loaded (federation.ts): the polyfill's module
 * reads ICU's calendar data as it loads, which a start leaves to the first delivery.
 */
export const retryAfter = (elapsedMs: number, attempts: number) =>
  elapsedMs >= giveUpAfterMs ? null : Math.min(longestWaitMs, 1000 * 2 ** attempts);

/** A delivery's post cut at its deadline, or refused: its message, shown on Health, names no one. */
class NoAnswer extends Error {}

/**
 * What Health says of a post or a fetch that got no answer: cut at its deadline, not connected,
 * answered with an error status (Fedify's FetchError with the `response`, of a document an
 * activity received names), or (a FetchError without a cause) redirected back to itself or more
 * than 20 times; else undefined. Never the error's message: it names the address.
 */
const noAnswer = (error: Error) => {
  if (error.cause instanceof NoAnswer) return error.cause.message;
  if (error.name !== "FetchError") return undefined;
  const { response } = error as { response?: Response };
  if (response) return `the server answered ${response.status}`;
  return error.cause === undefined
    ? "the server redirected it too often"
    : "the server could not be reached";
};

/** An error's kind, or that a post was cut at its deadline; never its message (it may name someone). */
export const nameOf = (error: unknown) =>
  error instanceof Error ? (noAnswer(error) ?? error.name) : typeof error;

/**
 * A queue message's run (message-queue.ts), failed once it has run `runMs`:
 * its message marked `abandoned`, and the run's late end only logged.
 */
export function withDeadline(
  run: Promise<void>,
  runMs: number,
  message: { abandoned?: boolean },
  log: Pick<Log, "warn">,
) {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      message.abandoned = true;
      reject(new RunPastDeadline(`no result within ${Math.round(runMs / 1000)} s`));
      void run
        .then(
          () => undefined,
          (error: unknown) => error,
        )
        .then((err) =>
          log.warn({ err }, "a Fediverse queue message's run ended after its deadline"),
        );
    }, runMs);
  });
  return Promise.race([run, deadline]).finally(() => clearTimeout(timer));
}

/** One holder at a time: `tryTake` says whether it was free, and it is then the caller's until `release`. */
export class Slot {
  #held = false;
  tryTake() {
    if (this.#held) return false;
    this.#held = true;
    return true;
  }
  release() {
    this.#held = false;
  }
}

/*
 * A delivery's posts get `answerMs` (15 seconds) for their answers. Fedify
 * (2.3) posts with the global fetch and takes neither a signal nor a fetch of
 * ours, and Node's fetch waits five minutes for an answer to start: a server
 * that takes the post and never answers held a worker until the run's
 * two-minute deadline (message-queue.ts), and a few such servers, their
 * accounts following the site, held all four. Node's fetch also connects
 * through its own lookup, so an inbox's name checked when the delivery was
 * queued could resolve to a private address by the time it is posted. So the
 * global fetch is wrapped once: the posts of a delivery's run (`run`) go
 * through the site's checked fetch (safe-fetch.ts, `post`), each connection's
 * address checked as it is made, a redirect's too; they are cut at one
 * deadline, from the first (Fedify posts again when redirected or asked to
 * sign another way: a deadline each would let a server answering each just in
 * time hold the worker the two minutes), and fail as any unreachable server
 * does (Fedify retries it); every other fetch passes unchanged. A server cut
 * so is remembered for an hour (`isSlow`): its deliveries then go one at a
 * time, with the messages that ran past a deadline.
 */

/**
 * A delivery's run: its posts' deadline, from its first post on, and what cuts it; its first
 * post's address, and the checked fetch its posts go through.
 */
type Deadline = {
  answerMs: AnswerMs;
  ms?: number;
  timeout?: AbortSignal;
  cut: () => void;
  first?: string;
  post: RemoteFetch;
};

/**
 * The deadline of a delivery's posts; a function of its first post's address lets a test give
 * its stand-in servers that never answer less time than those that answer at once.
 */
export type AnswerMs = number | ((inbox: URL) => number);
const msFor = (answerMs: AnswerMs, url: string) =>
  typeof answerMs === "number" ? answerMs : answerMs(new URL(url));

const underway = new AsyncLocalStorage<Deadline>();

/** A post of Fedify's, through the checked fetch, and its answer as Fedify's fetch gives it. */
async function posted(post: RemoteFetch, request: Request, signal: AbortSignal, timeoutMs: number) {
  const answer = await post(request.url, {
    method: request.method,
    headers: Object.fromEntries(request.headers),
    body: new Uint8Array(await request.arrayBuffer()),
    timeoutMs,
    signal,
  });
  return responseOf(answer);
}

let wrapped = false;
function wrapGlobalFetch() {
  if (wrapped) return;
  wrapped = true;
  const fetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const deadline = underway.getStore();
    if (!deadline) return fetch(input, init);
    const request = new Request(input, init);
    deadline.first ??= request.url;
    deadline.ms ??= msFor(deadline.answerMs, request.url);
    deadline.timeout ??= AbortSignal.timeout(deadline.ms);
    const { timeout, ms } = deadline;
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return posted(deadline.post, request, signal, ms).catch((error: unknown) => {
      // The inbox was checked when the delivery was queued; its name, or where it redirects, now.
      if (error instanceof AddressRefused) {
        const where =
          request.url === deadline.first ? "the inbox's name led it" : "the server redirected it";
        const what = error.why === "port" ? "another port" : "a private address";
        throw new NoAnswer(`${where} to ${what}`, { cause: error });
      }
      if (!timeout.aborted) throw error;
      deadline.cut();
      const seconds = Math.round(ms / 1000);
      const within = seconds === 1 ? "a second" : `${seconds} seconds`;
      throw new NoAnswer(`the server did not answer within ${within}`, { cause: error });
    });
  };
}

/** How long a server that did not answer in time is remembered so, and how many are. */
const slowForMs = 60 * 60_000;
const slowAtMost = 1000;

export function createDeliveryDeadline({
  answerMs,
  clock,
  post,
}: {
  answerMs: AnswerMs;
  clock: () => Date;
  post: RemoteFetch;
}) {
  wrapGlobalFetch();
  /** Until when each server is slow, and whether it missed a deadline again within the hour after it was let go. */
  const slow = new Map<string, { until: number; relapsed: boolean }>();
  /** When each server was last let go (a run in time in the lane), for an hour. */
  const letGo = new Map<string, number>();
  const remember = <T>(map: Map<string, T>, host: string, value: T) => {
    map.delete(host);
    map.set(host, value);
    const [oldest] = map.keys();
    if (map.size > slowAtMost && oldest !== undefined) map.delete(oldest);
  };
  return {
    /** The host a Fedify delivery (a queued message, as stored) posts to; null for any other. */
    hostOf(stored: string): string | null {
      try {
        const { type, inbox } = (JSON.parse(stored) ?? {}) as { type?: unknown; inbox?: unknown };
        return type === "outbox" && typeof inbox === "string"
          ? (URL.parse(inbox)?.host ?? null)
          : null;
      } catch {
        return null;
      }
    },
    /** Whether a delivery to this host did not answer in time within the last hour. */
    isSlow: (host: string) => (slow.get(host)?.until ?? 0) > clock().getTime(),
    /**
     * A server that answered in time again: its deliveries go on any worker, and
     * true; unless it missed a deadline again within the hour after it was last let
     * go, as one that hangs every other time does: it then stays slow its hour.
     */
    forget(host: string): boolean {
      const now = clock().getTime();
      const entry = slow.get(host);
      if (entry?.relapsed && entry.until > now) return false;
      slow.delete(host);
      remember(letGo, host, now);
      return true;
    },
    /** Runs a delivery to `host`, its posts cut at the deadline (`run.late` then); any other message as it is. */
    run<T>(host: string | null, run: { late?: boolean }, work: () => Promise<T>): Promise<T> {
      if (host === null) return work();
      const cut = () => {
        run.late = true;
        const now = clock().getTime();
        const relapsed = (letGo.get(host) ?? -Infinity) > now - slowForMs;
        remember(slow, host, { until: now + slowForMs, relapsed });
      };
      return underway.run({ answerMs, cut, post }, work);
    },
  };
}
