import { type FormEvent, useEffect, useState } from "react";
import type { SubscribeResponse } from "../../../contract/api.ts";
import { api } from "../../lib/api-client.ts";

type Status = "idle" | "submitting" | "success" | "error";

const successMs = 3000;

/** SPEC §4/§5/§8: trimmed email, "Subscribing...", a thank-you for 3 s, one red error state. */
export function NewsletterForm() {
  const [email, setEmail] = useState("");
  const [status, setStatus] = useState<Status>("idle");

  useEffect(() => {
    if (status !== "success") return;
    const timer = setTimeout(() => setStatus("idle"), successMs);
    return () => clearTimeout(timer);
  }, [status]);

  async function subscribe(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const trimmed = email.trim();
    if (trimmed === "" || status === "submitting") return;
    setStatus("submitting");
    try {
      await api<SubscribeResponse>("POST", "/subscribers", { email: trimmed });
      setEmail("");
      setStatus("success");
    } catch (error) {
      console.error("Newsletter subscription failed:", error);
      setStatus("error");
    }
  }

  if (status === "success") {
    return (
      <p
        role="status"
        className="mt-4 rounded-lg border border-accent/40 bg-accent/10 px-4 py-3 text-sm text-slate-100"
      >
        Thank you for subscribing! Watch your inbox for the next article.
      </p>
    );
  }

  const failed = status === "error";
  return (
    <form className="mt-4 flex flex-col gap-3 sm:flex-row" onSubmit={subscribe}>
      <input
        type="email"
        required
        name="email"
        autoComplete="email"
        aria-label="Email address"
        placeholder="you@example.com"
        value={email}
        onChange={(event) => {
          setEmail(event.target.value);
          if (failed) setStatus("idle");
        }}
        className="field flex-1"
      />
      <button
        type="submit"
        disabled={email.trim() === "" || status === "submitting"}
        className={failed ? "btn-error" : "btn-primary"}
      >
        {status === "submitting"
          ? "Subscribing..."
          : failed
            ? "Already subscribed or error occurred"
            : "Subscribe"}
      </button>
    </form>
  );
}
