import { createHash } from "node:crypto";
import { chmodSync, chownSync, existsSync, statSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reactionsResponseSchema } from "../../contract/api.ts";
import { admin, adminEnv } from "./support/admin.ts";
import {
  backends,
  capturedLogs,
  json,
  openApiDocumentSchema,
  seen,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

describe.each(backends)("the app on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    // An empty database: this app applies every migration itself.
    t = await startTestApp(backend, { emptyDatabase: true });
  });
  afterAll(() => t?.close());

  it("is healthy and ready", async () => {
    expect(json(await t.app.inject({ method: "GET", url: "/healthz" }))).toEqual({ status: "ok" });
    const ready = await t.app.inject({ method: "GET", url: "/readyz" });
    expect(ready.statusCode).toBe(200);
    expect(json(ready)).toEqual({ status: "ready", database: backend, liveEvents: "listening" });
  });

  // Once, on SQLite: the OpenAPI document is made from the routes' schemas alone.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("describes the API in OpenAPI, generated from the route schemas", async () => {
        const response = await t.app.inject({ method: "GET", url: "/api/openapi.json" });
        expect(response.statusCode).toBe(200);
        const doc = json(response, openApiDocumentSchema);
        expect(doc.openapi).toBe("3.1.0");
        // The owner's console routes are checked in console.test.ts.
        const readers = Object.keys(doc.paths).filter((route) => !route.startsWith("/api/admin/"));
        expect(readers.sort()).toEqual([
          "/api/assistant",
          "/api/assistant/feedback",
          "/api/bookings",
          "/api/bookings/form-token",
          "/api/bookings/slots",
          "/api/comments/form-token",
          "/api/comments/{id}",
          "/api/enquiries",
          "/api/enquiries/form-token",
          "/api/events",
          "/api/items/science/{id}/comments",
          "/api/items/{kind}/{id}/reactions",
          "/api/items/{kind}/{id}/reactions/{type}",
          "/api/newsletter/form-token",
          "/api/readers/read",
          "/api/readers/view",
          "/api/subscribers",
          "/api/subscribers/confirm",
          "/api/unsubscribe",
          "/api/your-data",
          "/api/your-data/delete",
        ]);
        const subscribe = doc.paths["/api/subscribers"]?.post;
        expect(
          subscribe?.requestBody?.content["application/json"]?.schema.properties?.email,
        ).toMatchObject({
          type: "string",
          maxLength: 254,
        });
        expect(Object.keys(subscribe?.responses ?? {})).toEqual(
          expect.arrayContaining(["202", "4XX"]),
        );
        // Every route, the console's too, says how it refuses and fails: in the API's one error shape.
        const undeclared = Object.entries(doc.paths).flatMap(([route, operations]) =>
          Object.entries(operations)
            .filter(([, { responses }]) => !("4XX" in responses && "5XX" in responses))
            .map(([method]) => `${method} ${route}`),
        );
        expect(undeclared).toEqual([]);
        const react = doc.paths["/api/items/{kind}/{id}/reactions"]?.post;
        expect(
          react?.requestBody?.content["application/json"]?.schema.properties?.type?.enum,
        ).toEqual(["like", "love", "dislike", "idea"]);
      });
    });
  }

  it("applies its migrations once: a second instance on the same database starts cleanly", async () => {
    const second = await startTestApp(backend, {
      ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : {}),
      dataDir: t.dataDir,
    });
    await second.close();
  });
});

