import type { Page } from "@playwright/test";
import type { ErrorResponse } from "../../../contract/api.ts";

/**
 * Makes the server refuse the page's `method` requests to `url` (503, with
 * `message`), until the returned function is called; and counts the page's
 * reads (GET) of `list` from now on. `reads()` resolves once every request the
 * page made before it was called has been seen.
 */
export async function refuseWrite(
  page: Page,
  { method, url, list, message }: { method: string; url: RegExp; list: RegExp; message: string },
) {
  const body: ErrorResponse = { error: { code: "service_unavailable", message } };
  await page.route(url, (route) =>
    route.request().method() === method
      ? route.fulfill({ status: 503, json: body })
      : route.fallback(),
  );
  let seen = 0;
  page.on("request", (request) => {
    if (request.method() === "GET" && list.test(request.url())) seen += 1;
  });
  return {
    /** The reads of `list` so far; a request of the page's own after them marks them all seen. */
    reads: async () => {
      await page.evaluate(() => fetch("/healthz"));
      return seen;
    },
    accept: () => page.unroute(url),
  };
}
