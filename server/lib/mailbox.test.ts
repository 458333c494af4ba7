import { expect, it } from "vitest";
import { mailboxDigest } from "./mailbox.ts";

it("counts a limit by the loose mailbox, and keeps a stop to the mailbox it reaches", () => {
  const limit = mailboxDigest("secret", "a limit");
  const stop = mailboxDigest("secret", "a stop", { loose: false });
  expect(limit("A.Lice+x@example.org")).toBe(limit("alice@example.org"));
  expect(stop("A.Lice+x@example.org")).toBe(stop("a.lice@example.org"));
  expect(stop("a.lice@example.org")).not.toBe(stop("alice@example.org"));
  expect(stop("A.Lice+x@GoogleMail.com")).toBe(stop("alice@gmail.com"));
  expect(stop("alice@example.org")).not.toBe(limit("alice@example.org"));
});