describe("SQLite by default", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite");
  });
  afterAll(() => t?.close());

  it("keeps its data in DATA_DIR/engage.sqlite, in WAL mode", () => {
    const file = path.join(t.dataDir, "engage.sqlite");
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      expect(db.prepare("pragma journal_mode").get()).toEqual({ journal_mode: "wal" });
    } finally {
      db.close();
    }
  });

  it("creates DATA_DIR readable by its owner only, and the database with its -wal and -shm files", async () => {
    const mode = (file: string) => statSync(path.join(t.dataDir, file)).mode & 0o777;
    await t.visitor().react("mythology", "garuda", "like"); // a write: the log files exist
    expect(mode(".")).toBe(0o700);
    for (const file of ["engage.sqlite", "engage.sqlite-wal", "engage.sqlite-shm"]) {
      expect(mode(file), file).toBe(0o600);
    }
  });

  it("tightens a database an older version left readable by others", async () => {
    const older = await startTestApp("sqlite");
    await older.visitor().comment("wifi", "written by an older version");
    await older.app.close();
    const file = path.join(older.dataDir, "engage.sqlite");
    chmodSync(file, 0o644);
    const restarted = await startTestApp("sqlite", { dataDir: older.dataDir });
    try {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(`${file}-wal`).mode & 0o777).toBe(0o600);
    } finally {
      await restarted.close();
      await older.close();
    }
  });

  it("tightens a DATA_DIR an older version left readable by others, saying so once, on a start and from the command line", async () => {
    const older = await startTestApp("sqlite");
    await older.app.close();
    const dir = older.dataDir;
    const mode = () => statSync(dir).mode & 0o777;
    const said = (lines: { msg?: string }[]) =>
      lines.filter((line) => line.msg?.includes("readable by other users")).map((line) => line.msg);
    chmodSync(dir, 0o755);
    try {
      for (const expected of [
        [`DATA_DIR ${dir} was readable by other users (0755): made 0700`],
        [],
      ]) {
        const logs = capturedLogs("info");
        const started = await startTestApp("sqlite", { dataDir: dir, logger: logs.logger });
        await started.app.close();
        expect(mode()).toBe(0o700);
        expect(said(logs.lines)).toEqual(expected);
      }
      chmodSync(dir, 0o750);
      const run = await admin(adminEnv(older), "subscribers", "list");
      expect(run.code).toBe(0);
      expect(run.stderr).toBe(`DATA_DIR ${dir} was readable by other users (0750): made 0700\n`);
      expect(mode()).toBe(0o700);
      // Root may change any folder, and still leaves another user's alone.
      if (process.getuid?.() === 0) {
        chmodSync(dir, 0o755);
        chownSync(dir, 65534, 65534);
        const logs = capturedLogs("info");
        const started = await startTestApp("sqlite", { dataDir: dir, logger: logs.logger });
        await started.app.close();
        expect(mode()).toBe(0o755);
        expect(said(logs.lines)).toEqual([
          `DATA_DIR ${dir} is readable by other users (0755) and is not this user's to change: its owner should chmod 700 it`,
        ]);
        const again = await admin(adminEnv(older), "subscribers", "list");
        expect(again.code).toBe(0);
        expect(again.stderr).toContain("is not this user's to change");
      }
    } finally {
      await older.close();
    }
  });

  it("leaves a DATA_DIR shared by every user (sticky, as /tmp) as it is, and says so", async () => {
    const older = await startTestApp("sqlite");
    await older.app.close();
    const dir = older.dataDir;
    chmodSync(dir, 0o1777);
    try {
      const logs = capturedLogs("info");
      const started = await startTestApp("sqlite", { dataDir: dir, logger: logs.logger });
      await started.app.close();
      expect(statSync(dir).mode & 0o7777).toBe(0o1777);
      expect(logs.lines.map((line) => line.msg)).toContain(
        `DATA_DIR ${dir} is shared by other users (1777): make it a folder of its own, chmod 700`,
      );
    } finally {
      chmodSync(dir, 0o700);
      await older.close();
    }
  });

  it("keeps data and visitors' identities across a restart", async () => {
    const alex = t.visitor();
    await alex.comment("wifi", "before the restart");
    const restarted = await startTestApp("sqlite", { dataDir: t.dataDir });
    try {
      const returning = restarted.visitor();
      returning.cookie = alex.cookie;
      const { comments } = seen(await returning.get("/api/items/science/wifi/comments"));
      expect(comments).toMatchObject([{ content: "before the restart", mine: true }]);
    } finally {
      await restarted.close();
    }
  });

  it("signs cookies with COOKIE_SECRET when it is set, writing no secret file", async () => {
    const custom = await startTestApp("sqlite", { env: { COOKIE_SECRET: "s".repeat(32) } });
    try {
      expect(existsSync(path.join(custom.dataDir, "cookie-secret"))).toBe(false);
      const alex = custom.visitor();
      await alex.react("science", "wifi", "like");
      // A cookie from the other secret is not recognised here.
      const stranger = custom.visitor();
      const other = t.visitor();
      await other.react("science", "wifi", "love");
      stranger.cookie = other.cookie;
      expect(
        json(await stranger.get("/api/items/science/wifi/reactions"), reactionsResponseSchema).mine,
      ).toEqual([]);
      expect(
        json(await alex.get("/api/items/science/wifi/reactions"), reactionsResponseSchema).mine,
      ).toEqual(["like"]);
    } finally {
      await custom.close();
    }
  });
});

