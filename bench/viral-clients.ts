import http from "node:http";
import net from "node:net";
import { clock, percentile } from "./timing.ts";

/*
 * The viral case's readers: `count` event streams on one topic, in a process
 * of their own (bench/viral.ts forks this file), as the fan-out floor's
 * readers are (bench/fan-out-floor.ts). They behave as the browser does: read
 * the item once on their first `ready` and on `resync`, and apply every other
 * event as it comes. Each one parses everything it is sent, the HTTP head, the
 * chunked encoding and every event's fields, with a byte scanner over the
 * socket's buffers: the tests' client (tests/support/event-stream.ts) decodes
 * and splits strings, which on the same two cores cost more than the server's
 * whole fan-out and hid it. A comment's number comes from its data
 * (`"content":"Viral <n>"`); its arrival is noted once per stream.
 */

export type ClientsConfig = {
  baseUrl: string;
  topic: string;
  /** What a stream reads on `ready` and `resync`, as the browser reads the item. */
  readPath: string;
  count: number;
  /** Comments the bench will write, numbered from 0. */
  writes: number;
};

export type ClientsMessage =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | {
      type: "report";
      delivered: number;
      /** Delivery times, write sent to comment parsed, in ms. */
      p50: number;
      p99: number;
      /** Reads made after every stream was ready. */
      reads: number;
      /** The largest comment event on the wire, chunk framing included. */
      frameBytes: number;
      /** Streams the server ended or that failed. */
      ended: number;
      /** This process's CPU time from the streams' being ready to the report, in ms. */
      cpu: number;
    };

export type ReportRequest = { type: "report"; sentAt: number[]; timeoutMs: number };

const LF = 0x0a;
const CR = 0x0d;
const eventEnd = Buffer.from("\n\n");
const contentMark = Buffer.from('"content":"Viral ');

function send(message: ClientsMessage) {
  process.send?.(message);
}

