/** One message as the outbox hands it to the transport. */
export type OutgoingMail = {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
  /** Where replies go: an enquiry's sender in the owner's copy, the owner in the sender's mails. */
  replyTo?: string | { name: string; address: string };
  /** Threading: the Message-ID to use, and the one this mail answers. */
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  /**
   * The SMTP envelope, when it is not the headers': its sender is the mail's
   * own bounce address (server/outbox/verp.ts).
   */
  envelope?: { from: string; to: string[] };
  /**
   * A calendar invitation or cancellation: sent as the text/calendar part
   * calendar programs act on, and as an `.ics` attachment (nodemailer's `icalEvent`).
   */
  icalEvent?: { method: "REQUEST" | "CANCEL"; filename: string; content: string };
};

export type Mailer = {
  /** Resolves once the SMTP server accepted the message (or the file is written). */
  send(mail: OutgoingMail): Promise<void>;
  /** Resolves once the transport can send at once (the SMTP thread has started). */
  ready?(): Promise<void>;
  close(): void;
};
