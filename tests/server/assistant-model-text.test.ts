import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWriter } from "../../server/assistant/writer.ts";
import { type ModelStub, startModelStub } from "../support/model-stub.ts";

/*
 * What a model's answer may look like on the reader's screen (docs/product.md,
 * "Chat with Me", "Written answers"): whatever the model sends, the text the
 * reader is shown, piece by piece and whole, holds a blank line at most between
 * its paragraphs. No database: the writer alone, against the model's stand-in.
 */

const cotton = "What temperature should I iron cotton at?";

describe("a model that runs on into line breaks", () => {
  let model: ModelStub;
  const warnings: string[] = [];
  const writer = () =>
    createWriter({
      url: model.url,
      model: "site-writer:8b",
      timeoutMs: 10_000,
      perDay: 100,
      log: { warn: (_, message) => warnings.push(message) },
    });

  beforeAll(async () => {
    model = await startModelStub();
  });
  afterAll(() => model?.close());

  it("is shown with a blank line at most between paragraphs, as it streams and whole", async () => {
    model.behave({
      write: [
        "\n\n",
        "\n  Cotton takes a hot iron [1].",
        "\n".repeat(300),
        " \n \n\n",
        "Linen takes hotter still.\n\n\n",
        "\n\nSilk far less [2].\n",
        "\n\n\n",
      ],
    });
    const pieces: string[] = [];
    const answer = await writer().write(cotton, [], { onText: (text) => pieces.push(text) });
    const expected =
      "Cotton takes a hot iron [1].\n\nLinen takes hotter still.\n\nSilk far less [2].";
    expect(answer).toBe(expected);
    // What the Conversation showed as it came: the same, but for the trailing line breaks.
    expect(pieces.join("").trimEnd()).toBe(expected);
    expect(warnings).toEqual([]);
  });

  it("is shown so when the model's server answers in one piece, not streamed", async () => {
    model.behave({
      raw: {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          choices: [
            { message: { content: `Cotton takes a hot iron [1].${"\n".repeat(400)}Silk less.` } },
          ],
        }),
      },
    });
    expect(await writer().write(cotton, [])).toBe("Cotton takes a hot iron [1].\n\nSilk less.");
  });
});
