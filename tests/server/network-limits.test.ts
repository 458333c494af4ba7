import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import { defaultAvailability, slotsResponseSchema } from "../../contract/bookings.ts";
import { bookingLoadsPerMinute } from "../../server/bookings/limits.ts";
import { networkFactor } from "../../server/lib/address-limit.ts";
import { createFormTokens } from "../../server/lib/form-token.ts";
import type { InjectResponse } from "../support/visitor.ts";
import { Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import {
  backends,
  freshItem,
  json,
  siteOrigin,
  siteUrl,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

/*
 * Limits counted by address are counted by network too (docs/product.md,
 * "Limits"): an IPv6 address counts by its /64, and one network's /48 holds
 * 65,536 of them, so each limit also holds one network to ten times an
 * address's allowance. These counts are in the process's memory, the same on
 * either database, so one backend is enough; the hourly ones are at the end.
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

/** The network `floodNetwork` spent last. */
let flooded = newNetwork();

/**
 * Sends `perAddress` requests from each of the network's addresses until the
 * network's allowance (`networkFactor` addresses' worth) is spent, all let
 * through, then one from a fresh address of it: the refusal.
 */
async function floodNetwork(perAddress: number, send: (ip: string) => Promise<InjectResponse>) {
  const ip = newNetwork();
  flooded = ip;
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

describe("limits per network", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite", {
      env: {
        RATE_LIMIT_WRITES_PER_IP: String(perMinute),
        ASSISTANT_QUESTIONS_PER_MINUTE_PER_IP: String(perMinute),
      },
    });
    // A calendar with no free times: the booking pages' loads below count the
    // same, and each lays out and writes no times (about half the CPU of a
    // load of the default calendar). The owner's two writes are this
    // address's allowance; every test below writes from networks of its own.
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const none = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
    const closed = await owner.request("PUT", "/api/admin/bookings/availability", {
      ...defaultAvailability,
      weekly: none,
    });
    expect(closed.statusCode, closed.body).toBe(200);
  });
  afterAll(() => t?.close());

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
    // 600 loads: seconds on a quiet machine, many more beside a busy one.
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

/*
 * The hourly limits counted from the database's rows (enquiries, bookings,
 * confirmation mails) count by network too, from the digest of the network
 * kept beside each row's address: on both databases.
 */
describe.each(backends)("hourly limits per network on %s", (backend) => {
  const cookieSecret = "network-limits-tests-cookie-secret-0123456789";
  const formToken = (purpose: string) =>
    createFormTokens(cookieSecret, { purpose, minimumMs: 0 }).issue(Date.now() - 60_000);
  let t: TestApp;
  /** Free times no test has booked yet, the earliest first. */
  let free: string[] = [];
  let sent = 0;
  const post = (ip: string, url: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: "POST", url, remoteAddress: ip, headers: siteOrigin, payload });
  const enquire = (ip: string) =>
    post(ip, "/api/enquiries", {
      name: "Priya Raman",
      email: `client-${++sent}@example.org`,
      service: "dfmea",
      message: "We need a DFMEA workshop for our team of six in March, for a fuel pump module.",
      formToken: formToken("enquiry form timing"),
    });
  const book = (ip: string) =>
    post(ip, "/api/bookings", {
      start: free.shift(),
      name: "Meera Iyer",
      email: `reader-${++sent}@example.org`,
      service: "dfmea",
      note: "A second opinion on our pump's DFMEA, please.",
      zone: "Asia/Kolkata",
      formToken: formToken("booking form timing"),
    });
  const subscribe = (ip: string) =>
    post(ip, "/api/subscribers", {
      email: `subscriber-${++sent}@example.org`,
      formToken: t.formToken(),
      website: "",
    });

  beforeAll(async () => {
    t = await startTestApp(backend, {
      env: {
        COOKIE_SECRET: cookieSecret,
        ENQUIRIES_PER_HOUR: "1",
        BOOKINGS_PER_HOUR: "1",
        SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR: "1",
      },
    });
    const slots = await t.app.inject({ method: "GET", url: "/api/bookings/slots?zone=UTC" });
    free = json(slots, slotsResponseSchema).starts;
  });
  afterAll(() => t?.close());

  it("holds enquiries from one network to ten addresses' worth an hour", async () => {
    const refused = await floodNetwork(1, async (ip) => {
      const answer = await enquire(ip);
      if (answer.statusCode !== 429) expect(answer.statusCode).toBe(201);
      return answer;
    });
    expectRefused(refused, /Too many enquiries came from your network in the last hour/);
    // What is kept of the network is a digest: no address is stored.
    const kept = await runSql(t, "select network_hash from enquiries");
    expect(kept.length).toBeGreaterThan(networkFactor);
    for (const row of kept) expect(String(row.network_hash)).not.toMatch(/2001|db8|:/);
  });

  it("holds bookings from one network to ten addresses' worth an hour, and as many ahead", async () => {
    const refused = await floodNetwork(1, async (ip) => {
      const answer = await book(ip);
      if (answer.statusCode !== 429) expect(answer.statusCode).toBe(201);
      return answer;
    });
    expectRefused(refused, /Too many calls were booked from your network in the last hour/);
    // An hour on, the network's calls are still ahead: it may book no more until they pass.
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000).toISOString();
    await runSql(t, "update bookings set created_at = ?", [twoHoursAgo]);
    await runSql(t, "update bookings_made set made_at = ?", [twoHoursAgo]);
    const ahead = await book(flooded(0xabc));
    expect(ahead.statusCode).toBe(409);
    expect(json(ahead, errorResponseSchema).error.message).toMatch(
      /Your network has its most calls booked ahead already/,
    );
  });

  it("holds confirmation mails from one network to ten addresses' worth an hour, reply mails' too", async () => {
    const refused = await floodNetwork(1, async (ip) => {
      const answer = await subscribe(ip);
      if (answer.statusCode !== 429) expect(answer.statusCode).toBe(202);
      return answer;
    });
    expectRefused(refused, /confirmation mails were requested from your network/);
    // Kept as digests, of the address and of the network: neither itself.
    const kept = await runSql(t, "select ip, network from confirmation_requests");
    expect(kept.length).toBeGreaterThan(networkFactor);
    for (const row of kept) expect(`${row.ip} ${row.network}`).not.toMatch(/2001|db8|:/);
    // The network's share is the reply mails' too.
    const reply = await post(
      flooded(0xabc),
      `/api/items/science/${freshItem("science")}/comments`,
      {
        content: "Would a thicker heat sink help the charger's fan?",
        userName: "Asha",
        formToken: t.commentToken(),
        notifyEmail: `replier-${++sent}@example.org`,
      },
    );
    expectRefused(reply, /confirmation mails were asked for from your network/);
  });

  it("counts an IPv4 address as its own network, as before", async () => {
    // Eleven addresses of one /24, each within its allowance: more than a network's.
    for (let n = 1; n <= networkFactor + 1; n += 1) {
      expect((await enquire(`198.51.100.${n}`)).statusCode).toBe(201);
      expect((await subscribe(`198.51.100.${n}`)).statusCode).toBe(202);
      expect((await book(`198.51.100.${n}`)).statusCode).toBe(201);
    }
    expectRefused(await enquire("198.51.100.1"), /from your connection or this address/);
    expectRefused(await subscribe("198.51.100.1"), /requested from your connection/);
    expectRefused(await book("198.51.100.1"), /booked from your connection/);
  });
});
