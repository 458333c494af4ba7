import { api } from "../../lib/api-client.ts";
import { siteConfig } from "../../lib/site-config.ts";
import { ContactLink, LinkAction } from "./link-action.tsx";

/** What the link can still do: a used, expired or unknown one is said at once. */
async function checkLink(token: string) {
  const { state } = await api("GET /subscribers/confirm", { query: { token } });
  return state === "pending" ? null : state;
}

/** Asked with JavaScript and without it (the page's form, link-action-fallback.astro). */
export const confirmAsks = {
  question:
    "Start receiving the Engage with Engineer newsletter at the address this link was mailed to?",
  action: "Confirm",
};

/** The page behind the link of every confirmation mail. */
export function ConfirmFlow() {
  return (
    <LinkAction
      reading="Reading your confirmation link…"
      noToken={
        <>
          This page confirms a subscription when it is opened from the link in the confirmation
          mail. Open that link, or write to <ContactLink email={siteConfig.contactEmail} />.
        </>
      }
      {...confirmAsks}
      busy="Confirming..."
      done="Thank you: your subscription is confirmed. The next edition will come to this address."
      refusals={{
        unknown:
          "This confirmation link is not recognised. Check that the whole link was opened. A link more than a week old is forgotten with the address it was sent to: subscribe again in the form below.",
        expired:
          "This confirmation link has expired: links work for 48 hours. Subscribe again in the form below to get a new one.",
        used: "This confirmation link has already been used: the subscription it was mailed for is confirmed.",
      }}
      refusalOf={(code) =>
        code === "token_expired"
          ? "expired"
          : code === "token_used"
            ? "used"
            : code === "unknown_token" || code === "validation_failed"
              ? "unknown"
              : null
      }
      send={(token) => api("POST /subscribers/confirm", { body: { token } })}
      check={checkLink}
    />
  );
}
