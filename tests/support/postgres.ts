import { execFile, execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const execFileAsync = promisify(execFile);

/**
 * A throwaway PostgreSQL server for tests and benchmarks: a fresh cluster in a
 * temp directory on a loopback port, stopped and deleted afterwards. Debian's
 * `postgresql` package is installed when missing (root only, as on CI).
 * Set TEST_DATABASE_URL to use an existing server instead.
 */
export type PostgresServer = {
  /** Superuser URL of the `postgres` database. */
  url: string;
  /** Stops and deletes the cluster. */
  stop(): Promise<void>;
  /** Takes the server down, disconnecting every client, keeping its data. */
  halt(): Promise<void>;
  /** Brings a halted server back on the same port. */
  resume(): Promise<void>;
};

const debianRoot = "/usr/lib/postgresql";

function findBinDir(): string | null {
  if (!existsSync(debianRoot)) return null;
  const versions = readdirSync(debianRoot)
    .filter((version) => existsSync(path.join(debianRoot, version, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(debianRoot, versions[0], "bin") : null;
}

function installPostgres(): void {
  if (process.getuid?.() !== 0) {
    throw new Error(
      "PostgreSQL is not installed. Install Debian's `postgresql` package or set TEST_DATABASE_URL.",
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update"], { stdio: "ignore", env });
  execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "postgresql"], {
    stdio: "ignore",
    env,
  });
}

/** A port nobody listens on now, for a server that must know its address before it starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

/**
 * Runs a PostgreSQL tool; PostgreSQL refuses to run as root, so as root the
 * tools run as the `postgres` user. Asynchronous, so the clients under test
 * keep seeing their connections' events while the server stops or starts.
 */
async function runAsOwner(command: string, args: string[]): Promise<void> {
  const [file, argv] =
    process.getuid?.() === 0
      ? ["runuser", ["-u", "postgres", "--", command, ...args]]
      : [command, args];
  try {
    await execFileAsync(file, argv, { encoding: "utf8" });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${path.basename(command)} failed:\n${stdout ?? ""}\n${stderr ?? ""}`);
  }
}

export type PostgresOptions = {
  /** More server settings (`-c name=value`), for a cluster that only one kind of run uses. */
  settings?: Record<string, string>;
};

export async function startPostgres({
  settings = {},
}: PostgresOptions = {}): Promise<PostgresServer> {
  const existing = process.env.TEST_DATABASE_URL;
  if (existing) {
    const unsupported = async () => {
      throw new Error("TEST_DATABASE_URL's server cannot be halted by the tests");
    };
    return { url: existing, async stop() {}, halt: unsupported, resume: unsupported };
  }

  let bin = findBinDir();
  if (!bin) {
    installPostgres();
    bin = findBinDir();
    if (!bin) throw new Error(`PostgreSQL was installed but no initdb is under ${debianRoot}`);
  }

  const dir = mkdtempSync(path.join(os.tmpdir(), "ewe-pg-"));
  const data = path.join(dir, "data");
  if (process.getuid?.() === 0) {
    const owner = (flag: string) =>
      Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }));
    execFileSync("chown", [`${owner("-u")}:${owner("-g")}`, dir]);
  }
  chmodSync(dir, 0o700);

  const port = await freePort();
  const pgCtl = path.join(bin, "pg_ctl");
  const more = Object.entries(settings)
    .map(([name, value]) => ` -c ${name}=${value}`)
    .join("");
  const start = () =>
    runAsOwner(pgCtl, [
      "-D",
      data,
      "-l",
      path.join(dir, "server.log"),
      "-w",
      "-o",
      // Durability is pointless for a throwaway cluster; speed is not.
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=500 -c fsync=off -c synchronous_commit=off -c full_page_writes=off${more}`,
      "start",
    ]);
  // "fast" disconnects everyone like a restart does, but keeps the commits
  // that synchronous_commit=off has not flushed yet.
  const halt = (mode = "fast") => runAsOwner(pgCtl, ["-D", data, "-m", mode, "-w", "stop"]);
  try {
    await runAsOwner(path.join(bin, "initdb"), [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "--encoding=UTF8",
      "--no-locale",
      // Nor does it wait for its files to reach the disk: about 3 s of the
      // browser tests' start, where the site on PostgreSQL is made first.
      "--no-sync",
    ]);
    await start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      try {
        await halt("immediate");
      } catch {
        // Already halted by a test.
      }
      rmSync(dir, { recursive: true, force: true });
    },
    halt: () => halt(),
    resume: start,
  };
}

/**
 * One kept connection per URL, let go after `idleMs` unused: a new connection
 * for each statement (a backend process started, a catalogue read, then
 * ended) cost about 9 ms of CPU, a statement on a kept one 0.3
 * (docs/decisions/028-how-the-suite-stays-fast.md). A kept connection ended
 * by the server (its database dropped, the server halted by a fault test) is
 * let go of, not thrown.
 */
const kept = new Map<string, pg.Pool>();
export function keptConnection(url: string, idleMs: number): pg.Pool {
  let pool = kept.get(url);
  if (!pool) {
    pool = new pg.Pool({
      connectionString: url,
      max: 1,
      idleTimeoutMillis: idleMs,
      allowExitOnIdle: true,
    });
    pool.on("error", () => {});
    kept.set(url, pool);
  }
  return pool;
}

/** The server's own, kept a minute: files create and drop a database each, seconds apart. */
const adminFor = (serverUrl: string) => keptConnection(serverUrl, 60_000);

/**
 * A new database on the server, so concurrent test files never share tables:
 * empty, or a copy of `template` (a database nobody is connected to). The
 * copy is of the template's files, not written through the WAL block by
 * block (PostgreSQL 15's default): with a migrated template, about 10 ms
 * less of the server's CPU a database, and its drop about 5 ms less
 * (docs/benchmarks.md, "Test suite").
 */
export async function createDatabase(
  serverUrl: string,
  prefix = "ewe_test",
  template?: string,
): Promise<string> {
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await adminFor(serverUrl).query(
    `create database ${name}${template ? ` template ${template} strategy file_copy` : ""}`,
  );
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.pathname = "/postgres";
  await adminFor(url.toString()).query(`drop database if exists ${name} with (force)`);
}
