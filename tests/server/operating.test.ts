import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema, commentsResponseSchema } from "../../contract/api.ts";
import { fakeBuiltSite } from "../support/built-site.ts";
import { EventStream } from "../support/event-stream.ts";
import {
  generousLimits,
  projectRoot,
  type ServerProcess,
  startServerProcess,
} from "../support/server-process.ts";
import { httpVisitor } from "../support/visitor.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin } from "./support/admin.ts";
import { json } from "./support/test-app.ts";

/*
 * The owner's commands run in their own process beside a running server on
 * one SQLite file, as they would on the owner's machine: here the command
 * line runs in the test process and the server in a child process.
 */
describe("the owner's commands beside a running SQLite server", () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "ewe-operating-"));
  const dataDir = path.join(scratch, "data");
  const env = { CLIENT_ROOT: fakeBuiltSite(), DATA_DIR: dataDir, ...generousLimits };
  const ownerEnv = { DATA_DIR: dataDir };
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServerProcess({ env });
  });
  afterAll(() => server?.stop("SIGKILL"));

  it("says so in words when a second start finds the port taken", async () => {
    const port = new URL(server.url).port;
    const elsewhere = { ...env, DATA_DIR: path.join(scratch, "another-site"), PORT: port };
    await expect(startServerProcess({ env: elsewhere })).rejects.toThrow(
      `Port ${port} on 127.0.0.1 is in use: another server, or an earlier start of this one, listens there. Stop it, or set PORT.`,
    );
  });

  it("deletes a comment, and the server's viewers see it go", async () => {
    const viewer = new EventStream(server.url, "science:soap");
    try {
      await viewer.ready();
      const posted = await httpVisitor(server.url).comment("soap", "off-topic advert");
      const id = json(posted, commentResponseSchema).comment.id;
      await viewer.next("comment");

      expect((await admin(ownerEnv, "comments", "delete", String(id))).code).toBe(0);
      // The server reads events written by other processes within about a second.
      const deleted = await viewer.nth("comment", 1, 5000);
      expect(deleted.json).toMatchObject({ action: "deleted", commentId: id });
    } finally {
      viewer.close();
    }
  });

  it("does not send a reconnecting client again what its Last-Event-ID says it has seen", async () => {
    const before = new EventStream(server.url, "science:gps-navigation");
    await before.ready();
    const posted = await httpVisitor(server.url).comment("gps-navigation", "spam link");
    const added = await before.next("comment");
    before.close();
    expect(
      (
        await admin(
          ownerEnv,
          "comments",
          "delete",
          String(json(posted, commentResponseSchema).comment.id),
        )
      ).code,
    ).toBe(0);
    // The deletion is the journal's next event. The server polls for other
    // processes' events once a second: this client, which saw the deletion
    // elsewhere, most likely reconnects before that poll.
    const seen = String(Number(added.id) + 1);
    const viewer = new EventStream(server.url, "science:gps-navigation", seen);
    try {
      expect((await viewer.ready()).id).toBe(seen);
      // Once the server has read the deletion (a new stream's ready id is the
      // server's position), it would have sent it by now; the next comment is
      // the sentinel that shows it did not.
      await waitFor(
        async () => {
          const probe = new EventStream(server.url, "science:gps-navigation");
          try {
            return Number((await probe.ready()).id) >= Number(seen);
          } finally {
            probe.close();
          }
        },
        { what: "the server to read the deletion" },
      );
      await httpVisitor(server.url).comment("gps-navigation", "a real question");
      const first = await viewer.next("comment");
      expect(first.json).toMatchObject({
        action: "added",
        comment: { content: "a real question" },
      });
    } finally {
      viewer.close();
    }
  });

  it("backs up a consistent copy while writes go on", async () => {
    const writer = httpVisitor(server.url);
    let writing = true;
    let written = 0;
    const writes = (async () => {
      for (let i = 0; writing; i += 1) {
        await writer.comment("wifi", `steady ${i}`);
        written += 1;
      }
    })();
    await waitFor(async () => written >= 5, { what: "the writes to get going" });
    const out = path.join(scratch, "during-writes.sqlite");
    const run = await admin(ownerEnv, "backup", "--out", out);
    writing = false;
    await writes;
    expect(run.code).toBe(0);

    // One snapshot: every comment in the copy comes with the event its transaction wrote.
    const copy = new DatabaseSync(out, { readOnly: true });
    try {
      const comments = copy.prepare("select id from science_comments").all() as { id: number }[];
      const added = new Set(
        (copy.prepare("select data from events where type = 'comment'").all() as { data: string }[])
          .map((row) => JSON.parse(row.data))
          .filter((event) => event.action === "added")
          .map((event) => event.commentId),
      );
      expect(comments.length).toBeGreaterThan(0);
      expect(comments.filter((row) => !added.has(row.id))).toEqual([]);
    } finally {
      copy.close();
    }
  });

  it("restores only once the server is stopped, and the server comes back on the restored data", async () => {
    const out = path.join(scratch, "before-more.sqlite");
    await httpVisitor(server.url).comment("ironing", "in the backup");
    expect((await admin(ownerEnv, "backup", "--out", out)).code).toBe(0);
    await httpVisitor(server.url).comment("ironing", "made after the backup");

    const refused = await admin(ownerEnv, "restore", "--from", out);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is in use: stop the server first");

    expect(await server.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    expect((await admin(ownerEnv, "restore", "--from", out)).code).toBe(0);
    server = await startServerProcess({ env });
    const read = await httpVisitor(server.url).get("/api/items/science/ironing/comments");
    expect(json(read, commentsResponseSchema).comments.map((c) => c.content)).toEqual([
      "in the backup",
    ]);
  });
});

/**
 * Starts `server/main.ts` to its end: its exit code and what it wrote to
 * stderr. One that listens is killed at once (its code is then null).
 */
function startToEnd(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [path.join(projectRoot, "server/main.ts")], {
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    if (chunk.includes("Server listening")) child.kill("SIGKILL");
  });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stderr })));
}

describe("one server on a SQLite folder", () => {
  const dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-one-server-")), "data");
  const env = { CLIENT_ROOT: fakeBuiltSite(), DATA_DIR: dataDir, ...generousLimits };
  let first: ServerProcess | undefined;
  afterAll(() => first?.stop("SIGKILL"));

  it("refuses a second on another port, and starts again once the first is killed with kill -9", async () => {
    first = await startServerProcess({ env });
    const second = await startToEnd(env);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `another server is running on the SQLite database in DATA_DIR ${dataDir}: stop it first, or give this one a DATA_DIR of its own (several servers need PostgreSQL, docs/postgresql.md)`,
    );
    // The owner's command line still works beside the first.
    expect((await admin({ DATA_DIR: dataDir }, "subscribers", "list")).code).toBe(0);
    expect(await first.stop("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });

    first = await startServerProcess({ env });
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
  });
});
