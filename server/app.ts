import path from "node:path";
import Fastify, { type FastifyServerOptions } from "fastify";
import type { Config } from "./config.ts";
import { inlineScriptHashes } from "./web/inline-scripts.ts";
import { securityHeaders } from "./web/security-headers.ts";
import { staticSite } from "./web/static-site.ts";

export type AppOptions = {
  config: Config;
  /** Where the prerendered site lives; tests point this at their own build. */
  clientRoot?: string;
  logger?: FastifyServerOptions["logger"];
};

export const defaultClientRoot = path.resolve(import.meta.dirname, "../build/client");

/** Builds the whole site as a Fastify instance; `main.ts` listens, tests `inject`. */
export async function buildApp({ config, clientRoot = defaultClientRoot, logger = false }: AppOptions) {
  const app = Fastify({
    logger,
    trustProxy: config.TRUST_PROXY,
    bodyLimit: 16 * 1024,
    requestIdHeader: "x-request-id",
  });

  await securityHeaders(app, {
    inlineScriptHashes: inlineScriptHashes(clientRoot),
    chatbotOrigin: config.CHATBOT_SCRIPT_URL ? new URL(config.CHATBOT_SCRIPT_URL).origin : undefined,
  });

  app.get("/healthz", async () => ({ status: "ok" }));

  await staticSite(app, { root: clientRoot });
  return app;
}
