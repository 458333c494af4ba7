import { type ReactNode, useEffect, useRef, useState } from "react";
import type { ErrorCode } from "../../../contract/api.ts";
import { ApiError } from "../../lib/api-client.ts";

type Step<Refusal extends string> =
  | { name: "reading" }
  | { name: "no-token" }
  | { name: "confirm"; token: string; failed: boolean }
  | { name: "sending"; token: string }
  | { name: "done"; said: string }
  | { name: "refused"; reason: Refusal };

type LinkActionProps<Refusal extends string> = {
  /** While the token is read from the address. */
  reading: string;
  /** Opened without a token. */
  noToken: ReactNode;
  question: string;
  action: string;
  busy: string;
  done: string;
  /** What each refusal tells the reader; `refusalOf` says which one an error code is. */
  refusals: Record<Refusal, ReactNode>;
  refusalOf: (code: ErrorCode) => Refusal | null;
  /** Resolves with words to say instead of `done`, or none. */
  send: (token: string) => Promise<string | undefined | unknown>;
  /** What the link can still do, read before the button is offered: a refusal shows at once. */
  check?: (token: string) => Promise<Refusal | null>;
};

/**
 * The page behind a link mailed to a subscriber (`?token=…`), an island. The
 * page is static, so the token is read in the browser, and nothing changes
 * until the reader presses the button: mail scanners open links
 * (docs/product.md, "Newsletter").
 */
export function LinkAction<Refusal extends string>({
  reading,
  noToken,
  question,
  action,
  busy,
  done,
  refusals,
  refusalOf,
  send,
  check,
}: LinkActionProps<Refusal>) {
  const [step, setStep] = useState<Step<Refusal>>({ name: "reading" });
  // The pressed button gives way to the outcome, which takes the focus it had.
  const outcome = useRef<HTMLParagraphElement>(null);
  const pressed = useRef(false);
  useEffect(() => {
    if (step.name !== "done" && step.name !== "refused") return;
    if (pressed.current && document.activeElement === document.body) outcome.current?.focus();
  }, [step.name]);

  useEffect(() => {
    const token = new URLSearchParams(window.location.search).get("token");
    if (!token) return setStep({ name: "no-token" });
    if (!check) return setStep({ name: "confirm", token, failed: false });
    // Should the check fail, the button is offered, and pressing it tells.
    check(token).then(
      (reason) =>
        setStep(reason ? { name: "refused", reason } : { name: "confirm", token, failed: false }),
      () => setStep({ name: "confirm", token, failed: false }),
    );
  }, [check]);

  async function go(token: string) {
    pressed.current = true;
    setStep({ name: "sending", token });
    try {
      const said = await send(token);
      setStep({ name: "done", said: typeof said === "string" ? said : done });
    } catch (error) {
      const reason =
        error instanceof ApiError && error.code !== "network_error" ? refusalOf(error.code) : null;
      setStep(reason ? { name: "refused", reason } : { name: "confirm", token, failed: true });
    }
  }

  return (
    // Tall enough for every step, so the footer does not move once the link is read.
    <div className="min-h-48 max-w-2xl space-y-4 text-slate-300">
      {/* Served in the page's HTML too, where without JavaScript nothing reads the link. */}
      {step.name === "reading" ? <p className="js-only">{reading}</p> : null}
      {step.name === "no-token" ? <p>{noToken}</p> : null}
      {step.name === "confirm" || step.name === "sending" ? (
        <>
          <p>{question}</p>
          <button
            type="button"
            className="btn-primary"
            disabled={step.name === "sending"}
            onClick={() => void go(step.token)}
          >
            {step.name === "sending" ? busy : action}
          </button>
          {step.name === "confirm" && step.failed ? (
            <p role="alert" className="text-red-300">
              Something went wrong on our side; please try again in a moment.
            </p>
          ) : null}
        </>
      ) : null}
      {step.name === "done" ? (
        <p
          ref={outcome}
          tabIndex={-1}
          role="status"
          className="rounded-lg border border-accent/40 bg-accent/10 px-4 py-3 text-slate-100"
        >
          {step.said}
        </p>
      ) : null}
      {step.name === "refused" ? (
        <p ref={outcome} tabIndex={-1} role="alert" className="text-slate-100">
          {refusals[step.reason]}
        </p>
      ) : null}
    </div>
  );
}

/** The site's contact address, as a link. */
export function ContactLink({ email }: { email: string }) {
  return (
    <a href={`mailto:${email}`} className="text-accent underline">
      {email}
    </a>
  );
}
