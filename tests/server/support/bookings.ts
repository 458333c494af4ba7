import { beforeAll, expect } from "vitest";
import { bookingsResponseSchema, slotsResponseSchema } from "../../../contract/bookings.ts";
import { createFormTokens } from "../../../server/lib/form-token.ts";
import { adminEnv } from "./admin.ts";
import type { movableClock } from "./clock.ts";
import { type MailingApp, mailingApp } from "./mailing-app.ts";
import { Owner } from "./owner.ts";
import type { SmtpSink } from "./smtp.ts";
import { runSql } from "./sql.ts";
import { type Backend, json, type TestApp, type TestAppOptions, type Visitor } from "./test-app.ts";

/** Where the owner of the bookings' test apps is mailed, and the zone of their hours. */
export const owner = "owner@example.com";
export const ownerZone = "Europe/London";
export const cookieSecret = "booking-tests-cookie-secret-0123456789abcdef";

/** The booking form's signed times under the apps' secret. */
export const formTokens = createFormTokens(cookieSecret, {
  purpose: "booking form timing",
  minimumMs: 0,
});
/** The form's signed time as the page holds it once a person has had time to fill it. */
export const aged = () => formTokens.issue(Date.now() - 60_000);

/**
 * A test app for booked calls (`mailingApp`): the owner at `owner` with hours in
 * `ownerZone`, the hour's limit per connection out of the way, its mail sent by `clock`;
 * `env` (or what it gives, read as the app starts) comes over that, and `options` beside it.
 */
export function bookingsApp(
  backend: Backend,
  clock: ReturnType<typeof movableClock>,
  env: Record<string, string> | (() => Record<string, string>),
  started: (app: MailingApp) => void,
  options: Omit<TestAppOptions, "env" | "mail"> = {},
) {
  mailingApp(
    backend,
    () => ({
      env: {
        COOKIE_SECRET: cookieSecret,
        OWNER_EMAIL: owner,
        BOOKING_TIMEZONE: ownerZone,
        BOOKINGS_PER_HOUR: "1000",
        ...(typeof env === "function" ? env() : env),
      },
      mail: { clock: clock.now },
      ...options,
    }),
    started,
  );
}

/** The owner's side of a bookings' test app: the app, its mail, the signed-in owner and the admin's env. */
export type OwnerSide = { t: TestApp; smtp: SmtpSink; owner: Owner; env: Record<string, string> };

/**
 * A bookings' test app (`bookingsApp`) with the owner signed in, and what the tests of
 * the owner's side do with it: the free times, the owner's list, and a reader's booking
 * from an address and a connection of its own (`name` tells the files' readers apart).
 */
export function ownerSideApp(
  backend: Backend,
  clock: ReturnType<typeof movableClock>,
  name: string,
  started: (side: OwnerSide) => void,
) {
  let side: OwnerSide;
  let readers = 0;
  bookingsApp(backend, clock, {}, ({ t, smtp }) => {
    side = { t, smtp, owner: new Owner(t), env: {} };
  });
  beforeAll(async () => {
    side.env = { ...adminEnv(side.t), OWNER_EMAIL: owner, BOOKING_TIMEZONE: ownerZone };
    expect((await side.owner.signIn()).statusCode).toBe(200);
    started(side);
  });
  const freeStarts = async () =>
    json(await side.t.visitor().get("/api/bookings/slots"), slotsResponseSchema).starts;
  const upcoming = async (when = "upcoming") => {
    const response = await side.owner.get(`/api/admin/bookings?when=${when}`);
    expect(response.statusCode, response.body).toBe(200);
    return json(response, bookingsResponseSchema).bookings;
  };
  /**
   * A reader books the free time `index` places down the list (or the time given): the
   * call as the owner's list has it, once the reader's invitation has come.
   */
  async function book(at: number | string, note = "Our DFMEA for a pump module keeps growing.") {
    readers += 1;
    const request = {
      start: typeof at === "string" ? at : ((await freeStarts())[at] ?? ""),
      name: `Reader ${readers}`,
      email: `${name}-${backend}-${readers}@example.org`,
      service: "dfmea",
      note,
      zone: "America/New_York",
      formToken: aged(),
    };
    const response = await side.t
      .visitor({ ip: `10.9.0.${readers}` })
      .post("/api/bookings", request);
    expect(response.statusCode, response.body).toBe(201);
    const call = (await upcoming()).find((b) => b.email === request.email);
    if (!call) throw new Error(`${request.email} is not listed`);
    await side.smtp.waitFor(() => side.smtp.to(call.email).length > 0);
    return call;
  }
  return { freeStarts, upcoming, book };
}

/** A reader's booking of `start` for `email`, from a browser of its own, as the island posts it. */
export const postBooking = (from: Visitor, start: string, email: string, name: string) =>
  from.post("/api/bookings", {
    start,
    name,
    email,
    service: "dfmea",
    note: "",
    zone: "Europe/Paris",
    formToken: aged(),
  });

/**
 * A bookings' test app (`bookingsApp`) whose tests hold each side's mail, with the owner's
 * browser (not signed in) and a reader's booking of the free time `index` places down the
 * list for `email`, from a browser of its own on `network` ("10.7.1"), named "Reader N".
 */
export function readerSideApp(
  backend: Backend,
  clock: ReturnType<typeof movableClock>,
  network: string,
  started: (side: { t: TestApp; smtp: SmtpSink; owner: Owner }) => void,
) {
  let t: TestApp;
  let readers = 0;
  bookingsApp(backend, clock, {}, (app) => {
    t = app.t;
    started({ t, smtp: app.smtp, owner: new Owner(t) });
  });
  const free = async () =>
    json(await t.visitor().get("/api/bookings/slots"), slotsResponseSchema).starts;
  async function book(email: string, index: number) {
    readers += 1;
    const start = (await free())[index] ?? "";
    const name = `Reader ${readers}`;
    const browser = t.visitor({ ip: `${network}.${readers}` });
    const response = await postBooking(browser, start, email, name);
    expect(response.statusCode, response.body).toBe(201);
    const [row] = await runSql(t, "select id, uid from bookings where email = ?", [email]);
    return { id: Number(row?.id), uid: String(row?.uid), start, name, browser };
  }
  return { free, book };
}
