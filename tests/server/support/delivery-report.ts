/** A delivery-status report, as Postfix writes one, about the mail sent from `returnPath`. */
export function deliveryReport(
  returnPath: string,
  recipient: string,
  status: string,
  words = status.startsWith("5") ? "Recipient address rejected: User unknown" : "Mailbox full",
): string {
  const action = "failed";
  return `From: Mail Delivery System <MAILER-DAEMON@mx.example.org>
To: ${returnPath}
Subject: Undelivered Mail Returned to Sender
Date: ${new Date().toUTCString()}
Message-ID: <${Math.random().toString(36).slice(2)}@mx.example.org>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
 boundary="dsn-boundary"

--dsn-boundary
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.example.org. Your message could not be
delivered to one or more recipients.

--dsn-boundary
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org
Arrival-Date: ${new Date().toUTCString()}

Final-Recipient: rfc822; ${recipient}
Original-Recipient: rfc822;${recipient}
Action: ${action}
Status: ${status}
Diagnostic-Code: smtp; ${status.startsWith("5") ? "550" : "452"} ${status} <${recipient}>:
 ${words}

--dsn-boundary
Content-Type: text/rfc822-headers

Return-Path: <${returnPath}>
From: news@ewe.test
To: ${recipient}
Subject: Edition mailbox

--dsn-boundary--
`.replace(/\n/g, "\r\n");
}
