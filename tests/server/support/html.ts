import { Window } from "happy-dom";

/**
 * One window for the worker's pages: a `Window` for each page cost about as
 * much again as parsing it (a booking page, with its select of every time
 * zone, took 0.14 CPU-seconds that way and 0.08 this way), and none was
 * ever closed.
 */
const window = new Window();

/** What a person sees of an HTML page or mail: its text, and the elements in it. */
export function dom(html: string) {
  return new window.DOMParser().parseFromString(html, "text/html");
}
