import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { DatabaseSync } from "node:sqlite";
import nodemailer from "nodemailer";
import { runAdmin } from "../server/cli/run-admin.ts";
import { renderEdition } from "../server/newsletter/editions.ts";
import { editionMail } from "../server/newsletter/messages.ts";
import { createDkimKey, type DkimKey, dkimSigning, writeDkimKey } from "../server/outbox/dkim.ts";
import { smtpTransportOptions } from "../server/outbox/mailer.ts";
import { startCountingSink } from "../tests/server/support/smtp.ts";
import { freePort } from "../tests/support/postgres.ts";
import { rssMb, settledRssMb } from "./process-stats.ts";
import { startServerUnderTest } from "./server-under-test.ts";
import { atLeast, atMost, type Verdict } from "./verdict.ts";

/*
 * One newsletter edition to BENCH_SUBSCRIBERS confirmed subscribers (default
 * 10,000), queued with the owner's `newsletter send` and sent by a server of
 * its own (as `npm start` runs it, SQLite, no pacing) to a loopback SMTP sink that
 * counts the mails each address gets. Beside it, in the same run, the floor:
 * nodemailer alone sending the same mails to the same sink over as many
 * pooled connections as the server keeps (MAIL_CONNECTIONS), with no database
 * and nothing else. The server's memory is sampled from /proc while it
 * queues and sends, against its own RSS just before (docs/architecture.md,
 * "The outbox"). Both sign every mail with the same 2048-bit RSA DKIM key
 * (the server from its DATA_DIR, as `admin mail dkim` leaves it), and the
 * server sends each from its own VERP return path, as a site with
 * BOUNCE_ADDRESS does (docs/decisions/047-list-health.md).
 */

/** Mails in flight, for the server and the floor alike. */
const mailConnections = 4;
/** How far the server's RSS may rise over its idle figure while it queues and sends. */
const rssBudgetMb = 64;
/** The share of the bare nodemailer rate the server must reach. */
const floorShare = 0.8;

const editionMarkdown = `${"Some **Markdown** text, with [a link](/about). ".repeat(40)}\n`;

const address = (i: number) => `bench-${i}@example.com`;

/**
 * The floor: `count` edition mails, each addressed and given its unsubscribe
 * link as the server's are, handed to one pooled nodemailer transport with
 * `mailConnections` in flight, from a process of its own (as the server is),
 * so the sink in this process does not share its event loop. Mails per second.
 */
async function nodemailerFloor(
  smtpUrl: string,
  siteUrl: string,
  count: number,
  keyFile: string,
): Promise<number> {
  const sender = fork(import.meta.filename, ["floor", smtpUrl, siteUrl, String(count), keyFile], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise<number>((resolve, reject) => {
    sender.once("message", (rate) => resolve(Number(rate)));
    sender.once("exit", (code) => reject(new Error(`the floor's sender exited (${code})`)));
  });
}

async function sendFloor(
  smtpUrl: string,
  siteUrl: string,
  count: number,
  keyFile: string,
): Promise<number> {
  const edition = renderEdition("Bench edition", editionMarkdown, siteUrl);
  const key = JSON.parse(readFileSync(keyFile, "utf8")) as DkimKey;
  const transport = nodemailer.createTransport({
    ...smtpTransportOptions(smtpUrl, mailConnections),
    dkim: dkimSigning(key),
  });
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const mail = editionMail(
        edition,
        { to: `floor-${i}@example.com`, token: randomBytes(32).toString("base64url") },
        siteUrl,
      );
      await transport.sendMail({ from: "bench@example.com", ...mail });
    }
  };
  await Promise.all(Array.from({ length: mailConnections }, lane));
  const seconds = (performance.now() - started) / 1000;
  transport.close();
  return count / seconds;
}

if (process.argv[2] === "floor") {
  const [, , , smtpUrl = "", siteUrl = "", count = "0", keyFile = ""] = process.argv;
  const rate = await sendFloor(smtpUrl, siteUrl, Number(count), keyFile);
  process.send?.(rate, () => process.exit(0));
}

/** Resolves once the server answers its health check; rejects if it exits first. */
export type NewsletterBenchOptions = {
  subscribers: number;
  /** The built site the server serves. */
  clientRoot: string;
  /** A scratch folder of the run's; the server's database goes under it. */
  scratch: string;
  /** Prints one line of the run (and keeps it for --record). */
  report: (name: string, values: string) => void;
  /** Node's arguments for the server, when not `npm start`'s. */
  args?: string[];
};