function run({ baseUrl, topic, readPath, count, writes }: ClientsConfig) {
  const url = new URL(baseUrl);
  const request = Buffer.from(
    `GET /api/events?topic=${encodeURIComponent(topic)} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`,
  );
  const readAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  /** When stream `i` parsed comment `n`: arrivals[n * count + i], NaN until then. */
  const arrivals = new Float64Array(writes * count).fill(Number.NaN);
  let delivered = 0;
  let reads = 0;
  let ready = 0;
  let ended = 0;
  let frameBytes = 0;
  let opening = true;
  // At most `connecting` streams wait for their answer's head at once, so the
  // server's listen backlog never overflows however busy the machine is.
  const connecting = 200;
  let started = 0;
  let waiting = 0;
  let cpuBefore = process.cpuUsage();

  const read = () =>
    new Promise<void>((resolve) => {
      reads += 1;
      http
        .get(new URL(readPath, baseUrl), { agent: readAgent }, (response) => {
          response.resume().on("end", resolve);
        })
        .on("error", () => resolve());
    });

  const fail = (message: string) => {
    if (opening) send({ type: "failed", message });
  };

  function open(index: number) {
    let head: Buffer | null = Buffer.alloc(0);
    let chunked = false;
    // Chunked decoding: a size line, that many bytes, CRLF.
    let state: "size" | "data" | "crlf" = "size";
    let size = 0;
    let sizeDigits = 0;
    let remaining = 0;
    let pending: Buffer | null = null;
    let opened = false;
    let counted = -1;
    let now = 0;

    const socket = net.connect({ host: url.hostname, port: Number(url.port) }, () => {
      socket.write(request);
    });
    let failure = "closed";
    socket.on("error", (error) => {
      failure = error.message;
    });
    socket.on("close", () => {
      ended += 1;
      fail(`an event stream ended while opening (stream ${index}: ${failure})`);
    });

    /** One event, `block[start, end)`, its lines split on LF as the server writes them. */
    function dispatch(block: Buffer, start: number, end: number) {
      let name = "message";
      let dataStart = -1;
      let dataEnd = -1;
      let line = start;
      while (line < end) {
        let lineEnd = block.indexOf(LF, line);
        if (lineEnd === -1 || lineEnd > end) lineEnd = end;
        const colon = block.indexOf(0x3a, line);
        if (colon > line && colon < lineEnd) {
          let value = colon + 1;
          if (block[value] === 0x20) value += 1;
          const field = colon - line;
          if (field === 5 && block[line] === 0x65) name = block.toString("latin1", value, lineEnd);
          else if (field === 4 && block[line] === 0x64) {
            if (dataStart === -1) dataStart = value;
            dataEnd = lineEnd;
          }
        }
        line = lineEnd + 1;
      }
      if (name === "ready") {
        if (!opened) {
          opened = true;
          void read().then(() => {
            ready += 1;
            if (ready === count) {
              opening = false;
              reads = 0;
              cpuBefore = process.cpuUsage();
              send({ type: "ready" });
            }
          });
        }
      } else if (name === "resync") void read();
      else if (name === "comment" && dataStart !== -1) {
        const mark = block.indexOf(contentMark, dataStart);
        if (mark === -1 || mark > dataEnd) return;
        let n = 0;
        for (let at = mark + contentMark.length; at < dataEnd; at += 1) {
          const digit = (block[at] ?? 0) - 0x30;
          if (digit < 0 || digit > 9) break;
          n = n * 10 + digit;
        }
        // Delivery is at least once: a comment delivered again is not counted twice.
        if (n > counted && n < writes) {
          counted = n;
          arrivals[n * count + index] = now;
          delivered += 1;
          const wire = end - start + 2;
          frameBytes = Math.max(frameBytes, chunked ? wire + wire.toString(16).length + 4 : wire);
        }
      }
    }

    /** Body bytes, in order: split into events at each blank line. */
    function body(bytes: Buffer) {
      let buffer = pending ? Buffer.concat([pending, bytes]) : bytes;
      pending = null;
      let start = 0;
      let end = buffer.indexOf(eventEnd, start);
      while (end !== -1) {
        dispatch(buffer, start, end);
        start = end + 2;
        end = buffer.indexOf(eventEnd, start);
      }
      if (start < buffer.length) {
        buffer = buffer.subarray(start);
        pending = Buffer.from(buffer);
      }
    }

    function decode(bytes: Buffer, from: number) {
      if (!chunked) {
        body(from === 0 ? bytes : bytes.subarray(from));
        return;
      }
      let at = from;
      while (at < bytes.length) {
        if (state === "data") {
          const take = Math.min(remaining, bytes.length - at);
          body(bytes.subarray(at, at + take));
          remaining -= take;
          at += take;
          if (remaining === 0) state = "crlf";
        } else {
          const byte = bytes[at] ?? 0;
          at += 1;
          if (state === "crlf") {
            if (byte === LF) state = "size";
          } else if (byte === LF) {
            if (sizeDigits === 0 || size === 0) {
              socket.destroy();
              return;
            }
            remaining = size;
            size = 0;
            sizeDigits = 0;
            state = "data";
          } else if (byte !== CR) {
            // A hex digit: 0-9, a-f or A-F.
            size = size * 16 + (byte <= 0x39 ? byte - 0x30 : (byte | 0x20) - 0x57);
            sizeDigits += 1;
          }
        }
      }
    }

    socket.on("data", (bytes: Buffer) => {
      now = clock();
      if (head) {
        const whole: Buffer = Buffer.concat([head, bytes]);
        const headEnd = whole.indexOf("\r\n\r\n");
        if (headEnd === -1) {
          head = whole;
          return;
        }
        const text = whole.toString("latin1", 0, headEnd);
        head = null;
        waiting -= 1;
        openMore();
        if (!/^HTTP\/1\.1 200 /.test(text)) {
          fail(`an event stream was refused: ${text.split("\r\n")[0]}`);
          socket.destroy();
          return;
        }
        chunked = /\r\ntransfer-encoding: *chunked/i.test(text);
        decode(whole, headEnd + 4);
        return;
      }
      decode(bytes, 0);
    });
  }

  function openMore() {
    while (waiting < connecting && started < count) {
      waiting += 1;
      open(started);
      started += 1;
    }
  }

  openMore();

  process.on("message", async ({ sentAt, timeoutMs }: ReportRequest) => {
    const expected = writes * count;
    const deadline = clock() + timeoutMs;
    while (delivered < expected && clock() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { user, system } = process.cpuUsage(cpuBefore);
    const times = new Float64Array(delivered);
    let next = 0;
    arrivals.forEach((arrived, slot) => {
      if (!Number.isNaN(arrived)) times[next++] = arrived - (sentAt[Math.floor(slot / count)] ?? 0);
    });
    times.sort();
    send({
      type: "report",
      delivered,
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      reads,
      frameBytes,
      ended,
      cpu: (user + system) / 1000,
    });
  });
}

if (process.send && process.argv[2]) run(JSON.parse(process.argv[2] ?? "{}") as ClientsConfig);
