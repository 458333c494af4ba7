import type { AdminIo } from "../../../server/cli/command.ts";
import { runAdmin } from "../../../server/cli/run-admin.ts";
import { siteOwnerProfile, siteUrl, type TestApp, wakeOutboxes } from "./test-app.ts";

export type AdminRun = { code: number; stdout: string; stderr: string };

/** The settings the owner's commands need to reach a test app's database. */
export function adminEnv(t: Pick<TestApp, "databaseUrl" | "dataDir">): Record<string, string> {
  return {
    NODE_ENV: "test",
    SITE_URL: siteUrl,
    DATA_DIR: t.dataDir,
    ...(t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : {}),
  };
}

/**
 * Runs `npm run admin -- <argv>` in this process, capturing what it prints;
 * then the running apps' outboxes look for the mail it may have queued.
 */
export function admin(env: Record<string, string>, ...argv: string[]): Promise<AdminRun> {
  return adminAt({ env }, argv);
}

/**
 * `admin` with more of what a terminal gives: `confirm` answers the questions it asks;
 * `clock`, a test app's, is the time it reads.
 */
export async function adminAt(
  io: Pick<AdminIo, "env" | "confirm" | "clock" | "allowPrivate">,
  argv: string[],
): Promise<AdminRun> {
  let stdout = "";
  let stderr = "";
  const code = await runAdmin(argv, {
    ownerProfile: siteOwnerProfile(),
    ...io,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  wakeOutboxes();
  return { code, stdout, stderr };
}

/** The rows of `subscribers export`, by email. */
export function parseExport(csv: string): Map<string, { subscribedAt: string; url: string }> {
  const [header, ...rows] = csv.trimEnd().split("\r\n");
  if (header !== "email,subscribed_at,unsubscribe_url") throw new Error(`bad header: ${header}`);
  return new Map(
    rows.map((row) => {
      const [email = "", subscribedAt = "", url = ""] = row.split(",");
      return [email, { subscribedAt, url }];
    }),
  );
}
