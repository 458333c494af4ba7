import { describe, expect, it } from "vitest";
import { createVisitorOverlays } from "./visitor-overlays.ts";

/*
 * What each visitor owns is kept in bounded memory, and read again once the
 * item changes or the visitor writes (docs/decisions/035-returning-readers-read-the-shared-bytes.md).
 */

function counted() {
  const loads: string[] = [];
  const load = (what: string) => () => {
    loads.push(what);
    return Promise.resolve(what);
  };
  return { loads, load };
}

describe("visitors' overlays", () => {
  it("keeps at most the bound of visitors, forgetting the least recently seen", async () => {
    const overlays = createVisitorOverlays({ visitors: 3 });
    const { loads, load } = counted();
    for (const visitor of ["a", "b", "c"])
      await overlays.get(visitor, "comments", "science:x", load(visitor));
    await overlays.get("a", "comments", "science:x", load("a")); // seen again: now the latest
    for (let i = 0; i < 50; i += 1)
      await overlays.get(`flood-${i}`, "comments", "science:x", load("flood"));
    expect(overlays.size).toBe(3);
    expect(loads.filter((what) => what !== "flood")).toEqual(["a", "b", "c"]);

    await overlays.get("a", "comments", "science:x", load("a"));
    expect(loads.at(-1)).toBe("a"); // forgotten by the flood: read again
  });

  it("keeps at most the bound of items per visitor", async () => {
    const overlays = createVisitorOverlays({ itemsPerVisitor: 2 });
    const { loads, load } = counted();
    for (const item of ["science:1", "science:2", "science:3"]) {
      await overlays.get("a", "comments", item, load(item));
    }
    await overlays.get("a", "comments", "science:3", load("again 3"));
    await overlays.get("a", "comments", "science:1", load("again 1"));
    expect(loads).toEqual(["science:1", "science:2", "science:3", "again 1"]);
  });

  it("reads an item again once it changed, and a visitor's items once they wrote", async () => {
    const overlays = createVisitorOverlays();
    const { loads, load } = counted();
    await overlays.get("a", "comments", "science:x", load("first"));
    await overlays.get("a", "reactions", "science:y", load("y"));
    expect(await overlays.get("a", "comments", "science:x", load("kept?"))).toBe("first");

    overlays.changed("science:x");
    expect(await overlays.get("a", "comments", "science:x", load("after change"))).toBe(
      "after change",
    );
    expect(await overlays.get("a", "reactions", "science:y", load("y again"))).toBe("y");

    overlays.forget("a");
    expect(await overlays.get("a", "reactions", "science:y", load("after write"))).toBe(
      "after write",
    );
    expect(loads).toEqual(["first", "y", "after change", "after write"]);
  });

  it("never keeps a read that began before the item changed, nor one that failed", async () => {
    const overlays = createVisitorOverlays();
    let finish: (value: string) => void = () => {};
    const slow = overlays.get(
      "a",
      "comments",
      "science:x",
      () => new Promise<string>((resolve) => (finish = resolve)),
    );
    overlays.changed("science:x");
    finish("before the change");
    expect(await slow).toBe("before the change");
    expect(await overlays.get("a", "comments", "science:x", async () => "after")).toBe("after");

    const failing = overlays.get("b", "comments", "science:x", async () => {
      throw new Error("database unreachable");
    });
    await expect(failing).rejects.toThrow("database unreachable");
    expect(await overlays.get("b", "comments", "science:x", async () => "read again")).toBe(
      "read again",
    );
  });

  it("keeps nothing when told not to", async () => {
    const overlays = createVisitorOverlays();
    await overlays.get("a", "comments", "science:x", async () => "first", false);
    expect(overlays.size).toBe(0);
  });
});
