import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startHourlyRetention } from "./retention.ts";

const hourMs = 60 * 60 * 1000;

describe("the hourly retention", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Clean-ups that each finish when told, and what ran when, and how many at once. */
  function cleanUps() {
    const ran: string[] = [];
    const finish = new Map<string, (failed?: boolean) => void>();
    let underWay = 0;
    let most = 0;
    const cleanUp = (name: string) => () =>
      new Promise<void>((resolve, reject) => {
        ran.push(name);
        underWay += 1;
        most = Math.max(most, underWay);
        finish.set(name, (failed) => {
          underWay -= 1;
          finish.delete(name);
          if (failed) reject(new Error(`${name} failed`));
          else resolve();
        });
      });
    return {
      ran,
      cleanUp,
      mostAtOnce: () => most,
      async end(name: string, failed?: boolean) {
        const done = finish.get(name);
        if (!done) throw new Error(`${name} is not under way`);
        done(failed);
        await vi.advanceTimersByTimeAsync(0);
      },
    };
  }

  it("runs each clean-up at the start, one at a time, the next after a failure, and each again an hour later", async () => {
    const warn = vi.fn();
    const retention = startHourlyRetention({ warn });
    const { ran, cleanUp, mostAtOnce, end } = cleanUps();
    retention.add(cleanUp("events"), { failure: "old records could not be pruned" });
    retention.add(cleanUp("enquiries"), { failure: "old enquiries could not be deleted" });
    retention.add(cleanUp("questions"), { failure: "old questions could not be deleted" });
    await vi.advanceTimersByTimeAsync(0);
    expect(ran).toEqual(["events"]);
    await end("events");
    expect(ran).toEqual(["events", "enquiries"]);
    await end("enquiries", true);
    expect(warn).toHaveBeenCalledWith(
      { err: new Error("enquiries failed") },
      "old enquiries could not be deleted",
    );
    expect(ran).toEqual(["events", "enquiries", "questions"]);
    await end("questions");

    await vi.advanceTimersByTimeAsync(hourMs - 1000);
    expect(ran).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1000);
    expect(ran.slice(3)).toEqual(["events"]);
    await end("events");
    await end("enquiries");
    await end("questions");
    expect(ran.slice(3)).toEqual(["events", "enquiries", "questions"]);
    expect(mostAtOnce()).toBe(1);
    await retention.stop();
  });

  it("runs a clean-up given a first delay after that delay, then hourly, never beside another", async () => {
    const retention = startHourlyRetention({ warn: vi.fn() });
    const { ran, cleanUp, mostAtOnce, end } = cleanUps();
    retention.add(cleanUp("readers"), { failure: "readers", firstAfterMs: 5000 });
    retention.add(cleanUp("events"), { failure: "events" });
    await vi.advanceTimersByTimeAsync(4999);
    expect(ran).toEqual(["events"]);
    // Due while another runs: it waits for it.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ran).toEqual(["events"]);
    await end("events");
    expect(ran).toEqual(["events", "readers"]);
    await end("readers");
    await vi.advanceTimersByTimeAsync(hourMs);
    expect(ran).toEqual(["events", "readers", "events"]);
    await end("events");
    await vi.advanceTimersByTimeAsync(15_000);
    expect(ran).toEqual(["events", "readers", "events", "readers"]);
    await end("readers");
    expect(mostAtOnce()).toBe(1);
    await retention.stop();
  });

  it("stops after the clean-up under way finishes, and starts none after", async () => {
    const retention = startHourlyRetention({ warn: vi.fn() });
    const { ran, cleanUp, end } = cleanUps();
    retention.add(cleanUp("events"), { failure: "events" });
    retention.add(cleanUp("bans"), { failure: "bans" });
    await vi.advanceTimersByTimeAsync(0);
    let stopped = false;
    const stopping = retention.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    await end("events");
    await stopping;
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(2 * hourMs);
    expect(ran).toEqual(["events"]);
  });
});
