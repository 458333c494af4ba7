import { describe, expect, it } from "vitest";
import { changedEventType, type Listener, type LiveEvent } from "../events/bus.ts";
import { fediverseBlocksTopic } from "../events/journal.ts";
import { blockedSenders } from "./blocks.ts";

/** A database whose reads of the blocks answer when the test says, each with the rows of its moment. */
function slowTargets() {
  const pending: { answer: (rows: string[]) => void }[] = [];
  return {
    targets: () =>
      new Promise<string[]>((resolve) => {
        pending.push({ answer: resolve });
      }),
    pending,
  };
}

const blockEvent: LiveEvent = {
  id: 1,
  topic: fediverseBlocksTopic,
  type: changedEventType,
  data: "{}",
};

describe("the blocks the inbox consults", () => {
  it("hold the owner's new block once its read is done, though another instance's event began a read after it", async () => {
    const db = slowTargets();
    let hear: Listener = () => {};
    const senders = blockedSenders({
      targets: db.targets,
      bus: {
        healthy: true,
        subscribeAll: (listener) => {
          hear = listener;
          return () => {};
        },
      },
      log: { warn: () => {} },
    });
    const bo = "https://remote.example/users/bo";

    // The first post reads the blocks: none.
    const first = senders.names([bo]);
    db.pending[0]?.answer([]);
    expect(await first).toBe(false);

    // The owner blocks Bo: this instance reads again; meanwhile the block's
    // event arrives and begins a read of its own, which answers last.
    let ownReadDone = false;
    const own = senders.read().then(() => {
      ownReadDone = true;
    });
    hear(blockEvent);
    expect(db.pending).toHaveLength(3);
    db.pending[1]?.answer([bo]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ownReadDone).toBe(false);
    db.pending[2]?.answer([bo]);
    await own;
    expect(await senders.names([bo])).toBe(true);
  });
});
