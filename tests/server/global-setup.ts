import type { TestProject } from "vitest/node";
import { ensureSpamModel } from "../../scripts/spam-model.ts";
import { startPostgres } from "../support/postgres.ts";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/** One PostgreSQL server for the whole run; every test file makes its own database on it. */
export default async function setup(project: TestProject) {
  // The spam classifier's model, as the build writes it, when its corpus changed.
  ensureSpamModel();
  const server = await startPostgres();
  project.provide("postgresUrl", server.url);
  return () => server.stop();
}
