import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, openSync } from "node:fs";
import net from "node:net";
import { performance } from "node:perf_hooks";
import { readOwnerProfile } from "../content/owner.ts";
import { startArguments, startEnvironment } from "../scripts/build-server.ts";
import { httpVisitor, type Visitor, type VisitorResponse } from "../tests/support/visitor.ts";
import { cpuMs } from "./process-stats.ts";

/*
 * The server as `npm start` runs it (package.json's "start", through
 * startArguments and startEnvironment), at the default LOG_LEVEL, on SQLite and loopback, for
 * `npm run bench` and `npm run bench:start`; and the bench's seed: ten
 * readers, 100 comments and 40 reactions on the post the reads fetch.
 */

export type ServerUnderTest = {
  child: ChildProcess;
  url: string;
  /** From the spawn to the first connection the server accepted. */
  startMs: number;
  /** The server's user and system CPU time at that moment. */
  startCpuMs: number;
};

/** Resolves once `port` accepts a connection; rejects if `child` exits first. */
async function accepting(child: ChildProcess, port: number): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (accepted) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export async function startServerUnderTest({
  port,
  clientRoot,
  dataDir,
  smtpUrl,
  logFile,
  env: extra = {},
  args = startArguments(),
}: {
  port: number;
  clientRoot: string;
  dataDir: string;
  smtpUrl: string;
  /** Where its JSON log goes, as an operator's log collector would keep it. */
  logFile: string;
  env?: Record<string, string>;
  /** Node's arguments, when not `npm start`'s. */
  args?: string[];
}): Promise<ServerUnderTest> {
  const { DATABASE_URL: _sqliteOnly, LOG_LEVEL: _defaultLevel, ...env } = process.env;
  const url = `http://127.0.0.1:${port}`;
  const log = openSync(logFile, "a");
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: {
      // What npm start sets, unless the bench's own environment says otherwise.
      ...startEnvironment(),
      ...env,
      NODE_ENV: "production",
      CLIENT_ROOT: clientRoot,
      SITE_URL: url,
      HOST: "127.0.0.1",
      PORT: String(port),
      CONTACT_EMAIL: "bench@example.com",
      SMTP_URL: smtpUrl,
      MAIL_FROM: "bench@example.com",
      // The sample under its own name: production refuses its stories under any other.
      SITE_OWNER_NAME: readOwnerProfile().name,
      MAIL_RATE_PER_MINUTE: "0",
      DATA_DIR: dataDir,
      COOKIE_SECRET: randomBytes(32).toString("hex"),
      RATE_LIMIT_WRITES_PER_VISITOR: "1000000000",
      RATE_LIMIT_WRITES_PER_IP: "1000000000",
      // Its writers are programs posting the same text: it measures the write
      // path, not the comment form's timing or the repeat check.
      COMMENT_MIN_SECONDS: "0",
      COMMENT_DUPLICATE_MINUTES: "0",
      ...extra,
    },
    // Its start-up lines go to the terminal, its JSON log to the file.
    stdio: ["ignore", log, "inherit"],
  });
  closeSync(log);
  try {
    await accepting(child, port);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  const startMs = performance.now() - started;
  return { child, url, startMs, startCpuMs: cpuMs(child.pid ?? 0) };
}

/** The answer, once it is a success: the bench measures requests that work. */
export async function succeeded(request: Promise<VisitorResponse>): Promise<VisitorResponse> {
  const response = await request;
  if (response.statusCode >= 300) throw new Error(`${response.statusCode} ${response.body}`);
  return response;
}

/** A visitor with a cookie, made by its first write (a reaction on a story the bench never reads). */
export async function newVisitor(baseUrl: string, index: number): Promise<Visitor> {
  const visitor = httpVisitor(baseUrl, { origin: baseUrl });
  await succeeded(visitor.react("mythology", "garuda", "idea", `Bench ${index}`));
  if (!visitor.cookie) throw new Error("no visitor cookie was set");
  return visitor;
}

/** 100 comments and 40 reactions on the post the reads fetch; resolves with its ten commenters. */
export async function seed(baseUrl: string): Promise<Visitor[]> {
  const commenters = await Promise.all(
    Array.from({ length: 10 }, (_, i) => newVisitor(baseUrl, i)),
  );
  const commenter = (i: number) => commenters[i % commenters.length] as Visitor;
  for (let i = 0; i < 100; i += 1) {
    // Written in sentences, as the spam defences expect of a person.
    const content = `Comment ${i}: steam and heat relax the cotton fibres, and the weight of the iron presses them flat while they cool.`;
    await succeeded(commenter(i).comment("ironing", content, `Reader ${i % 10}`));
  }
  const reactionTypes = ["like", "love", "dislike", "idea"];
  for (let i = 0; i < 40; i += 1) {
    const type = reactionTypes[i % 4] ?? "like";
    await succeeded(commenter(i).react("science", "ironing", type, `R${i}`));
  }
  return commenters;
}
