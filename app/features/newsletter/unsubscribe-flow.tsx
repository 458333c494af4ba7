import { useEffect, useState } from "react";
import type { UnsubscribeResponse } from "../../../contract/api.ts";
import { ApiError, api } from "../../lib/api-client.ts";
import { siteConfig } from "../../lib/site-config.ts";

type Step =
  | { name: "reading" }
  | { name: "no-token" }
  | { name: "confirm"; token: string; failed: boolean }
  | { name: "sending"; token: string }
  | { name: "done" }
  | { name: "unknown" };

/**
 * The page behind every newsletter's unsubscribe link (`?token=…`), an island.
 * The page is static, so the token is read in the browser, and nothing is
 * removed until the reader confirms: mail scanners that open links must not
 * unsubscribe.
 */
export function UnsubscribeFlow() {
  const [step, setStep] = useState<Step>({ name: "reading" });

  useEffect(() => {
    const token = new URLSearchParams(window.location.search).get("token");
    setStep(token ? { name: "confirm", token, failed: false } : { name: "no-token" });
  }, []);

  async function confirm(token: string) {
    setStep({ name: "sending", token });
    try {
      await api<UnsubscribeResponse>("POST", "/unsubscribe", { token });
      setStep({ name: "done" });
    } catch (error) {
      const unknown =
        error instanceof ApiError &&
        (error.code === "unknown_token" || error.code === "validation_failed");
      setStep(unknown ? { name: "unknown" } : { name: "confirm", token, failed: true });
    }
  }

  const contact = (
    <a href={`mailto:${siteConfig.contactEmail}`} className="text-accent underline">
      {siteConfig.contactEmail}
    </a>
  );

  return (
    <>
      {/* Tall enough for every step, so the footer does not move once the link is read. */}
      <div className="min-h-48 max-w-2xl space-y-4 text-slate-300">
        {step.name === "reading" ? <p>Reading your unsubscribe link…</p> : null}
        {step.name === "no-token" ? (
          <p>
            This page removes an address from the newsletter when it is opened from the unsubscribe
            link in one of the emails. Open that link, or write to {contact}.
          </p>
        ) : null}
        {step.name === "confirm" || step.name === "sending" ? (
          <>
            <p>Stop sending the newsletter to the address this link was mailed to?</p>
            <button
              type="button"
              className="btn-primary"
              disabled={step.name === "sending"}
              onClick={() => void confirm(step.token)}
            >
              {step.name === "sending" ? "Unsubscribing..." : "Unsubscribe"}
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
            You have been unsubscribed. No more newsletters will be sent to this address.
          </p>
        ) : null}
        {step.name === "unknown" ? (
          <p role="alert" className="text-slate-100">
            This unsubscribe link is not recognised. Check that the whole link was opened, or write
            to {contact} and the address will be removed by hand.
          </p>
        ) : null}
      </div>
    </>
  );
}
