import { describe, expect, it } from "vitest";
import { commentSchema } from "../../contract/api.ts";
import { handleOf } from "./note-text.ts";

describe("a Fediverse writer's handle", () => {
  it("fits the comment's schema at its longest, or every reader of the post would get a 500", () => {
    // Three labels of 63 and one of 61: the longest name DNS resolves.
    const host = `${`${"h".repeat(63)}.`.repeat(3)}${"x".repeat(61)}`;
    expect(host.length).toBe(253);
    const remote = commentSchema.shape.remote;
    for (const name of ["🔧".repeat(64), "🔧".repeat(200), `${"a".repeat(300)}@bank.example`]) {
      const handle = handleOf({ id: new URL(`https://${host}/users/1`), preferredUsername: name });
      expect(handle.endsWith(`@${host}`)).toBe(true);
      expect(remote.safeParse({ handle }).success, handle).toBe(true);
    }
  });
});
