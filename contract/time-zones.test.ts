import { describe, expect, it } from "vitest";
import { currentZoneName, momentLabel, offeredZoneName, timeZones } from "./time-zones.ts";

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

  it("keep a zone written in any case, or in another spelling, by the list's name", () => {
    const offered = timeZones();
    for (const [written, kept] of [
      ["asia/kolkata", "Asia/Kolkata"],
      ["ASIA/CALCUTTA", "Asia/Kolkata"],
      ["america/new_york", "America/New_York"],
      ["etc/utc", "UTC"],
      ["Europe/Berlin", "Europe/Berlin"],
    ]) {
      expect(offeredZoneName(written as string), written).toBe(kept);
      expect(offered).toContain(kept);
    }
    for (const refused of ["mars/olympus", "+05:30", "systemv/ast4", ""]) {
      expect(offeredZoneName(refused), refused).toBeNull();
    }
  });
});

describe("a moment's zone", () => {
  it('reads "GMT" at no offset from it, never "GMT+0"', () => {
    const winter = Date.parse("2026-12-07T10:00:00Z");
    expect(momentLabel(winter, "Europe/London")).toBe(
      "Monday 7 December 2026, 10:00 (Europe / London, GMT)",
    );
    expect(momentLabel(Date.parse("2026-07-06T09:00:00Z"), "Europe/London")).toBe(
      "Monday 6 July 2026, 10:00 (Europe / London, GMT+1)",
    );
    expect(momentLabel(winter, "Atlantic/Reykjavik")).toMatch(/\(Atlantic \/ Reykjavik, GMT\)$/);
    expect(momentLabel(winter, "UTC")).toMatch(/, 10:00 \(UTC\)$/);
  });
});