/** Runs the newsletter part of `npm run bench`; its rows against their bounds. */
export async function benchNewsletter({
  subscribers,
  clientRoot,
  scratch,
  report,
  args,
}: NewsletterBenchOptions): Promise<Verdict[]> {
  const sink = await startCountingSink({ maxClients: 64 });
  const port = await freePort();
  const siteUrl = `http://127.0.0.1:${port}`;
  const dataDir = path.join(scratch, "newsletter-data");
  let server: ChildProcess | undefined;
  // The key `admin mail dkim` would make, where the server reads it.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const keyFile = path.join(dataDir, "dkim-key.json");
  writeDkimKey(
    keyFile,
    createDkimKey({ algorithm: "rsa", domain: "example.com", selector: "bench" }),
  );
  try {
    const floorRate = await nodemailerFloor(sink.url, siteUrl, subscribers, keyFile);
    report(
      `newsletter: the floor, bare nodemailer, ${subscribers.toLocaleString("en")} mails`,
      `${Math.round(floorRate).toLocaleString("en")} mails/s (${mailConnections} connections, no database, DKIM-signed with RSA 2048)`,
    );
    const floorMails = sink.accepted;

    // As `npm start` runs it (bench/server-under-test.ts), with the connections
    // the floor uses; its JSON log beside its database.
    server = (
      await startServerUnderTest({
        port,
        clientRoot,
        dataDir,
        smtpUrl: sink.url,
        logFile: path.join(scratch, "newsletter-server.log"),
        env: { MAIL_CONNECTIONS: String(mailConnections), BOUNCE_ADDRESS: "bounces@example.com" },
        ...(args ? { args } : {}),
      })
    ).child;
    const pid = server.pid ?? 0;

    // Confirmed subscribers written straight into the table the server made.
    const db = new DatabaseSync(path.join(dataDir, "engage.sqlite"));
    db.exec("pragma busy_timeout = 5000");
    const insert = db.prepare(
      "insert into subscribers (email, unsubscribe_token, created_at, status, confirmed_at) values (?, ?, ?, 'confirmed', ?)",
    );
    const now = new Date().toISOString();
    db.exec("begin");
    for (let i = 0; i < subscribers; i += 1) {
      insert.run(address(i), randomBytes(32).toString("base64url"), now, now);
    }
    db.exec("commit");
    db.close();
    const editionDir = path.join(scratch, "editions");
    mkdirSync(editionDir, { recursive: true });
    const editionFile = path.join(editionDir, "bench-edition.md");
    writeFileSync(editionFile, `---\nsubject: Bench edition\n---\n${editionMarkdown}`);

    // Idle: once the server has settled after its start, as the reads' bench measures it.
    const idle = await settledRssMb(pid);
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(pid));
    }, 50);

    const started = performance.now();
    const queued = await runAdmin(["newsletter", "send", editionFile, "--yes"], {
      env: { DATA_DIR: dataDir, SITE_URL: siteUrl },
      stdout: { write: () => true },
      stderr: process.stderr,
    });
    if (queued !== 0) throw new Error("newsletter send failed");
    const queuedMs = performance.now() - started;
    const deadline = Date.now() + Math.max(120_000, subscribers * 20);
    while (sink.accepted - floorMails < subscribers) {
      if (server.exitCode !== null) throw new Error("the newsletter server stopped");
      if (Date.now() > deadline) throw new Error(`${sink.accepted - floorMails} mails arrived`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssMb(pid));
    // A mail that came twice arrives after the count was reached: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 500));

    const rate = subscribers / seconds;
    let wrong = 0;
    for (let i = 0; i < subscribers; i += 1) {
      if (sink.perAddress.get(address(i)) !== 1) wrong += 1;
    }
    report(
      `newsletter: queue one edition for ${subscribers.toLocaleString("en")} subscribers`,
      `${Math.round(queuedMs).toLocaleString("en")} ms`,
    );
    report(
      "newsletter: queue and send it over loopback SMTP, no pacing, DKIM-signed, VERP return paths",
      `${seconds.toFixed(1)} s (${Math.round(rate).toLocaleString("en")} mails/s, ${(rate / floorRate).toFixed(2)}× the floor), server RSS idle ${Math.round(idle)} MB, peak ${Math.round(peak)} MB`,
    );
    return [
      atMost(
        `newsletter to ${subscribers.toLocaleString("en")}: server RSS over idle`,
        Math.round(peak - idle),
        rssBudgetMb,
        " MB",
      ),
      atLeast(
        "newsletter: send rate × bare nodemailer",
        Number((rate / floorRate).toFixed(2)),
        floorShare,
        "×",
      ),
      atMost("newsletter: addresses without exactly one mail", wrong, 0, ""),
    ];
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once("exit", resolve));
      server.kill("SIGTERM");
      await exited;
    }
    await sink.close();
  }
}
