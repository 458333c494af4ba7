import { describe, expect, it } from "vitest";
import { onFirstUse } from "../../server/lib/on-first-use.ts";

/* What only some requests need is imported once, on first use (docs/decisions/038-start-and-idle.md). */
describe("a module loaded on first use", () => {
  it("is not loaded until asked for, then loaded once for every caller", async () => {
    let loads = 0;
    const load = onFirstUse(async () => {
      loads += 1;
      return { answer: 42 };
    });
    expect(loads).toBe(0);
    const [first, second] = await Promise.all([load(), load()]);
    expect(await load()).toBe(first);
    expect(second).toBe(first);
    expect(loads).toBe(1);
  });

  it("is tried again after a failed load rather than failing for good", async () => {
    let loads = 0;
    const load = onFirstUse(async () => {
      loads += 1;
      if (loads === 1) throw new Error("the disk was busy");
      return "loaded";
    });
    await expect(load()).rejects.toThrow("the disk was busy");
    await expect(load()).resolves.toBe("loaded");
    expect(loads).toBe(2);
  });

  it("loads the real package it stands for", async () => {
    const { webauthn } = await import("../../server/console/webauthn.ts");
    const library = await webauthn();
    expect(typeof library.generateRegistrationOptions).toBe("function");
    expect(typeof library.verifyAuthenticationResponse).toBe("function");
  });
});
