import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { appendToSection, benchmarksFile, benchSection, runEntry } from "../bench/record.ts";

/* `npm run bench -- --record` appends its run to docs/benchmarks.md (bench/record.ts). */
describe("recording a bench run", () => {
  const docs = readFileSync(benchmarksFile, "utf8");
  const entry = runEntry(["hello world (wrk)    50000 req/s", "Targets    all met"], {
    date: new Date("2026-11-27T01:00:00Z"),
    settings: { BENCH_DURATION: 10, BENCH_ONLY: "reads" },
  });

  it("adds the run, dated and with its settings, at the end of the bench's section", () => {
    const updated = appendToSection(docs, benchSection, entry);
    const section = updated.slice(updated.indexOf(benchSection));
    const nextHeading = section.indexOf("\n## ", 1);
    const ownText = section.slice(0, nextHeading === -1 ? undefined : nextHeading);
    expect(ownText.trimEnd().endsWith(entry)).toBe(true);
    expect(entry).toMatch(/^- `npm run bench -- --record` \(2026-11-27, \d+ cores, /);
    expect(entry).toContain("BENCH_DURATION=10 BENCH_ONLY=reads");
    expect(entry).toContain("  hello world (wrk)    50000 req/s");
  });

  it("changes nothing else in the file", () => {
    const updated = appendToSection(docs, benchSection, entry);
    expect(updated.replace(`\n${entry}\n`, "\n")).toBe(docs);
  });

  it("refuses a section the file does not have", () => {
    expect(() => appendToSection(docs, "## Nowhere", entry)).toThrow(/no section "## Nowhere"/);
  });
});
