import { createHash, randomBytes } from "node:crypto";

/** A link's secret: 256 random bits, URL-safe. */
export const newToken = () => randomBytes(32).toString("base64url");

/** The digest a link's token is kept under, so the database never holds the link itself. */
export const tokenDigest = (token: string) => createHash("sha256").update(token).digest("hex");
