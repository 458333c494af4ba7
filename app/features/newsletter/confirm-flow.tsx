import { useEffect, useState } from "react";
import type { ConfirmResponse } from "../../../contract/api.ts";
import { ApiError, api } from "../../lib/api-client.ts";
import { siteConfig } from "../../lib/site-config.ts";

type Step =
  | { name: "reading" }
  | { name: "no-token" }
  | { name: "confirm"; token: string; failed: boolean }
  | { name: "sending"; token: string }
  | { name: "done" }
  | { name: "refused"; reason: "unknown" | "expired" | "used" };

const refusals = {
  unknown: "This confirmation link is not recognised. Check that the whole link was opened.",
  expired:
    "This confirmation link has expired: links work for 48 hours. Subscribe again in the form below to get a new one.",
  used: "This confirmation link has already been used. If it was you, your subscription is confirmed.",
} as const;

/**
 * The page behind the link of every confirmation mail (`?token=…`), an
 * island. Like the unsubscribe page it reads the token in the browser and
 * changes nothing until the reader presses Confirm: mail scanners open links.
 */
export function ConfirmFlow() {
  const [step, setStep] = useState<Step>({ name: "reading" });

  useEffect(() => {
    const token = new URLSearchParams(window.location.search).get("token");
    setStep(token ? { name: "confirm", token, failed: false } : { name: "no-token" });
  }, []);

  async function confirm(token: string) {
    setStep({ name: "sending", token });
    try {
      await api<ConfirmResponse>("POST", "/subscribers/confirm", { token });
      setStep({ name: "done" });
    } catch (error) {
      const code = error instanceof ApiError ? error.code : null;
      if (code === "token_expired") setStep({ name: "refused", reason: "expired" });
      else if (code === "token_used") setStep({ name: "refused", reason: "used" });
      else if (code === "unknown_token" || code === "validation_failed") {
        setStep({ name: "refused", reason: "unknown" });
      } else setStep({ name: "confirm", token, failed: true });
    }
  }

  return (
    // Tall enough for every step, so the footer does not move once the link is read.
    <div className="min-h-48 max-w-2xl space-y-4 text-slate-300">
      {step.name === "reading" ? <p>Reading your confirmation link…</p> : null}
      {step.name === "no-token" ? (
        <p>
          This page confirms a subscription when it is opened from the link in the confirmation
          mail. Open that link, or write to{" "}
          <a href={`mailto:${siteConfig.contactEmail}`} className="text-accent underline">
            {siteConfig.contactEmail}
          </a>
          .
        </p>
      ) : null}
      {step.name === "confirm" || step.name === "sending" ? (
        <>
          <p>
            Start receiving the Engage with Engineer newsletter at the address this link was mailed
            to?
          </p>
          <button
            type="button"
            className="btn-primary"
            disabled={step.name === "sending"}
            onClick={() => void confirm(step.token)}
          >
            {step.name === "sending" ? "Confirming..." : "Confirm"}
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
          role="status"
          className="rounded-lg border border-accent/40 bg-accent/10 px-4 py-3 text-slate-100"
        >
          Thank you: your subscription is confirmed. The next edition will come to this address.
        </p>
      ) : null}
      {step.name === "refused" ? (
        <p role="alert" className="text-slate-100">
          {refusals[step.reason]}
        </p>
      ) : null}
    </div>
  );
}
