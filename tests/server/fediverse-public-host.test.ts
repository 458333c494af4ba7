import { describe, expect, it } from "vitest";
import { isPrivateAddress, isPublicHost } from "../../server/lib/safe-fetch.ts";

/*
 * Webmentions are sent only from a site others can reach (a receiver checks
 * each one by fetching our page), and remote fetches never reach our own
 * network: the two judgements behind them.
 */
describe("a site others can reach", () => {
  it("is a public name or address", () => {
    for (const host of [
      "engagewithengineer.com",
      "blog.example.org",
      "93.184.216.34",
      "[2606:4700::1111]",
    ]) {
      expect(isPublicHost(host), host).toBe(true);
    }
  });

  it("is not localhost, a reserved name, a bare name, or a private or loopback address", () => {
    for (const host of [
      "localhost",
      "ewe.localhost",
      "ewe.test",
      "printer.local",
      "site.internal",
      "router.home.arpa",
      "example",
      "127.0.0.1",
      "10.1.2.3",
      "192.168.1.20",
      "[::1]",
      "[fd00::5]",
      "169.254.169.254",
    ]) {
      expect(isPublicHost(host), host).toBe(false);
    }
  });

  it("treats an IPv4 address written as IPv6 as the IPv4 address it is", () => {
    expect(isPrivateAddress("::ffff:127.0.0.1")).toBe(true);
    expect(isPrivateAddress("::ffff:93.184.216.34")).toBe(false);
  });
});
