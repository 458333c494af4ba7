import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { limits } from "../../contract/limits.ts";
import { dayMs } from "./time.ts";
import { sameSecret } from "./tokens.ts";

/**
 * The forms' proof of time and of one use (docs/product.md, "Newsletter" and
 * "Spam and moderation"): the server signs the moment it handed out a token, so
 * a form submitted sooner than a person could type is refused without storing
 * anything; and a token serves one submission, so one fetch and one wait do not
 * serve a program all day. The key is derived from the cookie secret, which
 * every instance shares; the spent tokens are kept in the database, which they
 * share too.
 */
const formTiming = {
  /** A person needs at least this long between opening the form and sending it. */
  minimumMs: limits.newsletterFormMinimumMs,
  /** A token older than this is refused; the page fetches a new one. */
  maximumMs: dayMs,
  /** The no-JavaScript second step must be taken within this time. */
  ticketMaximumMs: 60 * 60 * 1000,
} as const;

export type FormTokenCheck = "ok" | "missing" | "invalid" | "too_fast" | "stale" | "used";

/**
 * The one answer every form gives when its signed time fails (a comment, an
 * enquiry, a subscription): 400, with `too_fast` for a form sent sooner than
 * a person could fill it, `form_token_invalid` for the rest, and what to do.
 */
type FormTokenRefusal = {
  status: 400;
  code: "too_fast" | "form_token_invalid";
  message: string;
};

export function formTokenRefusal(check: Exclude<FormTokenCheck, "ok">): FormTokenRefusal {
  if (check === "too_fast") {
    return {
      status: 400,
      code: "too_fast",
      message:
        "The form was sent faster than a person can fill it in; wait a moment and send it again.",
    };
  }
  const messages = {
    stale: "The form has expired; reload the page and send it again.",
    used: "This form was sent already; reload the page and send it again.",
    missing: "The form's token is missing or altered; reload the page and send it again.",
    invalid: "The form's token is missing or altered; reload the page and send it again.",
  } as const;
  return { status: 400, code: "form_token_invalid", message: messages[check] };
}

/** Where spent tokens are remembered until they would have expired anyway. */
export type SpentFormTokens = {
  /** False when the token was spent already (by any instance). */
  spend(token: string, usableUntil: Date): Promise<boolean>;
};

const tokenShape = /^(\d{13})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/;

/**
 * `purpose` keeps one form's tokens from passing for another's (the comment
 * form uses its own, with its own minimum). `spent` is needed only to spend
 * tokens; tests that only issue them go without.
 */
export function createFormTokens(
  secret: string,
  {
    purpose = "newsletter form timing",
    minimumMs = formTiming.minimumMs,
    spent,
  }: { purpose?: string; minimumMs?: number; spent?: SpentFormTokens } = {},
) {
  const key = createHmac("sha256", secret).update(purpose).digest();
  const sign = (issuedAt: string, nonce: string) =>
    createHmac("sha256", key).update(`${issuedAt}.${nonce}`).digest("base64url");
  const check = (token: string | undefined | null): FormTokenCheck => {
    if (!token) return "missing";
    const match = tokenShape.exec(token);
    if (!match) return "invalid";
    const [, issuedAt = "", nonce = "", signature = ""] = match;
    // Constant time, so the signature cannot be found byte by byte.
    if (!sameSecret(signature, sign(issuedAt, nonce))) return "invalid";
    const age = Date.now() - Number(issuedAt);
    if (age < minimumMs) return "too_fast";
    if (age > formTiming.maximumMs) return "stale";
    return "ok";
  };
  /** A fresh token: the time, and a random part that makes each one its own. */
  const issue = (now = Date.now()): string => {
    const issuedAt = String(now);
    const nonce = randomBytes(12).toString("base64url");
    return `${issuedAt}.${nonce}.${sign(issuedAt, nonce)}`;
  };
  return {
    issue,
    /** Whether the token is genuine and its time right, without using it up. */
    check,
    /**
     * The token the page the server answers a post with carries on (a second step
     * without JavaScript: "Did you mean …?", a press too quick): the one sent, when it
     * is genuine and in time, so the reader's time still counts from when the form was
     * handed out and the next press is taken at once; else a fresh one. Only for a token
     * the post did not spend: it still serves one submission.
     */
    carried(token: string | undefined | null): string {
      const timing = check(token);
      return token && (timing === "ok" || timing === "too_fast") ? token : issue();
    },
    /** What a reader must wait before sending; 0 when no token is asked. */
    minimumMs,
    /**
     * Every form's one check of its token: genuine, in time, and not spent
     * before, then spent, so one token serves one answer whatever the answer
     * and one fetch and one wait do not serve a program all day. Null when
     * it passes, or when no minimum is asked (COMMENT_MIN_SECONDS=0); else the
     * refusal every form gives (`formTokenRefusal`).
     */
    async admit(token: string | undefined | null): Promise<FormTokenRefusal | null> {
      if (minimumMs <= 0) return null;
      const timing = check(token);
      if (timing !== "ok") return formTokenRefusal(timing);
      if (!spent) throw new Error(`The ${purpose} tokens have nowhere to be spent.`);
      const issuedAt = Number(tokenShape.exec(token ?? "")?.[1]);
      const usableUntil = new Date(issuedAt + formTiming.maximumMs);
      return (await spent.spend(token ?? "", usableUntil)) ? null : formTokenRefusal("used");
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
  const unsealed = (ticket: string): { email: string; issuedAt: number } | null => {
    if (!/^[A-Za-z0-9_-]{40,800}$/.test(ticket)) return null;
    const bytes = Buffer.from(ticket, "base64url");
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(12, 28));
      const plain = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
      return JSON.parse(plain.toString("utf8")) as { email: string; issuedAt: number };
    } catch {
      return null;
    }
  };
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
    ): { check: "ok"; email: string } | { check: Exclude<FormTokenCheck, "ok"> } {
      const read = unsealed(ticket);
      if (!read) return { check: "invalid" };
      const age = Date.now() - read.issuedAt;
      if (age < formTiming.minimumMs) return { check: "too_fast" };
      if (age > formTiming.ticketMaximumMs) return { check: "stale" };
      return { check: "ok", email: read.email };
    },
    /**
     * The time of the first press a genuine ticket in time holds, to seal again with an
     * address corrected on a page between ("Did you mean …?"); else now.
     */
    firstPress(ticket: string | null): number {
      const read = unsealed(ticket ?? "");
      const now = Date.now();
      return read && now - read.issuedAt <= formTiming.ticketMaximumMs ? read.issuedAt : now;
    },
  };
}

export type FormTickets = ReturnType<typeof createFormTickets>;
