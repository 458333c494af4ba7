import { api } from "../../lib/api-client.ts";
import { siteConfig } from "../../lib/site-config.ts";
import { ContactLink, LinkAction } from "./link-action.tsx";

/** Asked with JavaScript and without it (the page's form, link-action-fallback.astro). */
export const unsubscribeAsks = {
  question: "Stop sending the newsletter to the address this link was mailed to?",
  action: "Unsubscribe",
};

/** A link followed again: its subscription ended, and none its mailbox made since was found. */
const endedAlready =
  "This link's subscription had ended already, and no newsletter is sent under it. If newsletters still come to this address, the unsubscribe link in the newest one stops them.";

/** The page behind every newsletter's unsubscribe link: nothing is removed until the reader says so. */
export function UnsubscribeFlow() {
  const contact = <ContactLink email={siteConfig.contactEmail} />;
  return (
    <LinkAction
      reading="Reading your unsubscribe link…"
      noToken={
        <>
          This page removes an address from the newsletter when it is opened from the unsubscribe
          link in one of the emails. Open that link, or write to {contact}.
        </>
      }
      {...unsubscribeAsks}
      busy="Unsubscribing..."
      done="You have been unsubscribed. No more newsletters will be sent to this address."
      refusals={{
        unknown: (
          <>
            This unsubscribe link is not recognised. Check that the whole link was opened, or write
            to {contact} and the address will be removed by hand.
          </>
        ),
      }}
      refusalOf={(code) =>
        code === "unknown_token" || code === "validation_failed" ? "unknown" : null
      }
      send={async (token) =>
        (await api("POST /unsubscribe", { body: { token } })).already ? endedAlready : undefined
      }
    />
  );
}
