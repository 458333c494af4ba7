import { Window } from "happy-dom";

/**
 * One window for the worker's pages: a `Window` for each page cost about as
 * much again as parsing it (a booking page, with its select of every time
 * zone, took 0.14 CPU-seconds that way and 0.08 this way), and none was
 * ever closed.
 */
const window = new Window();

const parse = (html: string) => new window.DOMParser().parseFromString(html, "text/html");

/**
 * The pages parsed last, by their HTML: a test that reads one page in
 * several assertions parses it once (tests only read what `dom` gives).
 */
const parsed = new Map<string, ReturnType<typeof parse>>();
const kept = 8;

/** What a person sees of an HTML page or mail: its text, and the elements in it. */
export function dom(html: string) {
  let document = parsed.get(html);
  if (!document) {
    document = parse(html);
    parsed.set(html, document);
    const oldest = parsed.keys().next().value;
    if (parsed.size > kept && oldest !== undefined) parsed.delete(oldest);
  }
  return document;
}
