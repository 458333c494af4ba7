/**
 * The pooled SMTP transport's options: `connections` open at most, so as many
 * messages in flight (the outbox worker keeps that many sends going;
 * bench/newsletter.ts measures the same transport alone as its floor).
 */
export function smtpTransportOptions(smtpUrl: string, connections: number) {
  return {
    url: smtpUrl,
    pool: true,
    maxConnections: connections,
    // An SMTP server that stops answering must not hold a message for
    // nodemailer's default of ten minutes: the outbox retries it.
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
  } as const;
}
