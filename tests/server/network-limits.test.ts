import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import { bookingLoadsPerMinute } from "../../server/bookings/limits.ts";
import { networkFactor } from "../../server/lib/address-limit.ts";
import type { InjectResponse } from "../support/visitor.ts";
import { freshItem, json, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * Limits counted by address are counted by network too (docs/product.md,
 * "Limits"): an IPv6 address counts by its /64, and one network's /48 holds
 * 65,536 of them, so each limit also holds one network to ten times an
 * address's allowance. The counts are in the process's memory, the same on
 * either database, so one backend is enough.
 */

const perMinute = 2;
const signInFailures = 2;

/** A /48 no test has sent from yet, giving its `n`th /64: each an address with an allowance of its own. */
let networks = 0x100;
function newNetwork() {
  networks += 1;
  const base = networks.toString(16);
  return (n: number) => `2001:db8:${base}:${n.toString(16)}::1`;
}

describe("limits per network", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite", {
      env: {
        RATE_LIMIT_WRITES_PER_IP: String(perMinute),
        ASSISTANT_QUESTIONS_PER_MINUTE_PER_IP: String(perMinute),
      },
    });
  });
  afterAll(() => t?.close());

  /**
   * Sends `perAddress` requests from each of the network's addresses until the
   * network's allowance (`networkFactor` addresses' worth) is spent, all let
   * through, then one from a fresh address of it: the refusal.
   */
  async function floodNetwork(perAddress: number, send: (ip: string) => Promise<InjectResponse>) {
    const ip = newNetwork();
    for (let i = 0; i < perAddress * networkFactor; i += 1) {
      expect((await send(ip(Math.floor(i / perAddress)))).statusCode).not.toBe(429);
    }
    const refused = await send(ip(0xfff));
    // Another network is not held up.
    const other = await send(newNetwork()(1));
    expect(other.statusCode).not.toBe(429);
    return refused;
  }

  const expectRefused = (refused: InjectResponse, message: RegExp) => {
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(json(refused, errorResponseSchema).error.message).toMatch(message);
  };

  it("holds the API's writes from one network to ten addresses' worth", async () => {
    const postId = freshItem("science");
    const refused = await floodNetwork(perMinute, (ip) =>
      t.app.inject({
        method: "POST",
        url: `/api/items/science/${postId}/reactions`,
        remoteAddress: ip,
        headers: { origin: siteUrl },
        payload: { type: "like", userName: "Kim" },
      }),
    );
    expectRefused(refused, /from your network/);
  });

  it("holds the assistant's questions from one network to ten addresses' worth", async () => {
    const refused = await floodNetwork(perMinute, (ip) =>
      t.app.inject({
        method: "POST",
        url: "/api/assistant",
        remoteAddress: ip,
        headers: { origin: siteUrl },
        payload: { question: "How does soap clean?" },
      }),
    );
    expectRefused(refused, /from your network/);
  });

  it("holds the question form from one network, the API's count and the form's one", async () => {
    const refused = await floodNetwork(perMinute, (ip) =>
      t.app.inject({
        method: "POST",
        url: "/services/assistant",
        remoteAddress: ip,
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: "question=How+does+soap+clean%3F",
      }),
    );
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(refused.body).toContain("from your network");
  });

  it.each([
    ["the booking pages' loads", "/book/times?zone=UTC"],
    ["the API's lists of free times", "/api/bookings/slots?zone=UTC"],
  ])(
    "holds %s from one network to ten addresses' worth",
    async (_, url) => {
      const refused = await floodNetwork(bookingLoadsPerMinute, (ip) =>
        t.app.inject({ method: "GET", url, remoteAddress: ip }),
      );
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      expect(refused.body).toContain("Too many requests from your network");
    },
    // 600 reads of the calendar: seconds on a quiet machine, many more beside a busy one.
    180_000,
  );

  it("holds the console's failed sign-ins from one network to ten addresses' worth", async () => {
    // Sign-ins are writes too: the writes' limit is left generous here.
    const app = await startTestApp("sqlite", {
      env: { OWNER_SIGN_IN_ATTEMPTS_PER_HOUR: String(signInFailures) },
    });
    onTestFinished(() => app.close());
    const refused = await floodNetwork(signInFailures, (ip) =>
      app.app.inject({
        method: "POST",
        url: "/api/admin/sign-in",
        remoteAddress: ip,
        headers: { origin: siteUrl },
        payload: { token: "A".repeat(43) },
      }),
    );
    expectRefused(refused, /failed sign-in attempts from your network/);
  });
});
