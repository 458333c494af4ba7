import { describe, expect, it } from "vitest";
import { suggestedAddress } from "./mail-domains.ts";

describe("a mistyped mail domain", () => {
  it.each([
    ["name@gmial.com", "name@gmail.com"],
    ["name@gamil.com", "name@gmail.com"],
    ["name@gmail.con", "name@gmail.com"],
    ["name@gmaill.co", "name@gmail.com"],
    ["Asha.Rao@Hotmial.com", "Asha.Rao@hotmail.com"],
    ["meera@yaho.co.in", "meera@yahoo.co.in"],
    ["x@outlok.com", "x@outlook.com"],
    ["x@iclod.com", "x@icloud.com"],
    ["x@rediffmial.com", "x@rediffmail.com"],
  ])("suggests for %s: %s", (typed, suggested) => {
    expect(suggestedAddress(typed)).toBe(suggested);
  });

  it.each([
    "name@gmail.com",
    "Name@GMAIL.COM",
    "engineer@acme-motors.co.in",
    "a@mit.edu",
    "a@me.com",
    "a@gmx.de",
    "a@ieee.org",
    "not an address",
    "@gmial.com",
    "name@",
  ])("suggests nothing for %s", (typed) => {
    expect(suggestedAddress(typed)).toBeNull();
  });
});
