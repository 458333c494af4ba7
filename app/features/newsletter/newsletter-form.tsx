import { type FormEvent, useEffect, useRef, useState } from "react";
import { AddressSuggestion, useLeftValue } from "../../components/ui/address-suggestion.tsx";
import { ApiError, api, fieldProblems } from "../../lib/api-client.ts";
import { useFormGuard } from "../../lib/form-guard.tsx";
import { useHydrated } from "../../lib/use-enhanced.ts";

type Status = "idle" | "submitting" | "success" | "error";

const successMs = 3000;

/**
 * What the form says under itself of a failure, or null for its button's words alone:
 * the server's own words when it refused what the reader sent (an address it does not
 * take, too many sign-ups from here) or when its database failed; nothing more when
 * the site did not answer or failed otherwise.
 */
function refusalWords(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.code === "network_error") return null;
  if (error.code === "service_unavailable") return error.message;
  if (error.status >= 500) return null;
  const { problems, rest } = fieldProblems(error, ["email"]);
  return problems.email ?? rest;
}

/**
 * The footer's subscription form (docs/product.md, "Newsletter"): a trimmed
 * address, "Subscribing...", a thank-you for 3 s, one red error state (with
 * the server's words when it refused the address, or when its database failed: it may
 * have saved). In the
 * HTML it is an ordinary form that posts to the server, which answers with a
 * page; once hydrated it subscribes in place.
 *
 * Against sign-ups by bots: a hidden "website" field people never fill, and a
 * signed time fetched when the reader first touches the form, which the
 * server refuses if the form comes back sooner than a person could fill it.
 */
export function NewsletterForm() {
  const [email, setEmail] = useState("");
  const left = useLeftValue();
  const [status, setStatus] = useState<Status>("idle");
  const [said, setSaid] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const guard = useFormGuard("GET /newsletter/form-token");
  // Without JavaScript the browser's own `required` check guards an empty field.
  const hydrated = useHydrated();

  // Whatever the reader typed before the island hydrated stays in the field.
  useEffect(() => {
    const typed = input.current?.value ?? "";
    if (typed !== "") setEmail(typed);
  }, []);

  // The form the focus was in gives way to the thank-you, which takes the focus (unless the
  // reader moved it meanwhile) and hands it to the field when the form comes back.
  const thanks = useRef<HTMLParagraphElement>(null);
  const refocus = useRef(false);
  useEffect(() => {
    if (status === "idle" && refocus.current) input.current?.focus();
    refocus.current = false;
    if (status !== "success") return;
    if (document.activeElement === document.body) thanks.current?.focus();
    const timer = setTimeout(() => {
      refocus.current = document.activeElement === thanks.current;
      setStatus("idle");
    }, successMs);
    return () => clearTimeout(timer);
  }, [status]);

  async function subscribe(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const trimmed = email.trim();
    if (trimmed === "" || status === "submitting") return;
    setStatus("submitting");
    try {
      // A token is good for one sending, whatever the answer: the next starts its own.
      await guard.sent((guarded) =>
        api("POST /subscribers", { body: { email: trimmed, ...guarded } }),
      );
      setEmail("");
      setStatus("success");
    } catch (error) {
      console.error("Newsletter subscription failed:", error);
      setSaid(refusalWords(error));
      setStatus("error");
      // The button, disabled while sending, dropped the focus: the field takes it back.
      const focused = document.activeElement;
      if (focused === document.body || input.current?.form?.contains(focused))
        input.current?.focus();
    }
  }

  if (status === "success") {
    return (
      <p
        ref={thanks}
        tabIndex={-1}
        role="status"
        className="mt-4 rounded-lg outline-none border border-accent/40 bg-accent/10 px-4 py-3 text-sm text-slate-100"
      >
        Thank you for subscribing! Check your inbox: confirm with the link we sent you.
      </p>
    );
  }

  const failed = status === "error";
  return (
    <form
      action="/api/newsletter"
      method="post"
      className="mt-4 flex flex-col gap-3 sm:flex-row sm:flex-wrap"
      onSubmit={subscribe}
      onFocus={guard.start}
    >
      {guard.honeypot}
      <input
        ref={input}
        id="newsletter-email"
        type="email"
        required
        name="email"
        autoComplete="email"
        aria-label="Email address"
        aria-invalid={failed || undefined}
        placeholder="you@example.com"
        value={email}
        onChange={(event) => {
          setEmail(event.target.value);
          if (failed) setStatus("idle");
        }}
        onBlur={left.onBlur}
        className="field flex-1"
      />
      <button
        type="submit"
        disabled={status === "submitting" || (hydrated && email.trim() === "")}
        className={failed ? "btn-error" : "btn-primary"}
      >
        {status === "submitting"
          ? "Subscribing..."
          : failed
            ? "Not subscribed: an error occurred"
            : "Subscribe"}
      </button>
      <AddressSuggestion
        field="newsletter-email"
        left={left.left}
        accept={(suggested) => {
          setEmail(suggested);
          left.setLeft(suggested);
        }}
        className="text-sm text-slate-100 empty:sr-only sm:basis-full"
      />
      {/* The button's new words are not announced on their own: a screen reader hears this,
          or the server's own message, which all see. */}
      {failed ? (
        <p role="alert" className={said ? "text-sm text-slate-100 sm:basis-full" : "sr-only"}>
          {said ?? "Not subscribed: an error occurred"}
        </p>
      ) : null}
    </form>
  );
}
