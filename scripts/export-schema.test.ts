import { describe, expect, it } from "vitest";
import { schemaText, writtenSchema } from "./export-schema.ts";

describe("the export's JSON Schema", () => {
  it("is the one the export's table list gives (npm run export-schema writes it)", () => {
    expect(JSON.parse(writtenSchema())).toEqual(JSON.parse(schemaText()));
  });
});