describe("security headers", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite", {
      clientFiles: {
        "index.html":
          '<!doctype html><title>home</title><script>document.documentElement.classList.add("js")</script>' +
          '<script type="application/ld+json">{"@type":"WebSite"}</script>',
      },
    });
  });
  afterAll(() => t?.close());

  it("gives pages the site's policy: their own inline scripts, no framing, no plug-ins", async () => {
    const page = await t.app.inject({ method: "GET", url: "/" });
    const policy = String(page.headers["content-security-policy"]);
    // One hash: the script a browser runs. The JSON-LD is data, never run, so not listed.
    const runs = createHash("sha256")
      .update('document.documentElement.classList.add("js")')
      .digest("base64");
    expect(policy).toContain(`script-src 'self' 'wasm-unsafe-eval' 'sha256-${runs}';`);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("object-src 'none'");
    // The confetti's worker is made from a blob: URL.
    expect(policy).toContain("worker-src 'self' blob:");
    // Framed by nobody, in both headers' words: SAMEORIGIN would contradict frame-ancestors.
    expect(page.headers["x-frame-options"]).toBe("DENY");
    const permissions = String(page.headers["permissions-policy"]);
    for (const feature of ["camera", "microphone", "geolocation", "payment", "usb"]) {
      expect(permissions).toContain(`${feature}=()`);
    }
    expect(page.headers["cross-origin-opener-policy"]).toBe("same-origin");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("gives API answers, which are never pages, a policy that allows nothing", async () => {
    const answers = [
      await t.app.inject({ method: "GET", url: "/api/items/science/wifi/reactions" }),
      await t.app.inject({ method: "GET", url: "/api/items/science/no-such-post/comments" }),
      await t.app.inject({
        method: "POST",
        url: "/api/items/science/wifi/comments",
        headers: { origin: "https://elsewhere.example", "content-type": "application/json" },
        payload: "{}",
      }),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 404, 403]);
    for (const answer of answers) {
      expect(answer.headers["content-security-policy"]).toBe(
        "default-src 'none';frame-ancestors 'none'",
      );
      expect(answer.headers["x-content-type-options"]).toBe("nosniff");
      expect(answer.headers["cross-origin-resource-policy"]).toBe("same-origin");
      expect(answer.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
      // Headers about how a rendered document behaves have nothing to govern here.
      expect(answer.headers["x-frame-options"]).toBeUndefined();
      expect(answer.headers["permissions-policy"]).toBeUndefined();
      expect(answer.headers["cross-origin-opener-policy"]).toBeUndefined();
    }
  });
});

describe("Strict-Transport-Security", () => {
  it("is sent on pages and API answers when SITE_URL is https, for a year", async () => {
    const t = await startTestApp("sqlite", { env: { SITE_URL: "https://ewe.test" } });
    try {
      for (const url of ["/", "/healthz", "/api/items/science/wifi/reactions"]) {
        const response = await t.app.inject({ method: "GET", url });
        expect(response.headers["strict-transport-security"], url).toBe("max-age=31536000");
      }
      // Also on an answer without a body, which carries few headers (decision 079).
      const view = await t.app.inject({
        method: "POST",
        url: "/api/readers/view?p=%2Fscience",
        headers: { origin: "https://ewe.test", "user-agent": "Mozilla/5.0 Firefox/133.0" },
      });
      expect(view.statusCode).toBe(204);
      expect(view.headers["strict-transport-security"]).toBe("max-age=31536000");
      expect(view.headers["content-security-policy"]).toBeUndefined();
    } finally {
      await t.close();
    }
  });

  it("is not sent when SITE_URL is plain http (development)", async () => {
    const t = await startTestApp("sqlite");
    try {
      const response = await t.app.inject({ method: "GET", url: "/" });
      expect(response.headers["strict-transport-security"]).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
