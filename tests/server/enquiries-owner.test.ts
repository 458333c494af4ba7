import { beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import { bookingsResponseSchema } from "../../contract/bookings.ts";
import { auditResponseSchema } from "../../contract/console.ts";
import {
  enquiriesResponseSchema,
  enquiryResponseOwnerSchema,
  enquiryWeeksResponseSchema,
} from "../../contract/enquiries.ts";
import { instantOf, momentLabel } from "../../contract/time-zones.ts";
import { createFormTokens } from "../../server/lib/form-token.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { mailingApp } from "./support/mailing-app.ts";
import { Owner } from "./support/owner.ts";
import type { SmtpSink } from "./support/smtp.ts";
import { runSql } from "./support/sql.ts";
import { backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The owner's side of enquiries (docs/product.md, "Enquiries"): the console's
 * routes, the answer threaded under the acknowledgement, the command line,
 * the audit trail, retention, and two instances on one database.
 */

const owner = "owner@example.com";
const cookieSecret = "enquiry-owner-tests-cookie-secret-0123456789";
const tokens = createFormTokens(cookieSecret, { purpose: "enquiry form timing", minimumMs: 0 });
const dayMs = 24 * 60 * 60 * 1000;

let sender = 0;
function enquiry(overrides: Record<string, unknown> = {}) {
  sender += 1;
  return {
    name: `Client ${sender}`,
    email: `owner-side${sender}@example.org`,
    service: "vba-tools",
    message: `Our test bench writes 40 CSV files a day; we need an Excel tool that merges them (${sender}).`,
    formToken: tokens.issue(Date.now() - 60_000),
    ...overrides,
  };
}

describe.each(backends)("the owner's enquiries on %s", (backend) => {
  let smtp: SmtpSink;
  let t: TestApp;
  let me: Owner;
  let ip = 0;
  let env: Record<string, string>;
  const send = async (body: Record<string, unknown>, app = t) => {
    ip += 1;
    const response = await app.visitor({ ip: `10.7.0.${ip}` }).post("/api/enquiries", body);
    expect(response.statusCode).toBe(201);
  };
  const idOf = async (email: string) =>
    Number((await runSql(t, "select id from enquiries where email = ?", [email]))[0]?.id);
  const cli = (...argv: string[]) =>
    admin({ ...adminEnv(t), COOKIE_SECRET: cookieSecret }, ...argv);

  mailingApp(
    backend,
    { env: { COOKIE_SECRET: cookieSecret, OWNER_EMAIL: owner, ENQUIRIES_PER_HOUR: "1000" } },
    (app) => ({ t, smtp, env } = app),
  );
  beforeAll(async () => {
    me = new Owner(t);
    expect((await me.signIn()).statusCode).toBe(200);
  });

  it("lists, searches and filters enquiries for the signed-in owner only", async () => {
    const first = enquiry({ service: "dfmea", organisation: "Kaveri Pumps" });
    const second = enquiry();
    await send(first);
    await send(second);
    expect((await t.app.inject({ url: "/api/admin/enquiries" })).statusCode).toBe(401);

    const all = json(await me.get("/api/admin/enquiries"), enquiriesResponseSchema);
    expect(all.enquiries.slice(0, 2).map((e) => e.email)).toEqual([second.email, first.email]);
    expect(all.enquiries[1]).toMatchObject({
      serviceTitle: "DFMEA",
      organisation: "Kaveri Pumps",
      message: first.message,
      status: "new",
      kept: false,
      answers: [],
    });
    expect(all.services.at(-1)).toEqual({ id: "other", title: "Something else" });
    const found = json(await me.get("/api/admin/enquiries?q=kaveri"), enquiriesResponseSchema);
    expect(found.enquiries.map((e) => e.email)).toEqual([first.email]);
    const byService = json(
      await me.get("/api/admin/enquiries?service=dfmea"),
      enquiriesResponseSchema,
    );
    expect(byService.enquiries.every((e) => e.service === "dfmea")).toBe(true);
    const none = json(await me.get("/api/admin/enquiries?q=%25_"), enquiriesResponseSchema);
    expect(none.enquiries).toEqual([]);
    expect((await me.get("/api/admin/enquiries?status=lost")).statusCode).toBe(400);
  });

  it.each([
    ["a NUL in the words", "q=kaveri%00"],
    ["a NUL in the service", "service=dfmea%00"],
    ["an escape in the words", "q=%1B%5B2J"],
  ])("refuses a search with %s: 400, on either database", async (_case, query) => {
    const response = await me.get(`/api/admin/enquiries?${query}`);
    expect(response.statusCode).toBe(400);
    expect(json(response, errorResponseSchema).error.issues).toEqual([
      expect.objectContaining({ path: `querystring.${query.split("=")[0]}` }),
    ]);
  });

  it("tells the sender every time in the zone their browser gave, the owner in theirs", async () => {
    // V8's old name, in another case: kept by the list's name, as a booking's zone is.
    const sent = enquiry({ zone: "asia/CALCUTTA" });
    await send(sent);
    const id = await idOf(sent.email);
    const [row] = await runSql(t, "select zone, created_at from enquiries where id = ?", [id]);
    expect(row?.zone).toBe("Asia/Kolkata");
    const at = new Date(String(row?.created_at)).getTime();
    const kolkata = momentLabel(at, "Asia/Kolkata");
    await smtp.waitFor(() => smtp.to(sent.email).length === 1);
    expect(smtp.to(sent.email)[0]?.parsed.text).toContain(`Sent: ${kolkata}`);
    expect(
      (await me.post(`/api/admin/enquiries/${id}/answers`, { body: "Yes, gladly." })).statusCode,
    ).toBe(201);
    await smtp.waitFor(() => smtp.to(sent.email).length === 2);
    const answer = smtp.to(sent.email)[1]?.parsed;
    expect(answer?.text).toContain(`In answer to your enquiry of ${kolkata} on`);
    expect(answer?.html).toContain(`In answer to your enquiry of ${kolkata} on`);
    expect(answer?.text).not.toContain(" UTC");
    // Sent to an address nobody confirmed, the answer carries the owner's words, not the
    // sender's: else the form and one answer would relay a stranger's text from the site.
    for (const typed of [sent.message.slice(0, 30), sent.message.slice(-20), sent.name]) {
      expect(answer?.text).not.toContain(typed);
      expect(answer?.html || "").not.toContain(typed);
    }
    // The owner's copy gives the owner's zone (the Bookings hours'), and the owner's API
    // does not carry the sender's.
    const { ownerZone } = json(await me.get("/api/admin/bookings"), bookingsResponseSchema);
    await smtp.waitFor(() => smtp.to(owner).some((m) => m.parsed.text?.includes(sent.message)));
    const notice = smtp.to(owner).find((m) => m.parsed.text?.includes(sent.message));
    expect(notice?.parsed.text).toContain(`Sent: ${momentLabel(at, ownerZone)}`);
    expect(notice?.parsed.text).not.toContain(" UTC");
    expect(JSON.stringify(json(await me.get("/api/admin/enquiries")))).not.toContain("Kolkata");
    // The owner's CSV export names the sender's zone, in its own column at the end.
    const exported = (await me.get("/api/admin/enquiries/export")).body.split("\r\n");
    expect(exported[0]).toMatch(/,answers,sender_zone$/);
    expect(exported.find((line) => line.startsWith(`${id},`))).toMatch(/,Asia\/Kolkata$/);
  });

  it("answers by mail under the acknowledgement, and records and audits each action", async () => {
    const sent = enquiry();
    await send(sent);
    const id = await idOf(sent.email);
    await smtp.waitFor(() => smtp.to(sent.email).length === 1);
    const ack = smtp.to(sent.email)[0];

    const answered = await me.post(`/api/admin/enquiries/${id}/answers`, {
      body: "Thank you: yes, I can build that. A first version in two weeks.",
    });
    expect(answered.statusCode).toBe(201);
    expect(json(answered, enquiryResponseOwnerSchema).enquiry).toMatchObject({
      status: "answered",
    });
    expect(json(answered, enquiryResponseOwnerSchema).enquiry.answers).toHaveLength(1);
    await smtp.waitFor(() => smtp.to(sent.email).length === 2);
    const reply = smtp.to(sent.email)[1];
    expect(reply?.parsed.inReplyTo).toBe(ack?.parsed.messageId);
    expect(reply?.parsed.references).toEqual(ack?.parsed.messageId);
    expect(reply?.parsed.subject).toBe(`Re: ${ack?.parsed.subject}`);
    expect(reply?.parsed.text).toContain("A first version in two weeks.");
    expect(reply?.parsed.replyTo?.value[0]?.address).toBe(owner);

    expect((await me.post(`/api/admin/enquiries/${id}/answers`, { body: "  " })).statusCode).toBe(
      400,
    );
    const closed = await me.patch(`/api/admin/enquiries/${id}`, { status: "closed" });
    expect(json(closed, enquiryResponseOwnerSchema).enquiry.status).toBe("closed");
    const kept = await me.patch(`/api/admin/enquiries/${id}`, { kept: true });
    expect(json(kept, enquiryResponseOwnerSchema).enquiry.kept).toBe(true);
    expect((await me.patch(`/api/admin/enquiries/${id}`, {})).statusCode).toBe(400);
    expect((await me.delete(`/api/admin/enquiries/${id}`)).statusCode).toBe(204);
    expect((await me.delete(`/api/admin/enquiries/${id}`)).statusCode).toBe(404);
    expect(await runSql(t, "select id from enquiry_answers where enquiry_id = ?", [id])).toEqual(
      [],
    );
    expect(await runSql(t, "select id from outbox where email = ?", [sent.email])).toEqual([]);

    const trail = json(await me.get("/api/admin/audit"), auditResponseSchema).entries;
    const mine = trail.filter((entry) => entry.object === `enquiry ${id}`).map((e) => e.action);
    expect(mine.toSorted()).toEqual(
      ["enquiry answer", "enquiry closed", "enquiry delete", "enquiry keep"].toSorted(),
    );
    // The trail names the enquiry, never what it holds.
    expect(JSON.stringify(trail)).not.toContain(sent.email);
  });

  it("deletes the owner's copy of an enquiry taken for advertising with the enquiry", async () => {
    const advert = enquiry({
      message:
        "Boost your website ranking today! We offer guaranteed first page results and more traffic for a low monthly price. Order our growth package now.",
    });
    await send(advert);
    const id = await idOf(advert.email);
    const rows = () =>
      runSql(t, "select kind from outbox where payload like ?", [`{"enquiryId":${id}%`]);
    expect(await rows()).toEqual([{ kind: "enquiry_notice" }]);
    expect((await me.delete(`/api/admin/enquiries/${id}`)).statusCode).toBe(204);
    expect(await rows()).toEqual([]);
  });

  it("counts enquiries per week by service for the Overview", async () => {
    await send(enquiry({ service: "technical-training" }));
    const { weeks } = json(await me.get("/api/admin/enquiries/weeks"), enquiryWeeksResponseSchema);
    expect(weeks).toHaveLength(12);
    expect(weeks.at(-1)!.counts["technical-training"]).toBeGreaterThanOrEqual(1);
    expect(new Date(`${weeks.at(-1)!.week}T00:00:00Z`).getUTCDay()).toBe(1);
  });

  it("counts the weeks from Monday's midnight in the owner's zone, as the Overview's days", async () => {
    const weeksNow = async () =>
      json(await me.get("/api/admin/enquiries/weeks"), enquiryWeeksResponseSchema).weeks;
    const { ownerZone } = json(await me.get("/api/admin/bookings"), bookingsResponseSchema);
    expect(ownerZone).toBe("Asia/Kolkata");
    const before = await weeksNow();
    // The first second of this week there: 18:30 UTC on Sunday, in the week before by UTC's.
    const [year, month, day] = before.at(-1)!.week.split("-").map(Number) as [
      number,
      number,
      number,
    ];
    const monday = instantOf({ year, month, day }, 0, ownerZone) ?? Number.NaN;
    const service = "technical-training";
    const sent = enquiry({ service });
    await send(sent);
    const at = new Date(Math.min(monday + 1000, Date.now())).toISOString();
    await runSql(t, "update enquiries set created_at = ? where id = ?", [
      at,
      await idOf(sent.email),
    ]);
    const after = await weeksNow();
    const count = (weeks: typeof before, index: number) => weeks.at(index)!.counts[service] ?? 0;
    expect(count(after, -1)).toBe(count(before, -1) + 1);
    expect(count(after, -2)).toBe(count(before, -2));
  });

  it("exports a CSV a spreadsheet cannot run, and the command line lists, shows, closes and deletes", async () => {
    const risky = enquiry({
      name: '=HYPERLINK("https://evil.example")',
      organisation: "@SUM(1)",
      // A spreadsheet whose lists use ";" splits an unquoted cell there: the rest would be a formula.
      timeline: "Soon;=SUM(1+1)",
      // A form's \r\n and a lone \r, which the terminal would print as a return to the line's start.
      message: "Our bench writes 40 CSV files a day.\r\nWe need them merged\rinto one workbook.",
    });
    await send(risky);
    const id = await idOf(risky.email);
    const csv = await me.get("/api/admin/enquiries/export");
    expect(csv.headers["content-type"]).toMatch(/^text\/csv/);
    // Led by the byte-order mark, so a spreadsheet reads a name in any alphabet whole.
    expect(csv.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(csv.body).toContain(`"'=HYPERLINK(""https://evil.example"")"`);
    expect(csv.body).toContain(',\'@SUM(1),"Soon;=SUM(1+1)",');
    expect(csv.body).not.toMatch(/,=HYPERLINK/);
    // A zone kept otherwise than the form's list gives (an older version's row) is no cell of its own.
    await runSql(t, "update enquiries set zone = ? where id = ?", ['=HYPERLINK("x")', id]);
    const zoned = (await me.get("/api/admin/enquiries/export")).body;
    expect(zoned.split("\r\n").find((line) => line.startsWith(`${id},`))).toMatch(/,UTC$/);

    const listed = await cli("enquiries", "list", "--search", risky.email);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split("\n")[1]).toContain(`\t'=HYPERLINK("https://evil.example")\t`);
    const asJson = JSON.parse((await cli("enquiries", "list", "--json", "--status", "new")).stdout);
    expect(asJson.some((e: { id: number }) => e.id === id)).toBe(true);
    expect((await cli("enquiries", "list", "--status", "lost")).code).toBe(2);
    const shown = await cli("enquiries", "show", String(id));
    expect(shown.stdout).toContain(
      "Our bench writes 40 CSV files a day.\nWe need them merged\ninto one workbook.",
    );
    expect(shown.stdout).not.toContain("\r");
    expect(shown.stdout).toContain("Service: VBA Tools");
    expect(JSON.parse((await cli("enquiries", "show", String(id), "--json")).stdout).email).toBe(
      risky.email,
    );
    expect((await cli("enquiries", "close", String(id))).code).toBe(0);
    expect(
      json(
        await me.get(`/api/admin/enquiries?q=${encodeURIComponent(risky.email)}`),
        enquiriesResponseSchema,
      ).enquiries[0]?.status,
    ).toBe("closed");
    expect((await cli("enquiries", "delete", String(id))).code).toBe(0);
    expect((await cli("enquiries", "delete", String(id))).code).toBe(3);
    expect((await cli("enquiries", "show", "abc")).code).toBe(2);
    const exported = await cli("enquiries", "export");
    expect(exported.stdout.split("\r\n")[0]).toBe(
      "id,created_at,status,kept,service,name,email,organisation,timeline,message,answers,sender_zone",
    );
    const actions = (
      await runSql(t, "select action from owner_audit where object = ?", [`enquiry ${id}`])
    ).map((row) => row.action);
    expect(actions).toEqual(expect.arrayContaining(["enquiry closed", "enquiry delete"]));
  });

  it("closes and deletes from the command line with --json, and audits both", async () => {
    const sent = enquiry();
    await send(sent);
    const id = await idOf(sent.email);
    const closed = await cli("enquiries", "close", String(id), "--json");
    expect(closed.code).toBe(0);
    expect(JSON.parse(closed.stdout)).toEqual({ id, status: "closed" });
    expect(JSON.parse((await cli("enquiries", "show", String(id), "--json")).stdout).status).toBe(
      "closed",
    );
    const deleted = await cli("enquiries", "delete", String(id), "--json");
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ id, deleted: true });
    expect(await runSql(t, "select id from enquiries where id = ?", [id])).toEqual([]);
    const missing = await cli("enquiries", "close", String(id), "--json");
    expect(missing.code).toBe(3);
    expect(missing.stdout).toBe("");
    expect((await cli("enquiries", "delete", String(id), "--json")).code).toBe(3);
    const actions = (
      await runSql(t, "select action from owner_audit where object = ?", [`enquiry ${id}`])
    ).map((row) => row.action);
    expect(actions.toSorted()).toEqual(["enquiry closed", "enquiry delete"]);
  });

  it("deletes enquiries past the retention period unless kept, when an instance starts and hourly", async () => {
    const old = enquiry();
    const keptOld = enquiry();
    const recent = enquiry();
    for (const each of [old, keptOld, recent]) await send(each);
    const longAgo = new Date(Date.now() - 400 * dayMs).toISOString();
    for (const each of [old, keptOld]) {
      await runSql(t, "update enquiries set created_at = ? where email = ?", [longAgo, each.email]);
    }
    await me.patch(`/api/admin/enquiries/${await idOf(keptOld.email)}`, { kept: true });

    // A second instance on the same database prunes as it starts.
    const second = await startTestApp(backend, {
      env,
      ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : { dataDir: t.dataDir }),
    });
    try {
      const remaining = async () =>
        (
          await runSql(t, "select email from enquiries where email in (?, ?, ?)", [
            old.email,
            keptOld.email,
            recent.email,
          ])
        )
          .map((row) => row.email)
          .toSorted();
      await expect
        .poll(remaining, { timeout: 20_000 })
        .toEqual([keptOld.email, recent.email].toSorted());
      // The trail's line is written once the deletion has committed.
      const audit = () =>
        runSql(t, "select object from owner_audit where action = 'enquiries retention'");
      await expect
        .poll(async () => (await audit()).length, { timeout: 20_000 })
        .toBeGreaterThanOrEqual(1);
    } finally {
      await second.close();
    }
  });

  it.runIf(backend === "postgres")(
    "two instances on one database send each mail once and acknowledge an address once",
    async () => {
      const second = await startTestApp(backend, { env, databaseUrl: t.databaseUrl });
      try {
        const shared = enquiry().email;
        const sent = Array.from({ length: 6 }, () => enquiry({ email: shared }));
        await Promise.all(sent.map((each, index) => send(each, index % 2 === 0 ? t : second)));
        const notices = () =>
          smtp.to(owner).filter((mail) => mail.parsed.replyTo?.value[0]?.address === shared);
        await smtp.waitFor(() => notices().length >= 6 && smtp.to(shared).length >= 1);
        // Long enough for a duplicate to have gone out: both workers poll every 200 ms.
        await expect
          .poll(
            async () =>
              (
                await runSql(
                  t,
                  "select count(*) as n from outbox where status = 'queued' and (email = ? or email = ?)",
                  [shared, owner],
                )
              )[0]?.n,
          )
          .toBe("0");
        expect(notices()).toHaveLength(6);
        expect(smtp.to(shared)).toHaveLength(1);
      } finally {
        await second.close();
      }
    },
  );
});
