import { createOwnerRepository } from "../../console/owner-repository.ts";
import { toTsv } from "../../lib/csv.ts";
import { type Command, exitCodes, parseId, usageError } from "../command.ts";
import { AdminError } from "../sqlite-files.ts";
import { formatTable } from "../table.ts";

/** The console from the command line: a sign-in link, its sessions, and the audit trail. */
export const consoleAccessCommands: Command[] = [
  {
    name: "login",
    usage: "",
    summary: "print a one-time sign-in link to the console (10 minutes)",
    help: `Prints a link to the owner's console (SITE_URL/admin/sign-in#token=…). Open it
within 10 minutes and press "Sign in": the link then opens a session of the
browser that used it and works no more. Anyone holding the link before then
can sign in with it: do not paste it anywhere else. Each link is recorded in
the audit trail ("audit").`,
    async run({ config, stdout, stderr, store }) {
      const owner = createOwnerRepository(await store());
      const token = await owner.createLink("cli");
      await owner.audit(null, "sign-in link", "command line");
      if (!config.SITE_URL) {
        stderr.write(`Note: SITE_URL is not set, so the link points at ${config.siteUrl}.\n`);
      }
      stdout.write(`${config.siteUrl}/admin/sign-in#token=${token}\n`);
      stderr.write("Valid for 10 minutes, once.\n");
      return exitCodes.ok;
    },
  },
  {
    name: "sessions list",
    usage: "[--json]",
    summary: "the console sessions that can still be used",
    help: `Lists the console's sessions that have not ended, newest first: id, how it
signed in (link or passkey), when, and its last request. A session ends after
12 hours without a request, on "Sign out", or with "sessions revoke".

  --json   one JSON array instead, for scripts`,
    options: { json: { type: "boolean" } },
    async run({ values, stdout, store }) {
      const sessions = await createOwnerRepository(await store()).listSessions();
      if (values.json) {
        stdout.write(
          `${JSON.stringify(
            sessions.map(({ current: _, ...s }) => s),
            null,
            2,
          )}\n`,
        );
      } else if (sessions.length === 0) {
        stdout.write("No console session is open.\n");
      } else {
        stdout.write(
          formatTable(
            ["id", "method", "created_at", "last_seen_at"],
            sessions.map((s) => [s.id, s.method, s.createdAt, s.lastSeenAt]),
          ),
        );
      }
      return exitCodes.ok;
    },
  },
  {
    name: "sessions revoke",
    usage: "ID | --all",
    summary: "end one console session, or all of them",
    help: `Ends the console session ID (see "sessions list") at once: its next request
is refused and the browser is sent to sign in again. --all ends every session,
for example after losing a laptop. Exit code 3 when no open session has ID.

  --all   end every session`,
    arguments: ["ID"],
    argumentsOptional: true,
    options: { all: { type: "boolean" } },
    async run({ values, positionals, stdout, store }) {
      const [id] = positionals;
      if (Boolean(values.all) === (id !== undefined)) {
        throw usageError("Give a session ID or --all.");
      }
      const owner = createOwnerRepository(await store());
      const ended = await owner.revoke(id === undefined ? "all" : { id });
      if (id !== undefined && ended === 0) {
        throw new AdminError(`No open session has the id ${id}.`, exitCodes.notFound);
      }
      await owner.audit(null, "session revoke", id ?? "all");
      stdout.write(`Ended ${ended} session${ended === 1 ? "" : "s"}.\n`);
      return exitCodes.ok;
    },
  },
  {
    name: "audit",
    usage: "[--limit N] [--json]",
    summary: "what was done in the console and by these commands, newest first",
    help: `Prints the audit trail, newest first, tab-separated: when, the console session
("none" for this command line and mailed links), the action and its object (a comment id, an
address, an edition). Objects that start with = + - or @ get a leading '.

  --limit N   at most N entries (default 200)
  --json      one JSON array instead, verbatim`,
    options: { limit: { type: "string" }, json: { type: "boolean" } },
    async run({ values, stdout, store }) {
      const limit = typeof values.limit === "string" ? parseId(values.limit, "--limit") : 200;
      const entries = await createOwnerRepository(await store()).auditTrail(limit);
      if (values.json) {
        stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
      } else {
        stdout.write(
          toTsv([
            ["at", "session", "action", "object"],
            ...entries.map((e) => [e.at, e.sessionId ?? "none", e.action, e.object ?? ""]),
          ]),
        );
      }
      return exitCodes.ok;
    },
  },
];
