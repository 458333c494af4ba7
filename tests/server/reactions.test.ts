import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema, reactionsResponseSchema } from "../../contract/api.ts";
import { backends, freshItem, json, startTestApp, type TestApp } from "./support/test-app.ts";

const none = { like: 0, love: 0, dislike: 0, idea: 0 };

describe.each(backends)("reactions on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  for (const kind of ["mythology", "science"] as const) {
    describe(kind, () => {
      it("starts with zero counts and nothing of mine", async () => {
        const response = await t.visitor().get(`/api/items/${kind}/${freshItem(kind)}/reactions`);
        expect(response.statusCode).toBe(200);
        expect(json(response)).toEqual({ counts: none, mine: [] });
      });

      it("adds with 201, then answers 200 for a reaction already held", async () => {
        const id = freshItem(kind);
        const alex = t.visitor();
        const first = await alex.react(kind, id, "love");
        expect(first.statusCode).toBe(201);
        expect(json(first)).toEqual({ counts: { ...none, love: 1 }, mine: ["love"] });
        const second = await alex.react(kind, id, "love");
        expect(second.statusCode).toBe(200);
        expect(json(second)).toEqual({ counts: { ...none, love: 1 }, mine: ["love"] });
      });

      it("counts everyone's reactions and marks only the caller's as mine", async () => {
        const id = freshItem(kind);
        const alex = t.visitor();
        const sam = t.visitor();
        await alex.react(kind, id, "like");
        await alex.react(kind, id, "idea");
        await sam.react(kind, id, "like", "Sam");
        expect(json(await alex.get(`/api/items/${kind}/${id}/reactions`))).toEqual({
          counts: { ...none, like: 2, idea: 1 },
          mine: ["like", "idea"],
        });
        expect(
          json(await sam.get(`/api/items/${kind}/${id}/reactions`), reactionsResponseSchema).mine,
        ).toEqual(["like"]);
        expect(
          json(await t.visitor().get(`/api/items/${kind}/${id}/reactions`), reactionsResponseSchema)
            .mine,
        ).toEqual([]);
      });

      it("removes the caller's own reaction", async () => {
        const id = freshItem(kind);
        const alex = t.visitor();
        await alex.react(kind, id, "dislike");
        const removed = await alex.delete(`/api/items/${kind}/${id}/reactions/dislike`);
        expect(removed.statusCode).toBe(200);
        expect(json(removed)).toEqual({ counts: none, mine: [] });
      });

      it("answers 404 when the caller holds no reaction of that type", async () => {
        const id = freshItem(kind);
        const alex = t.visitor();
        await alex.react(kind, id, "like");
        const response = await alex.delete(`/api/items/${kind}/${id}/reactions/love`);
        expect(response.statusCode).toBe(404);
        expect(json(response, errorResponseSchema).error.code).toBe("not_found");
      });

      it("lets nobody else remove a reaction, even under the same name", async () => {
        const id = freshItem(kind);
        const alex = t.visitor();
        await alex.react(kind, id, "like", "Alex");
        const impostor = t.visitor();
        await impostor.react(kind, id, "idea", "Alex"); // the impostor has a cookie of their own
        const response = await impostor.delete(`/api/items/${kind}/${id}/reactions/like`);
        expect(response.statusCode).toBe(404);
        const cookieless = await t.visitor().delete(`/api/items/${kind}/${id}/reactions/like`);
        expect(cookieless.statusCode).toBe(404);
        expect(json(await alex.get(`/api/items/${kind}/${id}/reactions`))).toEqual({
          counts: { ...none, like: 1, idea: 1 },
          mine: ["like"],
        });
      });

      it("answers 404 for an unknown item, and stores nothing", async () => {
        const alex = t.visitor();
        for (const response of [
          await alex.get(`/api/items/${kind}/no-such-item/reactions`),
          await alex.react(kind, "no-such-item", "like"),
          await alex.delete(`/api/items/${kind}/no-such-item/reactions/like`),
        ]) {
          expect(response.statusCode).toBe(404);
          expect(json(response, errorResponseSchema).error.code).toBe("not_found");
        }
      });
    });
  }

  it("keeps stories and posts with the same id apart", async () => {
    const alex = t.visitor();
    await alex.react("science", "soap", "idea");
    expect(
      json(await alex.get("/api/items/science/soap/reactions"), reactionsResponseSchema).counts
        .idea,
    ).toBe(1);
    expect(
      json(await alex.get("/api/items/mythology/soap/reactions"), errorResponseSchema).error.code,
    ).toBe("not_found");
    expect(
      json(await alex.get("/api/items/mythology/garuda/reactions"), reactionsResponseSchema).counts
        .idea,
    ).toBe(0);
  });

  // Once, on SQLite: refused by the schema before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("refuses an unknown kind or reaction type with 400", async () => {
        const alex = t.visitor();
        expect((await alex.get("/api/items/technical/ice-blog/reactions")).statusCode).toBe(400);
        expect((await alex.react("science", "wifi", "wow")).statusCode).toBe(400);
        expect((await alex.delete("/api/items/science/wifi/reactions/wow")).statusCode).toBe(400);
      });
    });
  }

  it.each([
    ["a missing name", { type: "like" }],
    ["an empty name", { type: "like", userName: "" }],
    ["a blank name", { type: "like", userName: "   " }],
    ["a 41-character name", { type: "like", userName: "n".repeat(41) }],
    ["a missing type", { userName: "Alex" }],
    ["an unknown field", { type: "like", userName: "Alex", storyId: "garuda" }],
  ])("refuses %s with 400 and stores nothing", async (_case, body) => {
    const id = freshItem("science");
    const response = await t.visitor().post(`/api/items/science/${id}/reactions`, body);
    expect(response.statusCode).toBe(400);
    expect(json(response, errorResponseSchema).error.code).toBe("validation_failed");
    expect(response.headers["set-cookie"]).toBeUndefined();
    expect(
      json(await t.visitor().get(`/api/items/science/${id}/reactions`), reactionsResponseSchema)
        .counts,
    ).toEqual(none);
  });

  it("keeps a 40-character name with its spaces as typed", async () => {
    const response = await t
      .visitor()
      .react("science", freshItem("science"), "like", ` ${"n".repeat(38)} `);
    expect(response.statusCode).toBe(201);
  });
});
