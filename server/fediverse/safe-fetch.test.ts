import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { noteMarkdown, remoteName } from "./note-text.ts";
import { createRemoteFetch, isPrivateAddress, RemoteFetchError } from "./safe-fetch.ts";

describe("remote fetches", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === "/loop") {
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
    await expect(fetchRemote("file:///etc/passwd")).rejects.toThrow(RemoteFetchError);
    await expect(fetchRemote("gopher://example.com/")).rejects.toThrow(RemoteFetchError);
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
});

describe("a Fediverse post as a comment", () => {
  const site = "https://ewe.example/fediverse/actors/site";

  it("keeps paragraphs and links, drops the mention of the site and every tag", () => {
    const html =
      '<p><span class="h-card"><a href="https://ewe.example/about" class="u-url mention">@<span>arjun</span></a></span> Thanks! <script>alert(1)</script>See <a href="https://example.org/a_b" rel="nofollow"><span class="invisible">https://</span>example.org/a_b</a> and <a href="https://mastodon.example/tags/engines" class="mention hashtag">#<span>engines</span></a></p><p>Second <b>line</b><br>third &amp; *last*</p>';
    expect(noteMarkdown(html, { dropMentionsOf: [site, "https://ewe.example/about"] })).toBe(
      "Thanks! See https://example.org/a_b and \\#engines\n\nSecond line\nthird & \\*last\\*",
    );
  });

  it("keeps a content warning as the first line, and a comment's length", () => {
    const long = `<p>${"word ".repeat(600)}</p>`;
    const text = noteMarkdown(long, { contentWarning: "engine talk", dropMentionsOf: [] });
    expect(text.startsWith("**Content warning: engine talk**\n\n")).toBe(true);
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text.length).toBeGreaterThan(1990);
    expect(text.endsWith("…")).toBe(true);
  });

  it("gives a name a comment can carry", () => {
    expect(remoteName("Asha :verified: Rao\u202e", "@asha@m.example")).toBe("Asha Rao");
    expect(remoteName("", "@asha@m.example")).toBe("@asha@m.example");
    expect([...remoteName("x".repeat(80), "y")].length).toBe(40);
  });
});
