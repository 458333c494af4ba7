import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBounceMailbox } from "../../server/newsletter/bounce-mailbox.ts";
import { type ImapServer, startImapServer } from "./support/imap.ts";

/*
 * Several instances may read one bounce mailbox (docs/mail.md, "Bounces and
 * complaints"): each deletes what it read, under the other's reading. Dovecot
 * then adds a row of the flags the other set to a reader's listing; taken for
 * a mail, it once made a reader send a fetch of a uid that was none and fail.
 */

describe("two readers of one bounce mailbox at once", () => {
  let imap: ImapServer;
  beforeAll(async () => {
    imap = await startImapServer();
  });
  afterAll(() => imap?.stop());

  it("read every report between them while reports arrive, and neither fails", {
    timeout: 120_000,
  }, async () => {
    const reports = 60;
    const deadline = Date.now() + 90_000;
    const read = new Map<string, number>();
    const failures: string[] = [];
    let delivered = 0;
    const deliveries = (async () => {
      for (; delivered < reports; delivered += 1) {
        await imap.deliver(
          `From: MAILER-DAEMON@mx.example.org\r\nTo: bounces@ewe.test\r\nSubject: Report ${delivered}\r\n\r\nUndelivered.\r\n`,
        );
      }
    })();
    const reader = async () => {
      // Rounds back to back until every report has come and none is left.
      while (delivered < reports || (await imap.count()) > 0) {
        if (Date.now() > deadline) throw new Error(`reports left after 90 s: ${failures}`);
        try {
          await readBounceMailbox(imap.url, {
            async handleMailboxReport(source) {
              const subject = /Subject: (.*)\r/.exec(source.toString("latin1"))?.[1] ?? "";
              read.set(subject, (read.get(subject) ?? 0) + 1);
              return "acted";
            },
          });
        } catch (error) {
          failures.push(String(error));
        }
      }
    };
    await Promise.all([deliveries, reader(), reader()]);
    expect(failures).toEqual([]);
    expect(read.size).toBe(reports);
    expect([...read.keys()].sort()).toEqual(
      Array.from({ length: reports }, (_, n) => `Report ${n}`).sort(),
    );
    expect(await imap.count()).toBe(0);
  });
});
