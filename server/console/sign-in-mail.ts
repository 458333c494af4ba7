import { linkMail } from "../outbox/mail-layout.ts";
import type { OutgoingMail } from "../outbox/mailer.ts";

/** How long a mailed sign-in link works (owner-repository.ts issues it). */
const validFor = "10 minutes";

/**
 * The one-time sign-in link the console's sign-in page mails to OWNER_EMAIL,
 * in the template every mail of the site shares. A machine sends it, so it
 * says so (`Auto-Submitted`, RFC 3834): out-of-office replies stay away.
 */
export function signInLinkMail({
  to,
  token,
  siteUrl,
}: {
  to: string;
  token: string;
  siteUrl: string;
}): OutgoingMail {
  return linkMail({
    to,
    subject: "Your sign-in link to the console",
    ask: `Open this link within ${validFor} to sign in to the console of ${siteUrl}`,
    label: "Sign in to the console",
    link: `${siteUrl}/admin/sign-in#token=${token}`,
    footer:
      "It works once. If you did not ask for it, ignore this mail: nobody can use the link without your mailbox.",
  });
}
