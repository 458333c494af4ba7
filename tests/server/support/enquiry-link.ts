import type { SmtpSink } from "./smtp.ts";
import { siteUrl, type TestApp } from "./test-app.ts";

/*
 * The deletion link of an enquiry's acknowledgement, as its reader uses it:
 * the token out of the mail that reached them, then the page's button.
 */

/** The deletion link's token in the first mail (or the `nth`) `smtp` took for `to`. */
export function deletionToken(smtp: SmtpSink, to: string, nth = 0): string {
  return /delete\?token=([A-Za-z0-9_-]{43})/.exec(smtp.to(to)[nth]?.parsed.text ?? "")?.[1] ?? "";
}

/** The page's button: a form post of `token`, from `origin`. */
export const pressDelete = (t: TestApp, token: string, origin = siteUrl) =>
  t.app.inject({
    method: "POST",
    url: "/enquiries/delete",
    headers: { origin, "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({ token }).toString(),
  });
