import { describe, expect, it } from "vitest";
import { currentZoneName, timeZones } from "./time-zones.ts";

describe("the time zones offered", () => {
  it("name each place as people write it today, once", () => {
    const offered = timeZones();
    for (const [old, current] of [
      ["Asia/Calcutta", "Asia/Kolkata"],
      ["Europe/Kiev", "Europe/Kyiv"],
      ["Africa/Asmera", "Africa/Asmara"],
    ]) {
      expect(currentZoneName(old as string)).toBe(current);
      expect(offered).toContain(current);
      expect(offered).not.toContain(old);
    }
    expect(offered[0]).toBe("UTC");
    expect(new Set(offered).size).toBe(offered.length);
  });
});
