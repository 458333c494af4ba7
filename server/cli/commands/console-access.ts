import { limits, signInLinkLife } from "../../../contract/limits.ts";
import { group } from "../command.ts";

const handlers = () => import("../handlers/console-access.ts");

/** The console from the command line: a sign-in link, its sessions and passkeys, and the audit trail. */
export const consoleAccessCommands = group(handlers, [
  {
    name: "login",
    usage: "",
    summary: `print a one-time sign-in link to the console (${signInLinkLife})`,
    help: `Prints a link to the owner's console (SITE_URL/admin/sign-in#token=…). Open it
within ${signInLinkLife} and press "Sign in": the link then opens a session of the
browser that used it and works no more. Anyone holding the link before then
can sign in with it: do not paste it anywhere else. Each link is recorded in
the audit trail ("audit").`,
  },
  {
    name: "sessions list",
    usage: "[--json]",
    summary: "the console sessions that can still be used",
    help: `Lists the console's sessions that have not ended, newest first: id, how it
signed in (link or passkey), when, and its last request. A session ends after
12 hours without a request, 30 days after its sign-in, on "Sign out", or with
"sessions revoke".

  --json   one JSON array instead, for scripts`,
  },
  {
    name: "sessions revoke",
    usage: "ID | --all",
    summary: "end one console session, or all of them",
    help: `Ends the console session ID (see "sessions list") at once: its next request
is refused and the browser is sent to sign in again. --all ends every session,
for example after losing a laptop. Passkeys stay: remove the lost device's with
"passkeys remove". Exit code 3 when no open session has ID.

  --all   end every session`,
  },
  {
    name: "passkeys list",
    usage: "[--json]",
    summary: "the passkeys that can sign in to the console",
    help: `Lists the passkeys registered in the console, oldest first, tab-separated: id,
the name given when it was added, when it was added, and when it last signed
in ("never" when it has not). A passkey you do not know is someone's way in:
remove it ("passkeys remove").

  --json   one JSON array instead, for scripts`,
  },
  {
    name: "passkeys remove",
    usage: "ID",
    summary: "remove a passkey, and end the sessions it opened",
    help: `Removes the passkey ID (see "passkeys list"), as "Remove" under "Sign-in and
passkeys" in the console does: it signs in no more, and the console sessions
it opened end at once. Recorded in the audit trail ("audit"). Exit code 3
when no passkey has ID.`,
  },
  {
    name: "audit",
    usage: "[--limit N] [--json]",
    summary: "what was done in the console and by these commands, newest first",
    help: `Prints the audit trail, newest first, tab-separated: when, the console session
("none" for this command line and mailed links), the action and its object (a comment id, an
address, an edition). Objects that start with = + - or @ get a leading '.

  --limit N   at most N entries (default ${limits.auditShown})
  --json      one JSON array instead, verbatim`,
  },
]);
