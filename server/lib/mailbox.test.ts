import { expect, it } from "vitest";
import { mailboxDigest, mailboxOf, readableAddress } from "./mailbox.ts";

it("counts a limit by the loose mailbox, and keeps a stop to the mailbox it reaches", () => {
  const limit = mailboxDigest("secret", "a limit");
  const stop = mailboxDigest("secret", "a stop", { loose: false });
  expect(limit("A.Lice+x@example.org")).toBe(limit("alice@example.org"));
  expect(stop("A.Lice+x@example.org")).toBe(stop("a.lice@example.org"));
  expect(stop("a.lice@example.org")).not.toBe(stop("alice@example.org"));
  expect(stop("A.Lice+x@GoogleMail.com")).toBe(stop("alice@gmail.com"));
  expect(stop("alice@example.org")).not.toBe(limit("alice@example.org"));
});

it("folds every spelling of one mailbox a report may carry, and keeps other mailboxes apart", () => {
  const same = [
    ["alice@example.com", '"alice"@example.com', "Alice@Example.com.", '"Al\\ice"@example.com'],
    ["a@xn--bcher-kva.example", "a@bücher.example", "A@BÜCHER.EXAMPLE.", "a@XN--BCHER-KVA.example"],
    ["élodie@example.fr", "ÉLODIE@example.fr", "E\u0301lodie@example.fr", '"élodie"@example.fr'],
  ];
  for (const [first, ...others] of same) {
    for (const other of others)
      expect(mailboxOf(other, { loose: false }), other).toBe(mailboxOf(first!, { loose: false }));
  }
  for (const [a, b] of [
    ['"a b"@example.com', "ab@example.com"],
    ['"a@b"@example.com', "a@example.com"],
    ["a@example.com", "a@example.co"],
    // Not names DNS holds: the URL parser reads them as others (a %-escape, an IPv4 number).
    ["a@gm%61il.com", "a@gmail.com"],
    ["a@0x7f.1", "a@127.0.0.1"],
  ]) {
    expect(mailboxOf(a!, { loose: false })).not.toBe(mailboxOf(b!, { loose: false }));
  }
});

it("shows a domain in Unicode only where it cannot pass for another, as browsers do", () => {
  const shown = (domains: string[]) => domains.map((domain) => readableAddress(`a@${domain}`));
  const unicode = [
    "bücher.example",
    "пример.рф",
    "аррӏе.рф",
    "ελληνικά.gr",
    "テスト例え.jp",
    "中国abc.cn",
    "한국.kr",
  ];
  expect(shown(unicode)).toEqual(unicode.map((domain) => `a@${domain}`));
  // Typed in Unicode or kept in punycode, a look-alike shows in punycode: a Cyrillic "а" in
  // "gmаil", a Greek "α" in "αbc", Cyrillic letters that look Latin ("аррӏе"), a fraction slash.
  expect(shown(["gmаil.com", "xn--gmil-63d.com", "αbc.com", "аррӏе.com", "ab⁄c.com"])).toEqual(
    [
      "xn--gmil-63d.com",
      "xn--gmil-63d.com",
      "xn--bc-b9b.com",
      "xn--80ak6aa92e.com",
      "xn--abc-pt0a.com",
    ].map((domain) => `a@${domain}`),
  );
  // A domain with nothing internationalised is left as written.
  expect(shown(["Example.COM", "0x7f.1"])).toEqual(["a@Example.COM", "a@0x7f.1"]);
});

it("shows a Latin look-alike made of phonetic letters, clicks or a stray mark in punycode", () => {
  const shown = (domains: string[]) => domains.map((domain) => readableAddress(`a@${domain}`));
  // A script "ɡ", a Latin alpha, a small capital, a click for "l", a dot above an "i",
  // a stroke through "m": each reads as an ASCII name.
  expect(
    shown([
      "ɡmail.com",
      "ɑpple.com",
      "ᴀpple.com",
      "paypaǀ.com",
      "gmai\u0307l.com",
      "co\u0337m.com",
    ]),
  ).toEqual(
    [
      "xn--mail-z7b.com",
      "xn--pple-p5b.com",
      "xn--pple-k13a.com",
      "xn--paypa-9tb.com",
      "xn--gmail-bgd.com",
      "xn--com-rjc.com",
    ].map((domain) => `a@${domain}`),
  );
  // Letters languages write stay in Unicode: Azerbaijani's "ə", Ewe's "ɛ", Vietnamese.
  const written = ["müəllim.az", "ɛwe.example", "tiếngviệt.vn"];
  expect(shown(written)).toEqual(written.map((domain) => `a@${domain}`));
  // A letter that maps to ASCII ("ℊ") is shown as it maps.
  expect(readableAddress("a@ℊmail.com")).toBe("a@gmail.com");
});
