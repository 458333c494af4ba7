import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerSession } from "smtp-server";

export type ReceivedMail = {
  /** The envelope's recipients. */
  to: string[];
  parsed: ParsedMail;
  /** The message as it came on the wire (a DKIM check reads these bytes). */
  raw: Buffer;
  /** The envelope's sender (MAIL FROM): the return path. */
  from: string;
  receivedAt: number;
};

/** What the server answers to one message: accept (undefined) or an SMTP error. */
export type Answer = { code: number; message: string } | undefined;

export type SmtpSink = {
  url: string;
  received: ReceivedMail[];
  /**
   * Decides the answer to each message before it is accepted; accept by
   * default. A promise holds the answer back, as a slow server does.
   */
  answer: (to: string[], session: SMTPServerSession) => Answer | Promise<Answer>;
  /** Decides the answer to each recipient (RCPT TO); accept by default. */
  recipient: (address: string) => Answer;
  /** Resolves when `predicate` holds over the received mail; checked on every arrival. */
  waitFor(predicate: (received: ReceivedMail[]) => boolean, timeoutMs?: number): Promise<void>;
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
};

/** A real SMTP server on loopback (the `smtp-server` package); mail parsed with `mailparser`. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const waiters = new Set<() => void>();
  const sink: SmtpSink = {
    url: "",
    received: [],
    answer: () => undefined,
    recipient: () => undefined,
    waitFor(predicate, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(sink.received)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out with ${sink.received.length} mails received`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    to: (address) => sink.received.filter((mail) => mail.to.includes(address)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(address, _session, callback) {
      const answer = sink.recipient(address.address);
      if (answer) {
        callback(Object.assign(new Error(answer.message), { responseCode: answer.code }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const to = session.envelope.rcptTo.map((rcpt) => rcpt.address);
      const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      new Promise<Buffer>((resolve, reject) => {
        stream.on("end", () => resolve(Buffer.concat(chunks)));
        stream.on("error", reject);
      })
        .then(async (raw) => ({ raw, parsed: await simpleParser(raw) }))
        .then(
          async ({ raw, parsed }) => {
            const answer = await sink.answer(to, session);
            if (answer) {
              callback(Object.assign(new Error(answer.message), { responseCode: answer.code }));
              return;
            }
            sink.received.push({ to, parsed, raw, from, receivedAt: Date.now() });
            callback();
            for (const waiter of [...waiters]) waiter();
          },
          (error) => callback(error),
        );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.server.address();
  if (typeof address !== "object" || !address) throw new Error("no SMTP port");
  sink.url = `smtp://127.0.0.1:${address.port}`;
  return sink;
}

/**
 * Makes `sink` hold every message it is sent, as a slow server does, until `release`:
 * `arrived()` counts those held so far.
 */
export function holdMail(sink: SmtpSink) {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrived = 0;
  sink.answer = async () => {
    arrived += 1;
    await held;
    return undefined;
  };
  return { arrived: () => arrived, release: () => release() };
}

/** A header of a mail as it came on the wire (unfolded), or "" when absent. */
export function header(mail: ReceivedMail, name: string): string {
  const line = mail.parsed.headerLines.find((h) => h.key === name.toLowerCase())?.line ?? "";
  return line
    .slice(line.indexOf(":") + 1)
    .replace(/\r?\n[ \t]+/g, " ")
    .trim();
}

/**
 * A loopback SMTP server that only counts: the mails accepted, the mails each
 * envelope recipient got, and the most connections open at once. Nothing is
 * parsed, so the process it runs in keeps up with thousands of mails (the
 * newsletter at scale, in tests and in `npm run bench`).
 */
export async function startCountingSink({ maxClients }: { maxClients?: number } = {}) {
  const perAddress = new Map<string, number>();
  let open = 0;
  let mostOpen = 0;
  let accepted = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    ...(maxClients ? { maxClients } : {}),
    onConnect(_session, callback) {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      callback();
    },
    onClose() {
      open -= 1;
    },
    onData(stream, session, callback) {
      stream.resume();
      stream.on("end", () => {
        accepted += 1;
        for (const { address } of session.envelope.rcptTo) {
          perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
        }
        callback();
      });
    },
  });
  // A sending server may be killed with its connections open.
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.server.address();
  if (typeof address !== "object" || !address) throw new Error("no SMTP port");
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    perAddress,
    get accepted() {
      return accepted;
    },
    get mostOpen() {
      return mostOpen;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
