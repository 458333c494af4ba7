import type { ReceivedMail } from "./smtp.ts";

/** The owner's address in the notification tests. */
export const owner = "owner@example.com";

/** The action links of a notification's plain text, by action. */
export function linksOf(
  mail: ReceivedMail,
): { path: string; id: number; action: string; token: string }[] {
  return [
    ...(mail.parsed.text ?? "").matchAll(
      /^(Approve|Delete): http:\/\/ewe\.test(\/owner\/comments\/(\d+)\/(approve|delete)\?token=([A-Za-z0-9_-]{43}))$/gm,
    ),
  ].map((match) => ({
    path: match[2] as string,
    id: Number(match[3]),
    action: match[4] as string,
    token: match[5] as string,
  }));
}
