import { signInLinkLife } from "../../../contract/limits.ts";
import { plural } from "../../../contract/plural.ts";
import { removePasskey, revokeSessions } from "../../console/owner-actions.ts";
import { createOwnerRepository } from "../../console/owner-repository.ts";
import { type CommandContext, ownerAction, parseId, usageError } from "../command.ts";
import { formatTable, listed, printedJson } from "../table.ts";

export async function login({ config, stdout, stderr, store, actor }: CommandContext) {
  const owner = createOwnerRepository(await store());
  // The link and its line commit together, or neither does.
  const token = await actor.act(
    (trx) => owner.createLink(trx),
    () => ["sign-in link", "command line"],
  );
  if (!config.SITE_URL) {
    stderr.write(`Note: SITE_URL is not set, so the link points at ${config.siteUrl}.\n`);
  }
  stdout.write(`${config.siteUrl}/admin/sign-in#token=${token}\n`);
  stderr.write(`Valid for ${signInLinkLife}, once.\n`);
}

export async function sessionsList({ values, stdout, store }: CommandContext) {
  // Whether a session is the one asking means nothing here: none is.
  const sessions = (await createOwnerRepository(await store()).listSessions()).map(
    ({ current: _, ...session }) => session,
  );
  if (printedJson({ values, stdout }, sessions)) return;
  stdout.write(
    formatTable(
      ["id", "method", "created_at", "last_seen_at"],
      sessions.map((s) => [s.id, s.method, s.createdAt, s.lastSeenAt]),
      { empty: "No console session is open." },
    ),
  );
}

export const sessionsRevoke = ownerAction(
  ({ values, positionals: [id] }) => {
    if (Boolean(values.all) === (id !== undefined)) throw usageError("Give a session ID or --all.");
    return id;
  },
  async ({ store, actor }, id) =>
    revokeSessions(createOwnerRepository(await store()), actor, id === undefined ? "all" : { id }),
  (_id, ended) => `Ended ${plural(ended, "session")}.\n`,
  (id) => `No open session has the id ${id}.`,
);

export const passkeysList = listed(
  async ({ store }) => createOwnerRepository(await store()).listPasskeys(),
  ["id", "name", "created_at", "last_used_at"],
  (p) => [p.id, p.name, p.createdAt, p.lastUsedAt ?? "never"],
);

export const passkeysRemove = ownerAction(
  ({ positionals: [id] }) => id ?? "",
  async ({ store, actor }, id) => removePasskey(createOwnerRepository(await store()), actor, id),
  (id) => `Removed the passkey ${id}; the console sessions it opened have ended.\n`,
  (id) => `No passkey has the id ${id}; "passkeys list" shows them.`,
);

export const audit = listed(
  async ({ values, store }) => {
    const limit = typeof values.limit === "string" ? parseId(values.limit, "--limit") : undefined;
    return createOwnerRepository(await store()).auditTrail(limit);
  },
  ["at", "session", "action", "object"],
  (e) => [e.at, e.sessionId ?? "none", e.action, e.object ?? ""],
);
