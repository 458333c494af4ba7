import { describe, expect, it } from "vitest";
import { unseenJunk, unseenOrdinary } from "../tests/support/spam-samples.ts";
import { ownCorpus } from "./spam-corpus.ts";

/*
 * The browser test's second list of comments (tests/support/spam-samples.ts)
 * judges the spam filter on words it never learnt from: no comment of it, nor
 * any run of six words of one, is in our corpus (docs/decisions/025-spam-that-learns.md).
 */

const words = (text: string) =>
  text
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter(Boolean);

/** Every run of `length` words of a text, joined; letters spelled out one by one are not words. */
function runs(text: string, length: number): string[] {
  const list = words(text).filter((word) => [...word].length > 1);
  return Array.from({ length: Math.max(0, list.length - length + 1) }, (_, at) =>
    list.slice(at, at + length).join(" "),
  );
}

describe("the spam samples of the browser test", () => {
  const corpus = ownCorpus();
  const corpusRuns = new Set([...corpus.junk, ...corpus.ordinary].flatMap((line) => runs(line, 6)));
  const corpusLines = new Set(
    [...corpus.junk, ...corpus.ordinary].map((line) => words(line).join(" ")),
  );
  const samples = [...unseenJunk.map(({ text }) => text), ...unseenOrdinary];

  it("are thirty junk comments and thirty ordinary ones, each once", () => {
    expect(unseenJunk).toHaveLength(30);
    expect(unseenOrdinary).toHaveLength(30);
    expect(new Set(samples).size).toBe(60);
  });

  it("are not in the corpus the classifier learns from, whole or in part", () => {
    expect(samples.filter((text) => corpusLines.has(words(text).join(" ")))).toEqual([]);
    const shared = samples.flatMap((text) =>
      runs(text, 6)
        .filter((run) => corpusRuns.has(run))
        .map((run) => `${run} (in: ${text})`),
    );
    expect(shared).toEqual([]);
  });
});
