import type { TestProject } from "vitest/node";
import { startPostgres } from "../support/postgres.ts";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/** One PostgreSQL server for the whole run; every test file makes its own database on it. */
export default async function setup(project: TestProject) {
  const server = await startPostgres();
  project.provide("postgresUrl", server.url);
  return () => server.stop();
}
