import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type BlocklistEntries, createBlocklist } from "./blocklist.ts";
import { checkEnquiryContent } from "./enquiry-rules.ts";

/*
 * What an enquiry's text may and may not carry (docs/product.md, "Enquiries"):
 * the comment rules' blocklist, look-alike and keyword-stuffing checks, but
 * links, addresses and phone numbers pass, since only the owner reads it.
 */

const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-enquiry-rules-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The defaults, as the app reads them, plus what an owner adds to their own file. */
function blocklist(ownEntries: string[] = []): BlocklistEntries {
  const list = createBlocklist(dataDir);
  writeFileSync(list.file, `${ownEntries.join("\n")}\n`);
  return list.entries();
}

const check = (text: string, entries = blocklist()) => checkEnquiryContent(text, entries);

describe("checkEnquiryContent", () => {
  it("accepts an ordinary enquiry with links, an address and a phone number", () => {
    expect(
      check(
        "We need a DFMEA workshop for our fuel pump module. Drawings at https://example.org/pump.pdf and https://drive.example.com/x; write to ravi@example.com or call +44 20 7946 0958.",
      ),
    ).toBeNull();
    // A well-known site under its own name is no imitation.
    expect(check("Our spec follows https://www.google.com/search?q=iso+26262 closely.")).toBeNull();
  });

  it("refuses a link to a look-alike or imitating host", () => {
    for (const text of [
      "Please log in at https://paypa1-secure.com/verify to see the drawings.",
      "Our portal is https://google.account-check.net/login for the documents.",
      "The files are at https://xn--pple-43d.com/share for your review.",
      "The files are at https://аpple.com/share for your review.",
    ]) {
      expect({ text, refusal: check(text) }).toEqual({
        text,
        refusal: { code: "blocked_content", message: expect.stringMatching(/look-alike/) },
      });
    }
  });

  it("refuses links to blocked sites, the defaults' and the owner's own", () => {
    expect(check("See https://bit.ly/3abcdef for the brief, thank you.")).toEqual({
      code: "blocked_content",
      message: expect.stringMatching(/does not accept/),
    });
    const own = blocklist(["rival-spam.org"]);
    expect(check("Details at https://www.rival-spam.org/brief for you.", own)).toEqual({
      code: "blocked_content",
      message: expect.stringMatching(/does not accept/),
    });
    expect(check("Details at https://www.rival-spam.org/brief for you.")).toBeNull();
  });

  it("refuses blocked words however they are spelt", () => {
    for (const text of [
      "Cheap viagra for your engineering team, order today please.",
      "We run a C@S1NO and need a chatbot for the players, quickly.",
    ]) {
      expect(check(text)).toEqual({
        code: "blocked_content",
        message: expect.stringMatching(/blocks because spam/),
      });
    }
  });

  it("refuses keyword stuffing, by hashtags or by repeated words", () => {
    for (const text of [
      "#engine #design #dfmea #cad #ev #motor need a quote",
      "engine design engine design engine design engine design engine price engine cost engine",
    ]) {
      expect({ text, refusal: check(text) }).toEqual({
        text,
        refusal: { code: "blocked_content", message: expect.stringMatching(/list of keywords/) },
      });
    }
  });

  it("checks every part of the text it is given, as the service joins message, organisation and timeline", () => {
    const text = ["A plain request for a tolerance stack-up review.", "Acme", "see bit.ly/x"].join(
      "\n",
    );
    expect(check(text)?.message).toMatch(/does not accept/);
  });
});
