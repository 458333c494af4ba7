import { afterAll, beforeAll } from "vitest";
import { type SmtpSink, startSmtpSink } from "./smtp.ts";
import { type Backend, startTestApp, type TestApp, type TestAppOptions } from "./test-app.ts";

/** A test app and the SMTP server it mails; `env` is the app's, for a second instance or the command line. */
export type MailingApp = { t: TestApp; smtp: SmtpSink; env: Record<string, string> };

/**
 * A test app on `backend` that mails a real SMTP server (`startSmtpSink`): both started
 * before the file's (or the describe's) tests and closed after them. `options` (or what it
 * gives, read as they start: a receiver started before) comes over SMTP_URL; `started` is
 * handed the app once it runs, before any test.
 */
export function mailingApp(
  backend: Backend,
  given: TestAppOptions | (() => TestAppOptions),
  started: (app: MailingApp) => void,
) {
  let app: MailingApp | undefined;
  beforeAll(async () => {
    const options = typeof given === "function" ? given() : given;
    const smtp = await startSmtpSink();
    const env = { SMTP_URL: smtp.url, ...options.env };
    try {
      app = { t: await startTestApp(backend, { ...options, env }), smtp, env };
    } catch (error) {
      await smtp.close();
      throw error;
    }
    started(app);
  });
  afterAll(async () => {
    await app?.t.close();
    await app?.smtp.close();
  });
}
