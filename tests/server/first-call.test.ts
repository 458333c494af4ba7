import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstCallHole } from "../../content/service-page.ts";
import { assistantResponseSchema } from "../../contract/assistant.ts";
import { bookingsResponseSchema, slotsResponseSchema } from "../../contract/bookings.ts";
import { waitFor } from "../support/wait-for.ts";
import { testIndexJson } from "./support/assistant-index.ts";
import { Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import { backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * A service page's first call, its length and whether it is free, is the
 * owner's one setting in the Bookings hours, as /book says it
 * (server/bookings/first-call-pages.ts).
 */

describe.each(backends)("a service page's first call on %s", (backend) => {
  let t: TestApp;
  let me: Owner;
  beforeAll(async () => {
    t = await startTestApp(backend, {
      assistantIndex: testIndexJson,
      clientFiles: {
        "services/dfmea/index.html": `<!doctype html><title>DFMEA</title><p>A first call ${firstCallHole} on the product.</p>`,
        "book/index.html":
          '<!doctype html><title>Book a call</title><main><h1>Book a call</h1><ewe-fragment data-part="booking"></ewe-fragment></main>',
      },
    });
    me = new Owner(t);
    expect((await me.signIn()).statusCode).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  const page = async (address = "/services/dfmea") => {
    const response = await t.visitor().get(address);
    expect(response.statusCode).toBe(200);
    return response.body;
  };
  const slots = async () => json(await t.visitor().get("/api/bookings/slots"), slotsResponseSchema);

  it("says the owner's length and price, as /book does, and follows their change", async () => {
    expect(await page()).toContain("<p>A first call (30 minutes, free) on the product.</p>");
    expect(await page("/services/dfmea/")).toContain("(30 minutes, free)");
    expect(await slots()).toMatchObject({ callMinutes: 30, firstCallFree: true });

    const { availability } = json(await me.get("/api/admin/bookings"), bookingsResponseSchema);
    const saved = await me.request("PUT", "/api/admin/bookings/availability", {
      ...availability,
      callMinutes: 45,
      firstCallFree: false,
    });
    expect(saved.statusCode).toBe(200);
    expect(await page()).toContain("<p>A first call (45 minutes) on the product.</p>");
    expect(await slots()).toMatchObject({ callMinutes: 45, firstCallFree: false });
  });

  it("has the assistant say the first call's terms as the owner sets them", async () => {
    const ask = async (question: string) => {
      const response = await t.visitor().post("/api/assistant", { question });
      return json(response, assistantResponseSchema);
    };
    const { availability } = json(await me.get("/api/admin/bookings"), bookingsResponseSchema);
    const terms = async (callMinutes: number, firstCallFree: boolean) => {
      const saved = await me.request("PUT", "/api/admin/bookings/availability", {
        ...availability,
        callMinutes,
        firstCallFree,
      });
      expect(saved.statusCode).toBe(200);
    };
    await terms(30, true);
    const free = await ask("Is the first call free?");
    expect(free.answer).toMatch(/^A first call is 30 minutes and free\./);
    expect(free.actions.map((action) => action.kind)).toEqual(["enquiry", "booking"]);

    await terms(45, false);
    for (const question of ["How much is a first call?", "Do you offer a free consultation?"]) {
      expect((await ask(question)).answer, question).toMatch(
        /^A first call is 45 minutes; it is not free of charge\./,
      );
    }
  });

  it("over a socket, sends the page read again as before, and the owner's change at once, another process's within a second", async () => {
    const origin = await t.app.listen({ host: "127.0.0.1", port: 0 });
    const read = async (encoding: string) => {
      const response = await fetch(`${origin}/services/dfmea`, {
        headers: { "accept-encoding": encoding },
      });
      const { date: _date, "x-request-id": _id, ...headers } = Object.fromEntries(response.headers);
      return { headers, text: await response.text() };
    };
    // The first read goes through Fastify, the later ones through the fast path in front of it.
    for (const encoding of ["br", "gzip", "identity"]) {
      const [first, ...later] = [await read(encoding), await read(encoding), await read(encoding)];
      for (const again of later) expect(again).toEqual(first);
    }
    const { availability } = json(await me.get("/api/admin/bookings"), bookingsResponseSchema);
    const saved = await me.request("PUT", "/api/admin/bookings/availability", {
      ...availability,
      callMinutes: 40,
      firstCallFree: true,
    });
    expect(saved.statusCode).toBe(200);
    for (const encoding of ["br", "gzip", "identity"]) {
      expect((await read(encoding)).text).toContain("(40 minutes, free)");
    }
    await runSql(t, "update booking_settings set availability = ? where id = 1", [
      JSON.stringify({ ...availability, callMinutes: 50, firstCallFree: false }),
    ]);
    await waitFor(async () => (await read("br")).text.includes("(50 minutes)"), {
      timeoutMs: 10_000,
      what: "the page over a socket saying the settings written elsewhere",
    });
    expect((await read("br")).text).toContain("(50 minutes)");
  });

  it("reads settings saved before the choice was one as free, as the pages said then", async () => {
    const { availability } = json(await me.get("/api/admin/bookings"), bookingsResponseSchema);
    const { firstCallFree: _, ...before } = availability;
    await runSql(t, "update booking_settings set availability = ? where id = 1", [
      JSON.stringify({ ...before, callMinutes: 20 }),
    ]);
    // Written by another process (the command line, another instance): seen within a second.
    await waitFor(async () => (await page()).includes("(20 minutes, free)"), {
      timeoutMs: 10_000,
      what: "the page saying the settings written elsewhere",
    });
  });
});
