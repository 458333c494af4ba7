import { signInLinkLife } from "../../contract/limits.ts";
import { linkMail } from "../outbox/mail-layout.ts";
import type { OutgoingMail } from "../outbox/mailer.ts";

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
    ask: `Open this link within ${signInLinkLife} to sign in to the console of ${siteUrl}`,
    label: "Sign in to the console",
    link: `${siteUrl}/admin/sign-in#token=${token}`,
    footer:
      "It works once. If you did not ask for it, ignore this mail: nobody can use the link without your mailbox.",
  });
}
