import { atLeast, atMost, type Verdict } from "./verdict.ts";
import { apiHeaders } from "./views.ts";
import { wrk } from "./wrk.ts";

/*
 * A returning reader's read: what the page asks for a post's discussion when
 * the browser holds the visitor cookie (anyone who has ever reacted or
 * commented). It is one request, the shared bytes followed by what the reader
 * owns (docs/decisions/035-returning-readers-read-the-shared-bytes.md), driven
 * by wrk with the reader's `Cookie` header and the rest of what the item page's
 * script sends (bench/views.ts), and held to wrk's hello world measured in the same run.
 */

/** The reader's ratio to hello world must reach this, and its p99 stay under that. */
const visitorReadTargets = { ratio: 0.3, p99Ms: 10 };

/**
 * Measures the comments read of `postId` by the reader whose cookie is
 * `cookie` (who must own some of its comments, so that the answer carries
 * their own), after a 3 s warm-up that is not counted; prints the run with
 * `report` and returns its rows against the targets.
 */
export async function visitorRead({
  baseUrl,
  postId,
  cookie,
  helloReqPerSec,
  connections,
  seconds,
  report,
}: {
  baseUrl: string;
  postId: string;
  cookie: string;
  /** wrk's hello world in the same run. */
  helloReqPerSec: number;
  connections: number;
  seconds: number;
  report: (name: string, values: string) => void;
}): Promise<Verdict[]> {
  const url = new URL(`/api/items/science/${postId}/comments`, baseUrl).toString();
  const headers = { ...apiHeaders(new URL(baseUrl).origin), cookie };
  // The read measured must be the reader's own: their flags in the answer.
  const check = await fetch(url, { headers: { cookie } });
  const own = ((await check.json()) as { own?: { ids: number[] } }).own;
  if (!check.ok || !own || own.ids.length === 0) {
    throw new Error(`the visitor's read carries none of their own (${check.status})`);
  }
  await wrk(url, { connections, seconds: 3, headers });
  const measured = await wrk(url, { connections, seconds, headers });
  const ratio = measured.reqPerSec / helloReqPerSec;
  report(
    "GET the first 50 comments as a visitor with a cookie (own flags), wrk",
    `${Math.round(measured.reqPerSec).toLocaleString("en")} req/s  ${ratio.toFixed(2)}× hello   p50 ${measured.p50.toFixed(1)} ms   p99 ${measured.p99.toFixed(1)} ms${measured.failed ? "   FAILURES" : ""}`,
  );
  if (measured.failed) process.exitCode = 1;
  return [
    atLeast(
      "comments read with a visitor cookie, wrk, × hello world",
      ratio,
      visitorReadTargets.ratio,
      "×",
    ),
    atMost(
      "comments read with a visitor cookie, wrk, p99",
      measured.p99,
      visitorReadTargets.p99Ms,
      " ms",
    ),
  ];
}
