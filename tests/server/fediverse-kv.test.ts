import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKvStore } from "../../server/fediverse/kv-store.ts";
import { takenBack } from "../../server/fediverse/taken-back.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { backends } from "./support/test-app.ts";

/*
 * What a writer took back before it came is remembered under the writer's and
 * the post's addresses: each may be as long as the inbox takes (2,000 bytes),
 * and PostgreSQL's index on the key holds at most about 2,700.
 */
describe.each(backends)("remembering what was taken back, on %s", (backend) => {
  let scratch: Awaited<ReturnType<typeof scratchStore>>;
  beforeAll(async () => {
    scratch = await scratchStore(backend, { migrated: true });
  });
  afterAll(() => scratch.drop());

  it("keeps a Delete of a post whose and whose writer's addresses are as long as the inbox takes", async () => {
    // Letters no compression shortens, as a hostile server would choose them.
    const long = (length: number) => randomBytes(length).toString("base64url").slice(0, length);
    const actor = new URL(`https://far.example/users/${long(1_950)}`);
    const post = new URL(`https://far.example/notes/${long(1_950)}`);
    const undone = takenBack(createKvStore(scratch.store));
    await undone.remember(actor, post);
    expect(await undone.has(actor, post)).toBe(true);
    expect(await undone.has(actor, new URL(`${post.href}x`))).toBe(false);
  });
});
