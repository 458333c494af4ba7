import { startAuthentication } from "@simplewebauthn/browser";
import { type FormEvent, useEffect, useState } from "react";
import type { SignInMethodsResponse } from "../../contract/console.ts";
import { signInLinkLife } from "../../contract/limits.ts";
import { api } from "../lib/api-client.ts";
import { errorMessage, useBusy } from "./console-api.ts";
import { useRefusal } from "./refusal.tsx";
import { buttonClass, Input, primaryClass } from "./ui.tsx";

/** The one-time link's token travels in the fragment: never sent to a server, never logged. */
function tokenOfLink(): string | null {
  const match = /^#token=([A-Za-z0-9_-]{43})$/.exec(window.location.hash);
  return match?.[1] ?? null;
}

/** Where a sign-in leads, kept for the tab: a link pasted into it drops the query. */
const afterSignInKey = "ewe_after_sign_in";

/**
 * Where a sign-in leads: the console's screen that asked for it (`?then=`,
 * a refusal's "Sign in again"), or the Overview. Only a screen's path, never
 * another site.
 */
function afterSignIn(): string {
  const asked =
    new URLSearchParams(window.location.search).get("then") ??
    sessionStorage.getItem(afterSignInKey) ??
    "";
  sessionStorage.removeItem(afterSignInKey);
  return /^\/admin(\/[a-z]+)?$/.test(asked) ? asked : "/admin";
}

const panel = "mx-auto mt-16 w-[min(92vw,28rem)] rounded-2xl border border-line bg-panel p-6";

/**
 * The console's sign-in page (docs/decisions/012-owner-console.md). Opened
 * from a link, it shows one "Sign in" button: only its POST uses the link, so
 * a mail scanner that opens it signs nobody in. Otherwise it offers a passkey
 * and, with OWNER_EMAIL set, a link by mail.
 */
export function SignIn() {
  const [token, setToken] = useState(tokenOfLink);
  useEffect(() => {
    const then = new URLSearchParams(window.location.search).get("then");
    if (then) sessionStorage.setItem(afterSignInKey, then);
  }, []);
  // A link pasted into a tab already on this page changes only the fragment.
  useEffect(() => {
    const follow = () => setToken(tokenOfLink());
    window.addEventListener("hashchange", follow);
    return () => window.removeEventListener("hashchange", follow);
  }, []);
  const [message, setMessage] = useState<string | null>(null);
  // Its buttons are disabled while they ask; the one pressed then takes the focus back.
  const [busy, busyWhile] = useBusy();
  const [email, setEmail] = useState("");
  const [mailed, setMailed] = useState(false);
  const refusal = useRefusal(["email"]);
  // A passkey is offered only when one is registered and this host can use it.
  const [methods, setMethods] = useState<SignInMethodsResponse | null>(null);
  useEffect(() => {
    // Unread, the page offers what it always could: a link by mail, and the command.
    api("GET /admin/sign-in/methods").then(setMethods, () =>
      setMethods({ passkey: "none", passkeyProblem: null, mailedLink: true }),
    );
  }, []);

  function run(
    action: () => Promise<void>,
    refused = (error: unknown) => setMessage(errorMessage(error)),
  ) {
    setMessage(null);
    refusal.clear();
    return busyWhile(async () => {
      try {
        await action();
      } catch (error) {
        refused(error);
      }
    });
  }

  // Offered only while the address carries a link's token.
  const withLink = (linkToken: string) =>
    run(async () => {
      await api("POST /admin/sign-in", { body: { token: linkToken } });
      const next = afterSignIn();
      history.replaceState(null, "", "/admin/sign-in");
      window.location.assign(next);
    });

  const withPasskey = () =>
    run(async () => {
      const { options } = await api("POST /admin/passkey-sign-in/options");
      const response = await startAuthentication({
        optionsJSON: options as unknown as Parameters<typeof startAuthentication>[0]["optionsJSON"],
      });
      // WebAuthn's JSON, as the contract has it: the server's library checks it.
      const credential = response as unknown as Record<string, unknown>;
      await api("POST /admin/passkey-sign-in", { body: { response: credential } });
      window.location.assign(afterSignIn());
    });

  const mailLink = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await api("POST /admin/sign-in/mail", { body: { email } });
      setMailed(true);
    }, refusal.refused);
  };

  return (
    <main className={panel}>
      <h1 className="text-2xl font-bold text-slate-100">Sign in to the console</h1>
      {token ? (
        <>
          <p className="mt-2 text-sm text-slate-300">
            This link signs this browser in once, within {signInLinkLife} of being made.
          </p>
          <button
            type="button"
            disabled={busy}
            onClick={() => void withLink(token)}
            className={`${primaryClass} mt-5 w-full py-2`}
          >
            Sign in
          </button>
        </>
      ) : (
        <>
          {methods?.passkey === "ready" ? (
            <button
              type="button"
              disabled={busy}
              onClick={() => void withPasskey()}
              className={`${primaryClass} mt-5 w-full py-2`}
            >
              Sign in with a passkey
            </button>
          ) : null}
          {methods?.passkeyProblem ? (
            <p className="mt-4 text-sm text-slate-400">{methods.passkeyProblem}</p>
          ) : null}
          {methods?.mailedLink ? (
            <>
              <form
                onSubmit={mailLink}
                className={`mt-6 space-y-3 ${methods.passkey === "ready" ? "border-t border-line pt-5" : ""}`}
              >
                <Input
                  label="Your address"
                  type="email"
                  required
                  autoComplete="email"
                  value={email}
                  onChange={setEmail}
                  {...refusal.field("email")}
                />
                <button type="submit" disabled={busy} className={`${buttonClass} w-full py-2`}>
                  Email me a sign-in link
                </button>
              </form>
              <p className="mt-4 text-sm text-slate-400">
                Or, on the server: <code>npm run admin -- login</code>
              </p>
            </>
          ) : methods ? (
            // Without OWNER_EMAIL no address would ever be mailed a link: none is offered.
            <p className="mt-4 text-sm text-slate-400">
              On the server, <code>npm run admin -- login</code> prints a sign-in link. This page
              mails one only when OWNER_EMAIL is set.
            </p>
          ) : null}
        </>
      )}
      <div role="status" className="mt-4 text-sm">
        {mailed ? (
          <p className="text-slate-200">
            If that is the owner's address, a link is on its way. It works for {signInLinkLife}.
          </p>
        ) : null}
        {message ? <p className="text-red-300">{message}</p> : null}
      </div>
      {refusal.problem && <div className="mt-4">{refusal.problem}</div>}
    </main>
  );
}
