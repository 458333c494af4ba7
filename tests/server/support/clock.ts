import { toIso } from "../../../server/lib/time.ts";
import { runSql } from "./sql.ts";
import type { TestApp } from "./test-app.ts";

/**
 * A clock the test moves: real time plus an offset, so retries and timeouts
 * still run. What the clock would do in an hour, the test does at once.
 */
export function movableClock() {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    /** From now on the clock reads `at` (and runs on from there). */
    set(at: Date) {
      offset = at.getTime() - Date.now();
    },
    advance(ms: number) {
      offset += ms;
    },
  };
}

/**
 * Moves `clock` three days on when the Fediverse queue is between tries: `wanted` holds of its
 * rows, none is in hand (its lease would end with the move, and another worker take it) and none
 * is due within half a second. Whether it moved.
 */
export async function threeDaysBetweenTries(
  t: TestApp,
  clock: ReturnType<typeof movableClock>,
  wanted: (messages: { type?: string }[]) => boolean = (messages) => messages.length > 0,
) {
  const soon = clock.now().getTime() + 500;
  const rows = await runSql(t, "select message, taken_until, due_at from fediverse_queue");
  const waiting = rows.every(
    (row) => row.taken_until === null && Date.parse(toIso(row.due_at as string)) > soon,
  );
  if (!waiting || !wanted(rows.map((row) => JSON.parse(String(row.message))))) return false;
  clock.advance(3 * 86_400_000 + 60_000);
  return true;
}
