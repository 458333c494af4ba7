/*
 * The bench's targets, each printed as one row: what was measured, the figure,
 * the ceiling or floor it is held to, and whether it was met. Every part of
 * `npm run bench` (reads, the viral case, the newsletter, start and idle)
 * returns its rows; `bench/run.ts` prints them together at the end, so one
 * table answers "does this machine meet the budgets" (docs/benchmarks.md).
 */

export type Verdict = {
  /** What was measured, e.g. "/about, wrk, × hello world". */
  label: string;
  /** The figure as measured, with its unit, e.g. "0.47×" or "6.2 ms". */
  figure: string;
  /** The bound it is held to, e.g. "≥ 0.4×" or "≤ 10 ms". */
  bound: string;
  met: boolean;
};

/** A figure that must stay at or under `max`. */
export function atMost(label: string, value: number, max: number, unit: string): Verdict {
  return {
    label,
    figure: `${format(value)}${unit}`,
    bound: `≤ ${format(max)}${unit}`,
    met: value <= max,
  };
}

/** A figure that must reach at least `min`. */
export function atLeast(label: string, value: number, min: number, unit: string): Verdict {
  return {
    label,
    figure: `${format(value)}${unit}`,
    bound: `≥ ${format(min)}${unit}`,
    met: value >= min,
  };
}

const format = (value: number) =>
  Number.isInteger(value) ? value.toLocaleString("en") : value.toFixed(2);

/** The rows as an aligned table, with a last line counting those missed. */
export function verdictTable(verdicts: Verdict[]): string[] {
  const width = (pick: (v: Verdict) => string) => Math.max(...verdicts.map((v) => pick(v).length));
  const [label, figure, bound] = [
    width((v) => v.label),
    width((v) => v.figure),
    width((v) => v.bound),
  ];
  const lines = verdicts.map(
    (v) =>
      `${v.label.padEnd(label)}  ${v.figure.padStart(figure)}  ${v.bound.padEnd(bound)}  ${v.met ? "met" : "MISSED"}`,
  );
  const missed = verdicts.filter((v) => !v.met).length;
  lines.push(missed === 0 ? "All targets met." : `${missed} of ${verdicts.length} targets MISSED.`);
  return lines;
}
