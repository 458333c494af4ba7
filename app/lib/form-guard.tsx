import { useEffect, useRef } from "react";
import { api } from "./api-client.ts";

/**
 * What every form the site's readers send carries against programs
 * (docs/product.md, "Spam and moderation"): a field people never see, which
 * only programs fill, and the form's signed time, fetched when the form is
 * first touched (or at once), which the server refuses if the form comes back
 * sooner than a person could fill it. `ready()` resolves with the token once
 * the server's minimum time has passed: a reader quicker than that waits out
 * the rest instead of being refused. The server spends a token on any answer,
 * so `renew()` starts again after each one.
 */
type TokenEndpoint =
  | "GET /bookings/form-token"
  | "GET /comments/form-token"
  | "GET /enquiries/form-token"
  | "GET /newsletter/form-token";

export function useFormGuard(endpoint: TokenEndpoint, { atOnce = false } = {}) {
  const token = useRef<Promise<string> | null>(null);
  const honeypot = useRef<HTMLInputElement>(null);

  function ready(): Promise<string> {
    token.current ??= api(endpoint).then(
      async ({ formToken, minimumMs }) => {
        // Counted from the answer, which the server signed before sending it.
        if (minimumMs > 0) await new Promise((resolve) => setTimeout(resolve, minimumMs + 100));
        return formToken;
      },
      (error) => {
        token.current = null;
        throw error;
      },
    );
    return token.current;
  }
  /** Starts the wait without waiting for it; a failure is tried again on sending. */
  const start = () => void ready().catch(() => {});
  const renew = () => {
    token.current = null;
    start();
  };

  useEffect(() => {
    if (atOnce) start();
  });

  return {
    ready,
    start,
    renew,
    /** What the hidden field holds: empty, unless a program filled it. */
    website: () => honeypot.current?.value ?? "",
    /** Sends with the token, once it is ready, and the hidden field; then starts a new token. */
    async sent<T>(send: (guard: { formToken: string; website: string }) => Promise<T>) {
      try {
        return await send({ formToken: await ready(), website: honeypot.current?.value ?? "" });
      } finally {
        renew();
      }
    },
    /** The hidden field, for the form to render first. */
    honeypot: <Honeypot inputRef={honeypot} />,
  };
}

/** Off screen and out of the tab order, so only programs fill it. */
function Honeypot({ inputRef }: { inputRef: React.Ref<HTMLInputElement> }) {
  return (
    <div aria-hidden="true" className="absolute -left-[9999px] h-px w-px overflow-hidden">
      <label>
        Website
        <input ref={inputRef} type="text" name="website" tabIndex={-1} autoComplete="off" />
      </label>
    </div>
  );
}
