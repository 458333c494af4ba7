import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

/**
 * The real server, `node server/main.ts`, as a child process on a loopback
 * port the system picks: for what only a process shows (signals, exit codes,
 * its log output, being killed, two instances side by side).
 */
export type ServerProcess = {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The SITE_URL it runs with: writes must carry this Origin. */
  siteUrl: string;
  /** Every line the server wrote to stdout, parsed (its logs are JSON). */
  readonly logs: LogLine[];
  /** Everything written to stdout and stderr, as it came. */
  output(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<Exit>;
  /** Sends a signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
  /** Resolves with the first log line (already written or still to come) that `match` accepts. */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
};

/**
 * One line of the server's JSON log, as tests read it: pino's fields, and a
 * request and its answer as server/logging.ts writes them; any other field a
 * line carries is unknown until a test looks at it. A line that is not JSON
 * is kept as `unparsed`, with no level.
 */
export type LogLine = {
  level?: number;
  msg?: string;
  req?: { method: string; url: string; host?: string; remoteAddress?: string };
  res?: { statusCode: number };
  [field: string]: unknown;
};
export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export const projectRoot = path.resolve(import.meta.dirname, "../..");

/**
 * The SITE_URL of a server process unless a test sets its own: a loopback
 * origin, accepted in production too. Clients send it as their Origin, as a
 * browser on the site would, whatever address they connect to.
 */
export const processSiteUrl = "http://localhost:3000";

/**
 * The faked clock of a run under libfaketime (docs/testing.md, "At another hour"), which
 * a child process keeps only if it is handed on: else the site and its command line
 * would run on the real clock beside a test on the faked one.
 */
export const fakedClock = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        /^(LD_PRELOAD|FAKETIME\w*)$/.test(entry[0]) && entry[1] !== undefined,
    ),
  );

/** For tests that write in bursts from one address, in a process or through inject. */
export const generousLimits = {
  RATE_LIMIT_WRITES_PER_VISITOR: "1000000",
  RATE_LIMIT_WRITES_PER_IP: "1000000",
  // Every client here is 127.0.0.1, and a closed stream is let go of a moment later.
  EVENT_STREAMS_PER_IP: "1000",
  SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR: "1000000",
};

export type ServerProcessOptions = {
  /**
   * Settings on top of a loopback address and a port the system picks. The
   * port is read from the "Server listening" line: keep LOG_LEVEL at info or below.
   */
  env: Record<string, string>;
  /** The working directory; relative settings (the default DATA_DIR) resolve from it. */
  cwd?: string;
  startTimeoutMs?: number;
  /** Node's arguments; the TypeScript sources (`server/main.ts`) unless a test runs another entry. */
  args?: string[];
};

export async function startServerProcess({
  env,
  cwd = projectRoot,
  startTimeoutMs = 60_000,
  args = [path.join(projectRoot, "server/main.ts")],
}: ServerProcessOptions): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd,
    // Only what is given: the test runner's own environment must not leak in.
    env: {
      PATH: process.env.PATH ?? "",
      ...fakedClock(),
      HOST: "127.0.0.1",
      PORT: "0",
      SITE_URL: processSiteUrl,
      // Scripts comment at once, and mails go at full speed; the comment form's
      // timing and the mail pacing have their own tests.
      COMMENT_MIN_SECONDS: "0",
      MAIL_RATE_PER_MINUTE: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });

  const logs: LogLine[] = [];
  let output = "";
  let pending = "";
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    output += chunk;
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (line.trim() === "") continue;
      try {
        logs.push(JSON.parse(line));
      } catch {
        logs.push({ unparsed: line });
      }
    }
    notify();
  });
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    output += chunk;
  });

  let hasExited = false;
  const exited = new Promise<Exit>((resolve) => {
    child.once("exit", (code, signal) => {
      hasExited = true;
      resolve({ code, signal });
      notify();
    });
  });

  function waitForLog(match: (line: LogLine) => boolean, timeoutMs = 10_000): Promise<LogLine> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const line = logs.find(match);
        if (line) {
          done();
          resolve(line);
        } else if (hasExited) {
          done();
          reject(new Error(`the server exited without that log line; it wrote:\n${output}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for a log line; the server wrote:\n${output}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  }

  let listening: LogLine;
  try {
    listening = await waitForLog(
      (line) =>
        typeof line.msg === "string" &&
        line.msg.startsWith("Server listening at http://127.0.0.1:"),
      startTimeoutMs,
    );
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }

  return {
    url: (listening.msg as string).slice("Server listening at ".length),
    siteUrl: env.SITE_URL ?? processSiteUrl,
    logs,
    output: () => output,
    exited,
    async stop(signal = "SIGTERM") {
      if (!hasExited) child.kill(signal);
      return exited;
    },
    waitForLog,
  };
}
