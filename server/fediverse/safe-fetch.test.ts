import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { crc32, deflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasNoControlOrDirectionCharacters } from "../../contract/text.ts";
import { renderComment } from "../comments/markdown.ts";
import {
  createInboxCheck,
  createRemoteFetch,
  isPrivateAddress,
  RemoteFetchError,
} from "../lib/safe-fetch.ts";
import { noteMarkdown, remoteName } from "./note-text.ts";
import {
  fetchPicture,
  imageSizeOf,
  imageTypeOf,
  isSmallImage,
  pictureBytesMax,
} from "./pictures.ts";

/** A 1×1 PNG. */
const png = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/** A real PNG, black and white, `width` × `height`: 20,000 × 20,000 is 50 kB, 1.6 GB decoded. */
function pngOf(width: number, height: number) {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const framed = Buffer.alloc(body.length + 8);
    framed.writeUInt32BE(data.length, 0);
    body.copy(framed, 4);
    framed.writeUInt32BE(crc32(body), body.length + 4);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 1; // one bit a pixel, grey
  const rows = Buffer.alloc(height * (1 + Math.ceil(width / 8)));
  return Buffer.concat([
    png.subarray(0, 8),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

describe("remote fetches", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      const port = (server.address() as AddressInfo).port;
      const pictures: Record<string, () => void> = {
        "/pic.png": () => response.writeHead(200, { "content-type": "image/png" }).end(png),
        // Claims to be a picture; is a page.
        "/fake.png": () =>
          response.writeHead(200, { "content-type": "image/png" }).end("<html><script>x</script>"),
        "/pic.svg": () =>
          response
            .writeHead(200, { "content-type": "image/svg+xml" })
            .end('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
        "/huge.png": () =>
          response
            .writeHead(200, { "content-type": "image/png" })
            .end(Buffer.concat([png, Buffer.alloc(pictureBytesMax)])),
        "/gone.png": () => response.writeHead(404).end(),
        "/giant.png": () =>
          response.writeHead(200, { "content-type": "image/png" }).end(pngOf(20_000, 20_000)),
        "/to-loopback": () =>
          response.writeHead(302, { location: `http://[::1]:${port}/pic.png` }).end(),
        "/to-metadata": () =>
          response.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end(),
      };
      const picture = pictures[request.url ?? ""];
      if (picture) {
        picture();
      } else if (request.url === "/loop") {
        response.writeHead(302, { location: "/loop" }).end();
      } else if (request.url === "/large") {
        response.end("x".repeat(20_000));
      } else if (request.url === "/silent") {
        // Never answers.
      } else {
        response.end("hello");
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it("knows the addresses a remote fetch must never reach", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "::",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "::7f00:1",
      "::127.0.0.1",
      "not an address",
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ["93.184.215.14", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  it("refuses loopback and private addresses, by number or by name, outside tests", async () => {
    const fetchRemote = createRemoteFetch({ allowPrivate: false, userAgent: "test" });
    await expect(fetchRemote(`${base}/`)).rejects.toThrow(RemoteFetchError);
    const port = new URL(base).port;
    await expect(fetchRemote(`http://localhost:${port}/`)).rejects.toThrow(/private address/);
    await expect(fetchRemote(`http://[::1]:${port}/`)).rejects.toThrow(RemoteFetchError);
    // The deprecated IPv4-compatible form is this host's loopback where a 6in4 tunnel is up.
    await expect(fetchRemote("http://[::7f00:1]/")).rejects.toThrow(/is a private address/);
    await expect(fetchRemote("file:///etc/passwd")).rejects.toThrow(RemoteFetchError);
    await expect(fetchRemote("gopher://example.com/")).rejects.toThrow(RemoteFetchError);
    // A public address on any port but the web's is not knocked on (no connection is tried).
    for (const url of ["http://93.184.215.14:25/", "https://[2606:4700::1111]:6379/"]) {
      await expect(fetchRemote(url), url).rejects.toThrow(/is not reached on another port/);
    }
  });

  it("takes an inbox only at public addresses, a name judged by every address it resolves to", async () => {
    const inboxAllowed = createInboxCheck(false);
    const allowed = async (url: string) => inboxAllowed(new URL(url));
    expect(await allowed("https://93.184.215.14/inbox")).toBe("allowed");
    expect(await allowed("http://[2606:4700::1111]/inbox")).toBe("allowed");
    for (const url of [
      "http://127.0.0.1:6379/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::ffff:10.0.0.1]/inbox",
      "http://localhost/inbox",
      "ftp://93.184.215.14/inbox",
      "http://93.184.215.14:25/inbox",
      "https://[2606:4700::1111]:8443/inbox",
    ]) {
      expect(await allowed(url), url).toBe("refused");
    }
    // A name not found now may be found later: not refused for good.
    expect(await allowed("https://nowhere.invalid/inbox")).toBe("unresolved");
    // The tests' stand-ins: those named, or all.
    expect(await createInboxCheck((address) => address === "127.0.0.1")(new URL(base))).toBe(
      "allowed",
    );
    expect(await createInboxCheck(true)(new URL("http://10.0.0.1/inbox"))).toBe("allowed");
    expect(await createInboxCheck(true)(new URL("file:///etc/passwd"))).toBe("refused");
  });

  it("allows them only with the tests' setting, within size, time and redirect limits", async () => {
    const fetchRemote = createRemoteFetch({ allowPrivate: true, userAgent: "test" });
    const answer = await fetchRemote(`${base}/`);
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe("hello");
    await expect(fetchRemote(`${base}/loop`)).rejects.toThrow(/too many redirects/);
    await expect(fetchRemote(`${base}/large`, { maxBytes: 10_000 })).rejects.toThrow(/larger/);
    await expect(fetchRemote(`${base}/silent`, { timeoutMs: 300 })).rejects.toThrow(/no answer/);
  });

  it("fetches each on a connection of its own, so a server closing an idle one breaks none", async () => {
    // A server that closes a kept connection when a request comes on it, as one whose
    // idle time ran out just then.
    const served = new WeakSet<Socket>();
    let connections = 0;
    const closing = createServer((request, response) => {
      if (served.has(request.socket)) return request.socket.destroy();
      served.add(request.socket);
      response.end(request.url);
    }).on("connection", () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => closing.listen(0, "127.0.0.1", resolve));
    const at = `http://127.0.0.1:${(closing.address() as AddressInfo).port}`;
    const fetchRemote = createRemoteFetch({ allowPrivate: true, userAgent: "test" });
    const answers = [];
    for (const path of ["/first", "/second", "/third"]) {
      answers.push((await fetchRemote(`${at}${path}`)).body.toString());
    }
    const sent = await fetchRemote(`${at}/sent`, { method: "POST", body: "x" });
    expect([...answers, sent.body.toString()]).toEqual(["/first", "/second", "/third", "/sent"]);
    expect(connections).toBe(4);
    closing.closeAllConnections();
    closing.close();
  });

  it("keeps a writer's picture only when it is a small image within reach", async () => {
    // Only the test server's own address is let through, as a public server would be.
    const fetchRemote = createRemoteFetch({
      allowPrivate: (address) => address === "127.0.0.1",
      userAgent: "test",
    });
    const reasons: string[] = [];
    const picture = (path: string) =>
      fetchPicture(fetchRemote, `${base}${path}`, (reason) => reasons.push(reason));
    expect(await picture("/pic.png")).toBe(`image/png;base64,${png.toString("base64")}`);
    for (const path of ["/fake.png", "/pic.svg", "/huge.png", "/gone.png", "/giant.png"]) {
      expect(await picture(path), path).toBeNull();
    }
    // A redirect to a private address is refused as a first address is.
    for (const path of ["/to-loopback", "/to-metadata"]) {
      expect(await picture(path), path).toBeNull();
    }
    expect(reasons).toEqual([
      "it is not a PNG, JPEG, GIF or WebP image",
      "it is not a PNG, JPEG, GIF or WebP image",
      `the answer is larger than ${pictureBytesMax} bytes`,
      "it answered 404",
      "it is over 1024 pixels a side, or gives no size",
      "::1 is a private address",
      "169.254.169.254 is a private address",
    ]);
    // Outside tests, the server itself is out of reach.
    const strict = createRemoteFetch({ allowPrivate: false, userAgent: "test" });
    expect(await fetchPicture(strict, `${base}/pic.png`)).toBeNull();
    expect(await fetchPicture(strict, "file:///etc/passwd")).toBeNull();
  });

  it("tells images from other bytes by their first bytes", () => {
    expect(imageTypeOf(png)).toBe("image/png");
    expect(imageTypeOf(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe("image/jpeg");
    expect(imageTypeOf(Buffer.from("GIF89a"))).toBe("image/gif");
    expect(imageTypeOf(Buffer.from("RIFF\0\0\0\0WEBPVP8 "))).toBe("image/webp");
    for (const bytes of ["", "<svg", "GIF90a", "RIFF\0\0\0\0WAVE", "\x89PNG"]) {
      expect(imageTypeOf(Buffer.from(bytes)), bytes).toBeNull();
    }
  });

  it("reads each kind of picture's size from its header, and keeps none over 1024 pixels a side", () => {
    const bytes = (...parts: (string | number[])[]) =>
      Buffer.concat(parts.map((part) => Buffer.from(part as never, "latin1")));
    const le16 = (n: number) => [n & 0xff, n >> 8];
    const le24 = (n: number) => [n & 0xff, (n >> 8) & 0xff, n >> 16];
    const be16 = (n: number) => [n >> 8, n & 0xff];
    const jpeg = (width: number, height: number) =>
      bytes(
        [0xff, 0xd8, 0xff, 0xe0, 0, 16],
        "JFIF\0",
        [1, 1, 0, 0, 1, 0, 1, 0, 0],
        [0xff, 0xc4, 0, 3, 0],
        [0xff, 0xc2, 0, 11, 8],
        be16(height),
        be16(width),
        [1, 1, 0x11, 0],
      );
    // A screen of 16 × 16 holding a frame of 16 × 16 at (2000, 0), after a comment.
    const gif = (left: number) =>
      bytes(
        "GIF89a",
        le16(16),
        le16(16),
        [0x80, 0, 0],
        [0, 0, 0, 255, 255, 255],
        [0x21, 0xfe, 2],
        "hi",
        [0],
        [0x2c],
        le16(left),
        le16(0),
        le16(16),
        le16(16),
        [0],
        [2, 2, 0x4c, 0x01, 0],
        [0x3b],
      );
    const vp8 = (width: number, height: number) =>
      bytes("RIFF\0\0\0\0WEBPVP8 \0\0\0\0", [0, 0, 0, 0x9d, 0x01, 0x2a], le16(width), le16(height));
    const vp8l = (width: number, height: number) => {
      const bits = (width - 1) | ((height - 1) << 14);
      return bytes(
        "RIFF\0\0\0\0WEBPVP8L\0\0\0\0",
        [0x2f],
        [bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, bits >>> 24],
      );
    };
    const vp8x = (width: number, height: number) =>
      bytes("RIFF\0\0\0\0WEBPVP8X\0\0\0\0", [0, 0, 0, 0], le24(width - 1), le24(height - 1));
    const sized = [
      png,
      pngOf(1024, 600),
      jpeg(800, 1024),
      gif(0),
      vp8(400, 400),
      vp8l(1024, 1),
      vp8x(64, 64),
    ];
    const oversized = [
      pngOf(20_000, 20_000),
      pngOf(1025, 1),
      jpeg(40_000, 40_000),
      gif(2000),
      vp8(16_383, 16_383),
      vp8l(1, 1025),
      vp8x(16_384, 16_384),
    ];
    expect(sized.map(imageSizeOf)).toEqual([
      { width: 1, height: 1 },
      { width: 1024, height: 600 },
      { width: 800, height: 1024 },
      { width: 16, height: 16 },
      { width: 400, height: 400 },
      { width: 1024, height: 1 },
      { width: 64, height: 64 },
    ]);
    expect(sized.map(isSmallImage)).toEqual(sized.map(() => true));
    expect(oversized.map(isSmallImage)).toEqual(oversized.map(() => false));
    expect(imageSizeOf(gif(2000))).toEqual({ width: 2016, height: 16 });
    // Cut short, or with no size where it should be: not kept.
    for (const cut of [
      png.subarray(0, 20),
      jpeg(10, 10).subarray(0, 12),
      bytes("GIF89a", [1]),
      pngOf(0, 1),
    ]) {
      expect(isSmallImage(cut)).toBe(false);
    }
  });
});

describe("a Fediverse post as a comment", () => {
  const site = "https://ewe.example/fediverse/actors/site";

  it("keeps paragraphs and links, drops the mention of the site and every tag", () => {
    const html =
      '<p><span class="h-card"><a href="https://ewe.example/about" class="u-url mention">@<span>arjun</span></a></span> Thanks! <script>alert(1)</script>See <a href="https://example.org/__init__" rel="nofollow"><span class="invisible">https://</span>example.org/__init__</a> and <a href="https://mastodon.example/tags/engines" class="mention hashtag">#<span>engines</span></a></p><p>Second <b>line</b><br>third &amp; *last*</p>';
    const text = noteMarkdown(html, { dropMentionsOf: [site, "https://ewe.example/about"] });
    expect(text).toBe(
      "Thanks! See <https://example.org/__init__> and \\#engines\n\nSecond line\nthird \\& \\*last\\*",
    );
    // The link as the page shows it: its own address, linked, none of it read as emphasis.
    expect(renderComment(text)).toBe(
      '<p>Thanks! See <a href="https://example.org/__init__" rel="nofollow ugc noopener">https://example.org/__init__</a> and #engines</p>\n<p>Second line<br>\nthird &amp; *last*</p>',
    );
  });

  it("shows nothing of what the post's HTML comments hold, a link least of all", () => {
    const html = `<p>Hello<!-- <a href="https://phish.example/">your bank</a> --> there</p><p>End<!-- <a href="https://phish.example/">open</a>`;
    expect(noteMarkdown(html, { dropMentionsOf: [] })).toBe("Hello there\n\nEnd");
    // 250 kB of comments opened and never closed cost no more than any other text.
    const started = performance.now();
    noteMarkdown(`<p>${"<!-- x".repeat(40_000)}`, { dropMentionsOf: [] });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("keeps a content warning as the first line, and a comment's length", () => {
    const long = `<p>${"word ".repeat(600)}</p>`;
    const text = noteMarkdown(long, { contentWarning: "engine talk", dropMentionsOf: [] });
    expect(text.startsWith("**Content warning: engine talk**\n\n")).toBe(true);
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text.length).toBeGreaterThan(1990);
    expect(text.endsWith("…")).toBe(true);
  });

  it("keeps out the characters the comment form refuses, however the post writes them", () => {
    const html =
      "<p>Hi &#x1b;]0;owned&#7; &#x202E;reversed\u2066 \u0000nul, but \u{1F469}\u200D\u{1F52C} and\ta tab,\r\nhalf\uD800 an emoji</p>";
    const text = noteMarkdown(html, {
      contentWarning: "spoiler &#x202E;ahead&#x1b;[2J",
      dropMentionsOf: [],
    });
    expect(text).toBe(
      "**Content warning: spoiler ahead\\[2J**\n\nHi \\]0;owned reversed nul, but \u{1F469}\u200D\u{1F52C} and\ta tab,\nhalf an emoji",
    );
    expect(hasNoControlOrDirectionCharacters(text)).toBe(true);
  });

  it("shows a character reference the post shows as text as that text, not as its character", () => {
    const html = "<p>Write &amp;rlm; or &amp;lt;b&amp;gt; &amp;amp; see</p>";
    const page = renderComment(noteMarkdown(html, { dropMentionsOf: [] }));
    expect(page).toBe("<p>Write &amp;rlm; or &amp;lt;b&amp;gt; &amp;amp; see</p>");
    expect(hasNoControlOrDirectionCharacters(page)).toBe(true);
  });

  it("gives a name a comment can carry", () => {
    expect(remoteName("Asha :verified: Rao\u202e", "@asha@m.example")).toBe("Asha Rao");
    expect(remoteName("", "@asha@m.example")).toBe("@asha@m.example");
    expect([...remoteName("x".repeat(80), "y")].length).toBe(40);
    // Words a tab or line break kept apart stay apart; half an emoji goes.
    expect(remoteName("Asha\tRao\nof\u2028Pune\uD83D", "y")).toBe("Asha Rao of Pune");
  });
});
