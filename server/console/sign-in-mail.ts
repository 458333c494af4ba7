import { escapeHtml } from "../../contract/html.ts";
import { button, laidOut } from "../outbox/mail-layout.ts";
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
  const link = `${siteUrl}/admin/sign-in#token=${token}`;
  return laidOut({
    to,
    subject: "Your sign-in link to the console",
    html: `<p style="margin:0 0 16px">Open this link within ${validFor} to sign in to the console of ${escapeHtml(siteUrl)}:</p>
<p style="margin:0 0 16px">${button(link, "Sign in to the console")}</p>
<p style="margin:0;font-size:14px;color:#94a3b8">Or copy this link into your browser: ${escapeHtml(link)}</p>`,
    text: `Open this link within ${validFor} to sign in to the console of ${siteUrl}:

${link}`,
    footer:
      "It works once. If you did not ask for it, ignore this mail: nobody can use the link without your mailbox.",
    headers: { "Auto-Submitted": "auto-generated" },
  });
}
