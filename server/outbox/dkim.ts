import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { Config } from "../config.ts";
import type { Log } from "../lib/log.ts";
import { createMailer, type DkimSigning, type Mailer } from "./mailer.ts";

/**
 * The site's DKIM key (docs/mail.md, "Signed mail"): made by `admin mail dkim`,
 * kept as JSON beside the cookie secret with the same modes (the file 0600, its
 * folder 0700), or where DKIM_KEY_FILE points (every instance needs the same
 * file). When it is there, every mail the site sends is signed with it.
 */

export type DkimAlgorithm = "rsa" | "ed25519";

const dkimKeySchema = z.strictObject({
  algorithm: z.enum(["rsa", "ed25519"]),
  domain: z.string().regex(/^[a-z0-9.-]+$/i, "must be a domain name"),
  selector: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/i, "must be a DNS label"),
  privateKey: z.string().startsWith("-----BEGIN PRIVATE KEY-----"),
});

export type DkimKey = z.infer<typeof dkimKeySchema>;

export function dkimKeyFileOf(config: { DATA_DIR: string; DKIM_KEY_FILE?: string | undefined }) {
  return path.resolve(config.DKIM_KEY_FILE ?? path.join(config.DATA_DIR, "dkim-key.json"));
}

export function createDkimKey({
  algorithm,
  domain,
  selector,
}: Omit<DkimKey, "privateKey">): DkimKey {
  const { privateKey } =
    algorithm === "rsa"
      ? generateKeyPairSync("rsa", { modulusLength: 2048 })
      : generateKeyPairSync("ed25519");
  return {
    algorithm,
    domain: domain.toLowerCase(),
    selector,
    privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

/** Writes the key, readable by its owner alone; refuses to replace one unless `replace`. */
export function writeDkimKey(file: string, key: DkimKey, { replace = false } = {}): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(key, null, 2)}\n`, {
    mode: 0o600,
    flag: replace ? "w" : "wx",
  });
}

class DkimKeyError extends Error {
  override name = "DkimKeyError";
}

/** The key in `file`, or null when there is none; a damaged file is an error naming it. */
export function readDkimKey(file: string): DkimKey | null {
  if (!existsSync(file)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new DkimKeyError(`${file} is not a DKIM key: ${(error as Error).message}`);
  }
  const key = dkimKeySchema.safeParse(parsed);
  if (!key.success) {
    throw new DkimKeyError(`${file} is not a DKIM key: ${key.error.issues[0]?.message ?? ""}`);
  }
  try {
    createPrivateKey(key.data.privateKey);
  } catch {
    throw new DkimKeyError(`${file} holds a private key that cannot be read`);
  }
  return key.data;
}

/**
 * The TXT record to publish: at `<selector>._domainkey.<domain>`, the public
 * key (RFC 6376; an Ed25519 key as its 32 bytes, RFC 8463).
 */
export function dkimDnsRecord(key: DkimKey): { name: string; value: string } {
  const publicKey = createPublicKey(key.privateKey);
  const der = publicKey.export({ type: "spki", format: "der" });
  // An Ed25519 SubjectPublicKeyInfo is a 12-byte header and the raw key.
  const p = (key.algorithm === "ed25519" ? der.subarray(der.length - 32) : der).toString("base64");
  return {
    name: `${key.selector}._domainkey.${key.domain}`,
    value: `v=DKIM1; k=${key.algorithm}; p=${p}`,
  };
}

export const dkimSigning = (key: DkimKey): DkimSigning => ({
  algorithm: key.algorithm,
  domainName: key.domain,
  keySelector: key.selector,
  privateKey: key.privateKey,
});

/** The configured transport (SMTP or files), signing with the site's key when there is one; Message-IDs on SITE_URL's host. */
export function signedMailer(
  config: Pick<
    Config,
    "SMTP_URL" | "mailFrom" | "DATA_DIR" | "MAIL_CONNECTIONS" | "DKIM_KEY_FILE" | "siteUrl"
  >,
  log: Pick<Log, "info">,
): Mailer {
  const key = readDkimKey(dkimKeyFileOf(config));
  const {
    SMTP_URL: smtpUrl,
    mailFrom: from,
    DATA_DIR: dataDir,
    MAIL_CONNECTIONS: connections,
  } = config;
  const mailer = createMailer(
    { smtpUrl, from, dataDir, connections, dkim: key ? dkimSigning(key) : null },
    log,
  );
  // A mail without a Message-ID of its own gets a random one on the site's host, not
  // nodemailer's on MAIL_FROM's domain, which is `localhost` until it is set.
  const host = new URL(config.siteUrl).hostname;
  return {
    ...mailer,
    send: (mail, ...rest) =>
      mailer.send({ ...mail, messageId: mail.messageId ?? `<${randomUUID()}@${host}>` }, ...rest),
  };
}
