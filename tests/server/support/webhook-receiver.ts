import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type Hit = { headers: IncomingHttpHeaders; body: string; at: number };

/** A webhook receiver on loopback that answers each call with the next status of `answers` (then 200). */
export async function startReceiver(answers: number[]) {
  const hits: Hit[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      hits.push({
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
        at: Date.now(),
      });
      response.statusCode = answers.shift() ?? 200;
      response.end("ok");
      for (const waiter of [...waiters]) waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/comments`,
    hits,
    waitFor(count: number, timeoutMs = 20_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (hits.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out with ${hits.length} webhook calls`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
