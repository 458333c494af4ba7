import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { userInfo } from "node:os";
import path from "node:path";
import { ImapFlow } from "imapflow";
import { freePort } from "../../support/postgres.ts";
import { waitFor } from "../../support/wait-for.ts";

export type ImapServer = {
  /** BOUNCE_IMAP_URL for the site. */
  url: string;
  /** Puts a mail into the mailbox, as the mail server delivers one. */
  deliver(source: string): Promise<void>;
  /** How many mails the mailbox holds. */
  count(): Promise<number>;
  stop(): Promise<void>;
};

const user = "bounces";
const password = "bounce-mailbox-secret";

/**
 * Whether any process of group `group` still runs: one killed is a zombie until
 * its parent reaps it, which for a daemon's processes is the system's init, and
 * the sandbox's init here reaps about once a second.
 */
function groupRunning(group: number): boolean {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .some((pid) => {
      try {
        // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return Number(pgrp) === group && state !== "Z";
      } catch {
        return false; // gone since the listing
      }
    });
}

/** The uid and gid of Debian's `dovenull` user, whom the mailbox belongs to. */
function dovenull(): { uid: number; gid: number } {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("dovenull:"));
  const [, , uid, gid] = (line ?? "").split(":");
  if (!uid || !gid) throw new Error("no dovenull user: install dovecot-imapd");
  return { uid: Number(uid), gid: Number(gid) };
}

/**
 * A real IMAP server, Debian's Dovecot, on a loopback port with a configuration
 * of its own in a temporary folder and one mailbox; stopped by its pid. A refused
 * password is answered at once and slows no later login from loopback (Dovecot's
 * 2 s failure delay and its penalty by address, which held the next login 4 s: no
 * test is about them). Needs
 * root (Dovecot's master process) and the `dovecot-imapd` package
 * (scripts/ensure-system-deps.sh installs it).
 */
export async function startImapServer(): Promise<ImapServer> {
  if (userInfo().uid !== 0) throw new Error("Dovecot's test server runs as root");
  // Under /tmp itself: Dovecot's own users must reach the mailbox and the
  // password file, and the tests' temporary folder is the test runner's alone.
  const dir = mkdtempSync("/tmp/ewe-dovecot-");
  chmodSync(dir, 0o755);
  const port = await freePort();
  const owner = dovenull();
  const home = path.join(dir, "home");
  mkdirSync(home, { recursive: true });
  chownSync(home, owner.uid, owner.gid);
  writeFileSync(path.join(dir, "passwd"), `${user}:{PLAIN}${password}\n`);
  const config = path.join(dir, "dovecot.conf");
  writeFileSync(
    config,
    `protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
first_valid_uid = 1
first_valid_gid = 1
mail_location = maildir:~/Maildir
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${owner.uid} gid=${owner.gid} home=${home}/%u
}
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
`,
  );
  // Its daemon keeps whatever it was given as output: give it none, or the
  // call would wait for the daemon to end.
  const master = () => Number(readFileSync(path.join(dir, "run", "master.pid"), "utf8"));
  const started = spawnSync("/usr/sbin/dovecot", ["-c", config], { stdio: "ignore" });
  if (started.status !== 0) {
    throw new Error(
      `dovecot did not start: ${readFileSync(path.join(dir, "dovecot.log"), "utf8")}`,
    );
  }
  const connect = async () => {
    const client = new ImapFlow({
      host: "127.0.0.1",
      port,
      secure: false,
      auth: { user, pass: password },
      logger: false,
    });
    client.on("error", () => {});
    await client.connect();
    return client;
  };
  await waitFor(
    async () => {
      try {
        await (await connect()).logout();
        return true;
      } catch {
        return false;
      }
    },
    { timeoutMs: 15_000, what: "Dovecot answering" },
  );
  return {
    url: `imap://${user}:${password}@127.0.0.1:${port}/INBOX`,
    async deliver(source) {
      const client = await connect();
      try {
        await client.append("INBOX", source);
      } finally {
        await client.logout();
      }
    },
    async count() {
      const client = await connect();
      try {
        const status = await client.status("INBOX", { messages: true });
        return status ? (status.messages ?? 0) : 0;
      } finally {
        await client.logout();
      }
    },
    async stop() {
      // The master leads a process group of its own, its services in it. Asked
      // to stop (SIGTERM), it waited about 3 s on them, and this throwaway
      // server keeps nothing worth a clean stop: the whole group is killed.
      const pid = master();
      process.kill(-pid, "SIGKILL");
      await waitFor(async () => !groupRunning(pid), {
        timeoutMs: 15_000,
        what: "Dovecot stopping",
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
