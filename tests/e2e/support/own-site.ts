import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type APIRequestContext, expect } from "@playwright/test";
import { freePort } from "../../support/postgres.ts";
import {
  generousLimits,
  type ServerProcess,
  startServerProcess,
} from "../../support/server-process.ts";

/**
 * The built site on a server of a spec's own, with limits that let a test
 * write many comments through the API in a moment: seeding a long discussion
 * on the shared servers would spend the write limits every other spec shares.
 */
export async function startOwnSite(name: string): Promise<ServerProcess> {
  const port = await freePort();
  return startServerProcess({
    env: {
      ...generousLimits,
      PORT: String(port),
      SITE_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), `ewe-e2e-${name}-`)),
      LOG_LEVEL: "info",
    },
    startTimeoutMs: 60_000,
  });
}

/** Posts one comment through the API, as a page of `site` does; returns it. */
export async function postTo(
  request: APIRequestContext,
  site: ServerProcess,
  postId: string,
  body: { content: string; userName: string },
): Promise<{ id: number; content: string }> {
  const response = await request.post(`${site.url}/api/items/science/${postId}/comments`, {
    data: body,
    headers: { origin: site.siteUrl },
  });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { comment: { id: number; content: string } }).comment;
}
