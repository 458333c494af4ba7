import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";
import { limits } from "../../contract/limits.ts";

/**
 * The newsletter form's proof of time (docs/product.md, "Newsletter"): the
 * server signs the moment it handed out a token, so a form submitted sooner
 * than a person could type an address is refused without storing anything.
 * The key is derived from the cookie secret, which every instance shares.
 */
export const formTiming = {
  /** A person needs at least this long between opening the form and sending it. */
  minimumMs: limits.newsletterFormMinimumMs,
  /** A token older than this is refused; the page fetches a new one. */
  maximumMs: 24 * 60 * 60 * 1000,
  /** The no-JavaScript second step must be taken within this time. */
  ticketMaximumMs: 60 * 60 * 1000,
} as const;

export type FormTokenCheck = "ok" | "missing" | "invalid" | "too_fast" | "stale";

/**
 * `purpose` keeps one form's tokens from passing for another's (the comment
 * form uses its own, with its own minimum).
 */
export function createFormTokens(
  secret: string,
  {
    purpose = "newsletter form timing",
    minimumMs = formTiming.minimumMs,
  }: { purpose?: string; minimumMs?: number } = {},
) {
  const key = createHmac("sha256", secret).update(purpose).digest();
  const sign = (issuedAt: string) => createHmac("sha256", key).update(issuedAt).digest("base64url");
  return {
    issue(now = Date.now()): string {
      const issuedAt = String(now);
      return `${issuedAt}.${sign(issuedAt)}`;
    },
    check(token: string | undefined | null, now = Date.now()): FormTokenCheck {
      if (!token) return "missing";
      const match = /^(\d{13})\.([A-Za-z0-9_-]{43})$/.exec(token);
      if (!match) return "invalid";
      const [, issuedAt = "", signature = ""] = match;
      // Constant time, so the signature cannot be found byte by byte.
      if (!timingSafeEqual(Buffer.from(sign(issuedAt)), Buffer.from(signature))) return "invalid";
      const age = now - Number(issuedAt);
      if (age < minimumMs) return "too_fast";
      if (age > formTiming.maximumMs) return "stale";
      return "ok";
    },
  };
}

export type FormTokens = ReturnType<typeof createFormTokens>;

/**
 * The no-JavaScript form's second step (docs/product.md, "Without
 * JavaScript"): the address travels sealed (AES-256-GCM) in the link of the
 * page that asks the reader to press Subscribe once more, so it is neither
 * readable in logs nor alterable, and the time between the two presses is
 * the proof of a person.
 */
export function createFormTickets(secret: string) {
  const key = createHmac("sha256", secret).update("newsletter form ticket").digest();
  return {
    seal(email: string, now = Date.now()): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const sealed = Buffer.concat([
        cipher.update(JSON.stringify({ email, issuedAt: now }), "utf8"),
        cipher.final(),
      ]);
      return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
    },
    open(
      ticket: string,
      now = Date.now(),
    ): { check: "ok"; email: string } | { check: Exclude<FormTokenCheck, "ok"> } {
      if (!/^[A-Za-z0-9_-]{40,800}$/.test(ticket)) return { check: "invalid" };
      const bytes = Buffer.from(ticket, "base64url");
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12));
        decipher.setAuthTag(bytes.subarray(12, 28));
        const plain = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
        const { email, issuedAt } = JSON.parse(plain.toString("utf8")) as {
          email: string;
          issuedAt: number;
        };
        const age = now - issuedAt;
        if (age < formTiming.minimumMs) return { check: "too_fast" };
        if (age > formTiming.ticketMaximumMs) return { check: "stale" };
        return { check: "ok", email };
      } catch {
        return { check: "invalid" };
      }
    },
  };
}

export type FormTickets = ReturnType<typeof createFormTickets>;
