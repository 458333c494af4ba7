import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { expect, it } from "vitest";
import { yourDataResponseSchema } from "../../../contract/your-data.ts";
import { fakeBuiltSite } from "../../support/built-site.ts";
import { generousLimits, startServerProcess } from "../../support/server-process.ts";
import { httpVisitor } from "../../support/visitor.ts";

/*
 * "Your data" (docs/product.md) for a browser that wrote for years: 40,000 comments of
 * 2,000 characters, some 80 MB of text, downloaded from a server whose heap is 96 MB.
 * The download was built whole in memory (the rows, the objects, the JSON text: about
 * ten times the text at its peak), so one reader's long history took the server down.
 * It streams a page of comments at a time now, and the server goes on serving.
 */

const many = 40_000;

it("downloads a history larger than the server's heap, and the server goes on serving", async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-your-data-heap-"));
  const server = await startServerProcess({
    env: {
      CLIENT_ROOT: fakeBuiltSite(),
      DATA_DIR: dataDir,
      NODE_OPTIONS: "--max-old-space-size=96",
      ...generousLimits,
    },
  });
  try {
    const reader = httpVisitor(server.url);
    expect((await reader.react("science", "soap", "idea")).statusCode).toBe(201);
    {
      using db = new DatabaseSync(path.join(dataDir, "engage.sqlite"), { timeout: 10_000 });
      const at = new Date(Date.now() - 86_400_000).toISOString();
      db.prepare(
        `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${many})
         insert into science_comments (post_id, content, user_name, visitor_id, created_at, updated_at, status)
         select 'soap', printf('%05d ', i) || ?, 'Alex', visitor_id, ?, ?, 'published'
         from science_reactions, n`,
      ).run("é".repeat(1994), at, at);
    }

    const downloaded = await reader.get("/api/your-data");
    expect(downloaded.statusCode).toBe(200);
    expect(downloaded.headers["content-type"]).toBe("application/json; charset=utf-8");
    const { comments } = yourDataResponseSchema.parse(JSON.parse(downloaded.body));
    expect(comments).toHaveLength(many);
    expect(comments.map((c) => c.content.slice(0, 5))).toEqual(
      Array.from({ length: many }, (_, i) => String(i + 1).padStart(5, "0")),
    );
    expect(server.output()).not.toMatch(/heap out of memory/);
    expect((await reader.get("/healthz")).statusCode).toBe(200);
  } finally {
    await server.stop("SIGKILL").catch(() => {});
  }
}, 180_000);
