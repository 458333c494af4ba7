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
};

export type Mailer = {
  /** Resolves once the SMTP server accepted the message (or the file is written). */
  send(mail: OutgoingMail): Promise<void>;
  /** Resolves once the transport can send at once (the SMTP thread has started). */
  ready?(): Promise<void>;
  close(): void;
};
