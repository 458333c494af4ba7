import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { instantOf, wallTime } from "../../../contract/time-zones.ts";
import { ownerZone } from "./bookings.ts";

/*
 * What the tests of the owner's busy calendar share: a stand-in calendar server on
 * loopback, and the owner's days written as an iCalendar file writes them.
 */

const day = 86_400_000;

export type Day = { year: number; month: number; day: number };
/** The owner's date `days` after `from`. */
export const plus = (from: Day, days: number): Day => {
  const noon = new Date(Date.UTC(from.year, from.month - 1, from.day, 12) + days * day);
  return { year: noon.getUTCFullYear(), month: noon.getUTCMonth() + 1, day: noon.getUTCDate() };
};
/** A date, or a wall time on it, as iCalendar writes it. */
export const ics = (date: Day, hour = 0, min = 0) =>
  `${date.year}${String(date.month).padStart(2, "0")}${String(date.day).padStart(2, "0")}` +
  (hour || min ? `T${String(hour).padStart(2, "0")}${String(min).padStart(2, "0")}00` : "");
/** An instant as iCalendar writes one in UTC. */
export const icsUtc = (instant: number) =>
  new Date(instant).toISOString().replace(/[-:]|\.\d+/g, "");
export const at = (date: Day, hour: number, min = 0, zone = ownerZone) =>
  instantOf(date, hour * 60 + min, zone) as number;
export const iso = (instant: number) => new Date(instant).toISOString();

/** A Monday in the owner's zone at least three days ahead: the week the calendar fills. */
export function nextMonday(): Day {
  const today = wallTime(Date.now(), ownerZone);
  const ahead = (8 - today.weekday) % 7 || 7;
  return plus(today, ahead < 3 ? ahead + 7 : ahead);
}

/** A file of `events`, each given by its lines, as a calendar service publishes it. */
export const calendarFile = (...events: string[][]) =>
  [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Stand-in//EN",
    ...events.flatMap((lines) => [
      "BEGIN:VEVENT",
      "DTSTAMP:20261201T000000Z",
      ...lines,
      "END:VEVENT",
    ]),
    "END:VCALENDAR",
    "",
  ].join("\r\n");

export type Answer = { status: number; body: string | Buffer; location?: string } | "no answer";

/**
 * A calendar server on loopback, started before the file's tests: it answers each read with
 * `answer` ("no answer": it keeps the request open, as a host that hangs), and counts them.
 */
export function calendarStandIn() {
  const stand = {
    answer: { status: 200, body: "" } as Answer,
    reads: 0,
    port: 0,
    url: (path: string) => `http://127.0.0.1:${stand.port}/${path}`,
    /** Drops the requests kept open: their reads fail at once; or answers them with `answer`. */
    release: (answer?: Exclude<Answer, "no answer">) => {
      for (const response of hanging.splice(0)) {
        if (answer) respond(response, answer);
        else response.destroy();
      }
    },
  };
  const hanging: ServerResponse[] = [];
  const respond = (response: ServerResponse, answer: Exclude<Answer, "no answer">) => {
    if (answer.location) response.setHeader("location", answer.location);
    response.writeHead(answer.status, { "content-type": "text/calendar" }).end(answer.body);
  };
  const server = createServer((_request, response) => {
    stand.reads += 1;
    const { answer } = stand;
    if (answer === "no answer") return void hanging.push(response);
    respond(response, answer);
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    stand.port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    stand.release();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return stand;
}
