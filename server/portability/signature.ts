import { createHmac, timingSafeEqual } from "node:crypto";

/*
 * How an export proves that the comments it marks as the owner's are the
 * owner's (docs/decisions/030-import-and-export.md): the export signs its
 * comments, each as its line in the file, with a key derived from the site's
 * cookie secret; an import keeps the owner's marks only when the file's
 * comments carry this site's signature. Anyone without the secret can write
 * a file, or change one, but not sign it.
 */

/** A hex HMAC-SHA256. */
const signaturePattern = /^[0-9a-f]{64}$/;

export type ExportSigner = {
  /** A new signature, fed each comment's line in the file, in the file's order. */
  start(): { add(line: string): void; digest(): string };
  /** Whether `signature` is this site's for these lines. */
  verifies(lines: Iterable<string>, signature: unknown): boolean;
};

export function createExportSigner(cookieSecret: string): ExportSigner {
  // A key of its own, so that no value computed for another use stands for this one.
  const key = createHmac("sha256", cookieSecret).update("export comments signature").digest();
  const start = () => {
    const mac = createHmac("sha256", key);
    return {
      add(line: string) {
        mac.update(`${line}\n`);
      },
      digest: () => mac.digest("hex"),
    };
  };
  return {
    start,
    verifies(lines, signature) {
      if (typeof signature !== "string" || !signaturePattern.test(signature)) return false;
      const mac = start();
      for (const line of lines) mac.add(line);
      return timingSafeEqual(Buffer.from(mac.digest(), "hex"), Buffer.from(signature, "hex"));
    },
  };
}
