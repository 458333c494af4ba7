import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reactionsResponseSchema } from "../../../contract/api.ts";
import { backends, json, siteOrigin, startTestApp, type TestApp } from "../support/test-app.ts";

describe.each(backends)("concurrent writes on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  it("leaves exactly one row for 100 parallel identical adds from one visitor", async () => {
    const alex = t.visitor();
    await alex.react("mythology", "sita-faith", "idea"); // the cookie comes with the first write
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => alex.react("mythology", "sita-faith", "like")),
    );
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 200)).toHaveLength(99);
    expect(json(await alex.get("/api/items/mythology/sita-faith/reactions"))).toEqual({
      counts: { like: 1, love: 0, dislike: 0, idea: 1 },
      mine: ["like", "idea"],
    });
  });

  // 500 at once keep every pool connection busy for many rounds; more only
  // measure how long a loaded 2-core machine makes the last ones wait.
  it("counts 500 parallel adds from distinct visitors exactly", async () => {
    const types = ["like", "love", "dislike", "idea"] as const;
    const responses = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        t.app.inject({
          method: "POST",
          url: "/api/items/science/wifi/reactions",
          headers: siteOrigin,
          payload: { type: types[i % 4], userName: `Reader ${i}` },
        }),
      ),
    );
    expect(responses.filter((r) => r.statusCode !== 201).map((r) => r.body)).toEqual([]);
    expect(new Set(responses.map((response) => response.headers["set-cookie"])).size).toBe(500);
    expect(
      json(await t.visitor().get("/api/items/science/wifi/reactions"), reactionsResponseSchema)
        .counts,
    ).toEqual({
      like: 125,
      love: 125,
      dislike: 125,
      idea: 125,
    });
  });

  it("ends at zero after 200 visitors add and remove in parallel", async () => {
    const visitors = Array.from({ length: 200 }, () => t.visitor());
    await Promise.all(visitors.map((v) => v.react("science", "soap", "love")));
    const removed = await Promise.all(
      visitors.map((v) => v.delete("/api/items/science/soap/reactions/love")),
    );
    expect(removed.filter((r) => r.statusCode !== 200).map((r) => r.body)).toEqual([]);
    expect(
      json(await t.visitor().get("/api/items/science/soap/reactions"), reactionsResponseSchema)
        .counts.love,
    ).toBe(0);
  });
});
