import { useState } from "react";

export function NewsletterForm() {
  const [email, setEmail] = useState("");
  const empty = email.trim() === "";
  return (
    <form className="mt-4 flex flex-col gap-3 sm:flex-row" onSubmit={(event) => event.preventDefault()}>
      <input
        type="email"
        required
        name="email"
        autoComplete="email"
        aria-label="Email address"
        placeholder="you@example.com"
        value={email}
        onChange={(event) => setEmail(event.target.value)}
        className="min-w-0 flex-1 rounded-lg border border-line bg-ink px-3 py-2 text-sm text-slate-100 placeholder:text-slate-500"
      />
      <button
        type="submit"
        disabled={empty}
        className="rounded-lg bg-accent px-4 py-2 text-sm font-semibold text-ink disabled:opacity-60"
      >
        Subscribe
      </button>
    </form>
  );
}
