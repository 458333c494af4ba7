import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/*
 * A language model's server on loopback that speaks the OpenAI-compatible
 * chat-completions protocol as Ollama, llama.cpp's server and vLLM do: a
 * POST to /v1/chat/completions with `stream: true` is answered with
 * server-sent events, one `data: {"choices":[{"delta":{"content":…}}]}` per
 * piece of the answer, then `data: [DONE]`. What it does next is the test's
 * to say (`behave`): write an answer, hang after its first piece, refuse with
 * 500, end the stream before [DONE], send an answer that never ends, or
 * answer with exactly the status, headers and body it is given. It keeps every request it was sent.
 */

export type ModelCall = { path: string; headers: IncomingHttpHeaders; body: unknown };

export type Behaviour =
  /** Streams these pieces, then [DONE]. */
  | { write: string[] }
  /** Streams the first piece and then nothing, until the test ends. */
  | { hangAfter: string }
  /** Answers with this status and an error body. */
  | { status: number }
  /** Streams the pieces and closes without [DONE]. */
  | { cutAfter: string[] }
  /** Answers with this type an answer that never ends: 256 kB every 10 ms, no line break. */
  | { flood: string }
  /** Streams an answer that never ends in pieces this small, one each turn of the loop, no line break. */
  | { trickle: number }
  /** Answers with exactly this: a redirect, a body that is not what it says. */
  | { raw: { status: number; headers: Record<string, string>; body: string } };

const chunk = (content: string) =>
  `data: ${JSON.stringify({
    id: "chatcmpl-stub",
    object: "chat.completion.chunk",
    model: "stub",
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  })}\n\n`;

export async function startModelStub() {
  const calls: ModelCall[] = [];
  const sockets = new Set<Socket>();
  let behaviour: Behaviour = { write: ["An answer."] };
  /** The last flood's or trickle's bytes sent, and whether its reader hung up. */
  const flooded = { sent: 0, closed: false };
  /** How many hanging answers their reader hung up on. */
  const hung = { left: 0 };

  const stream = (response: ServerResponse, pieces: string[], done: boolean) => {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    // Each piece its own write, on its own turn of the loop: a stream, not one body.
    const next = (at: number) => {
      if (at < pieces.length) {
        response.write(chunk(pieces[at] as string));
        setImmediate(() => next(at + 1));
      } else if (done) {
        response.end("data: [DONE]\n\n");
      } else {
        response.socket?.destroy();
      }
    };
    next(0);
  };

  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      const text = Buffer.concat(parts).toString();
      calls.push({ path: request.url ?? "", headers: request.headers, body: JSON.parse(text) });
      if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
        response.writeHead(404).end();
      } else if ("status" in behaviour) {
        response.writeHead(behaviour.status, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: "the model is not loaded" } }));
      } else if ("raw" in behaviour) {
        response.writeHead(behaviour.raw.status, behaviour.raw.headers);
        response.end(behaviour.raw.body);
      } else if ("write" in behaviour) {
        stream(response, behaviour.write, true);
      } else if ("cutAfter" in behaviour) {
        stream(response, behaviour.cutAfter, false);
      } else if ("flood" in behaviour || "trickle" in behaviour) {
        Object.assign(flooded, { sent: 0, closed: false });
        const trickle = "trickle" in behaviour ? behaviour.trickle : 0;
        const type = "flood" in behaviour ? behaviour.flood : "text/event-stream";
        response.writeHead(200, { "content-type": type });
        response.write(`${type.includes("json") ? "" : "data: "}{"choices":[{"delta":{"content":"`);
        const more = Buffer.alloc(trickle || 256 * 1024, "x");
        const send = () => {
          if (flooded.closed) return;
          flooded.sent += more.length;
          response.write(more);
          if (trickle) setImmediate(send);
        };
        const timer = trickle ? undefined : setInterval(send, 10);
        if (trickle) send();
        response.on("close", () => {
          clearInterval(timer);
          flooded.closed = true;
        });
      } else {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write(chunk(behaviour.hangAfter));
        response.on("close", () => {
          hung.left += 1;
        });
      }
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** The API's base, as an owner would set ASSISTANT_LLM_URL for Ollama. */
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    flooded,
    hung,
    behave(next: Behaviour) {
      behaviour = next;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type ModelStub = Awaited<ReturnType<typeof startModelStub>>;
