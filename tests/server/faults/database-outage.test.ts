import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { errorResponseSchema } from "../../../contract/api.ts";
import { fakeBuiltSite, fragment } from "../../support/built-site.ts";
import { createDatabase, startPostgres } from "../../support/postgres.ts";
import {
  generousLimits,
  type ServerProcess,
  startServerProcess,
} from "../../support/server-process.ts";
import { httpVisitor, type VisitorResponse } from "../../support/visitor.ts";
import { waitFor } from "../../support/wait-for.ts";
import { json, readinessSchema } from "../support/test-app.ts";

/*
 * The site on PostgreSQL, and PostgreSQL stops (docs/health.md, "Health,
 * process managers and shutdown"): every page is still answered 200 from its
 * built HTML, without the parts the server fills in from the database, and no
 * answer of any route says why the database failed (its address, the
 * driver's message).
 */

/** An item's own page, as app/pages/[section]/[slug].astro leaves it for the server. */
const itemPage = (kind: string, id: string, title: string) => {
  const base = {
    "@context": "https://schema.org",
    "@graph": [{ "@type": "BlogPosting", "@id": `http://localhost:3000/${kind}/${id}#article` }],
  };
  const attribute = JSON.stringify(base).replace(/&/g, "&amp;").replace(/"/g, "&quot;");
  return `<!doctype html><html><head><ewe-fragment slot="head" data-for="${kind}:${id}" data-part="jsonld" data-base="${attribute}"></ewe-fragment></head><body>
<h1>${title}</h1><p>${fragment(`${kind}:${id}`, "summary", title)}</p>
<section>${fragment(`${kind}:${id}`, "comments")}</section></body></html>`;
};

/** A list page with one card per item, as app/pages/science.astro and mythology.astro leave them. */
const listPage = (kind: string, heading: string, items: [string, string][]) =>
  `<!doctype html><html><head>${fragment(kind, "jsonld").replace("<ewe-fragment", '<ewe-fragment slot="head"')}</head><body><h1>${heading}</h1>
${items
  .map(
    ([id, title]) =>
      `<details><summary>${title} ${fragment(`${kind}:${id}`, "summary", title)}</summary><div>${fragment(`${kind}:${id}`, "comments")}</div></details>`,
  )
  .join("\n")}</body></html>`;

/** Each page of the built site by its file, with a text only it carries. */
const pages: Record<string, { text: string; html: string }> = {
  "index.html": { text: "Engineering, explained", html: "" },
  "about/index.html": { text: "About the engineer", html: "" },
  "technical/index.html": { text: "Technical articles", html: "" },
  "technical/borrow-checker/index.html": { text: "Living with the borrow checker", html: "" },
  "science/index.html": {
    text: "Science, plainly",
    html: listPage("science", "Science, plainly", [
      ["soap", "How does soap clean?"],
      ["wifi", "How does Wi-Fi work?"],
    ]),
  },
  "science/soap/index.html": {
    text: "How does soap clean?",
    html: itemPage("science", "soap", "How does soap clean?"),
  },
  "mythology/index.html": {
    text: "Stories retold",
    html: listPage("mythology", "Stories retold", [["garuda", "Garuda"]]),
  },
  "mythology/garuda/index.html": {
    text: "Garuda",
    html: itemPage("mythology", "garuda", "Garuda"),
  },
};
const siteFiles = Object.fromEntries(
  Object.entries(pages).map(([file, { text, html }]) => [
    file,
    html ||
      `<!doctype html><html><head><title>${text}</title></head><body><h1>${text}</h1></body></html>`,
  ]),
);

/** Every address a page answers at (server/web/site-files.ts): `/x` and `/x/` for `x/index.html`. */
const pageRoutes = Object.entries(pages).flatMap(([file, { text }]) => {
  const folder = file.slice(0, -"index.html".length);
  const addresses = folder === "" ? ["/"] : [`/${folder.slice(0, -1)}`, `/${folder}`];
  return addresses.map((address) => ({ address, text }));
});

it("serves every page from its built HTML and never tells why, while PostgreSQL is stopped", async () => {
  const postgres = await startPostgres();
  const port = new URL(postgres.url).port;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-outage-"));
  let server: ServerProcess | undefined;
  try {
    server = await startServerProcess({
      env: {
        CLIENT_ROOT: fakeBuiltSite(siteFiles),
        DATA_DIR: dataDir,
        DATABASE_URL: await createDatabase(postgres.url),
        ...generousLimits,
      },
    });
    const { url } = server;
    const alex = httpVisitor(url);
    const page = (address: string) => httpVisitor(url).get(address);
    const readiness = async () => {
      const response = await fetch(`${url}/readyz`);
      return {
        code: response.status,
        body: json({ body: await response.text() }, readinessSchema),
      };
    };

    // While the database answers, the item pages carry their engagement.
    expect((await alex.react("science", "soap", "like")).statusCode).toBe(201);
    expect((await alex.react("mythology", "garuda", "love")).statusCode).toBe(201);
    for (const { address } of pageRoutes) expect((await page(address)).statusCode).toBe(200);
    expect((await page("/science/soap")).body).toContain("1 reaction");
    expect((await page("/mythology")).body).toContain("1 reaction");

    await postgres.halt();
    // Unready, and deaf to live events: nothing read before is trusted any more.
    await waitFor(
      async () => {
        const { code, body } = await readiness();
        return code === 503 && body.liveEvents === "reconnecting";
      },
      { what: "unready" },
    );

    const leaks = (answer: VisitorResponse, what: string) => {
      for (const secret of ["ECONNREFUSED", "127.0.0.1", "connect ", "postgres"]) {
        expect(answer.body, `${what} names ${secret}`).not.toContain(secret);
      }
      expect(answer.body, `${what} names the database's port`).not.toMatch(
        new RegExp(`\\b${port}\\b`),
      );
    };

    // Twice: the second round is what a page kept from the first would answer.
    for (const round of [1, 2]) {
      for (const { address, text } of pageRoutes) {
        const answer = await page(address);
        const what = `GET ${address} (round ${round})`;
        expect(answer.statusCode, what).toBe(200);
        expect(answer.headers["content-type"], what).toMatch(/^text\/html/);
        expect(answer.body, what).toContain(`<h1>${text}</h1>`);
        // The built page, its live parts left out rather than left as placeholders.
        expect(answer.body, what).not.toContain("<ewe-fragment");
        expect(answer.body, what).not.toContain("1 reaction");
        leaks(answer, what);
      }
    }

    // The API says the database is away, and when to try again.
    const apiCalls: [string, () => Promise<VisitorResponse>][] = [
      ["GET comments", () => alex.get("/api/items/science/soap/comments")],
      ["GET reactions", () => alex.get("/api/items/mythology/garuda/reactions")],
      ["GET your data", () => alex.get("/api/your-data")],
      ["POST comment", () => alex.comment("soap", "Written while the database is away")],
      ["POST reaction", () => alex.react("science", "wifi", "idea")],
      ["DELETE reaction", () => alex.delete("/api/items/science/soap/reactions/like")],
      ["POST your data deletion", () => alex.post("/api/your-data/delete", { confirm: true })],
    ];
    for (const [what, call] of apiCalls) {
      const answer = await call();
      expect(answer.statusCode, what).toBe(503);
      expect(answer.headers["retry-after"], what).toMatch(/^\d+$/);
      expect(json(answer, errorResponseSchema), what).toMatchObject({
        error: { code: "service_unavailable", message: expect.stringMatching(/database/) },
      });
      leaks(answer, what);
    }

    // Routes that need the owner's session cannot check it: refused, not explained.
    const owner = { cookie: `ewe_owner=${"a".repeat(43)}`, origin: server.siteUrl };
    for (const address of ["/admin/", "/api/admin/overview"]) {
      const response = await fetch(`${url}${address}`, { headers: owner, redirect: "manual" });
      const answer = { statusCode: response.status, headers: {}, body: await response.text() };
      expect(answer.statusCode, `GET ${address}`).toBe(503);
      leaks(answer, `GET ${address}`);
    }

    // The pages said so once, not once a request.
    const fallbacks = server.logs.filter(
      (line) => line.level === 40 && String(line.msg).includes("pages are served as built"),
    );
    expect(fallbacks).toHaveLength(1);
    // No answer was a 500.
    expect(server.logs.filter((line) => line.res?.statusCode === 500)).toEqual([]);

    // Back, the pages carry their engagement again.
    await postgres.resume();
    await waitFor(async () => (await page("/science/soap")).body.includes("1 reaction"), {
      what: "the engagement back on the page",
      timeoutMs: 15_000,
    });
  } finally {
    await server?.stop("SIGKILL");
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
