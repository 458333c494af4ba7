import { describe, expect, it } from "vitest";
import { documentedDrawing, problemWith, serverImports } from "./server-imports.ts";

/*
 * The drawing of the server's imports in docs/architecture.md ("Server floors")
 * is the one `npm run imports:server` draws from the code, and the code has no
 * import that runs up a floor.
 */
describe("the server's imports", () => {
  const cruised = serverImports();

  it("run up no floor and sideways between no services", async () => {
    expect((await cruised).problems).toEqual([]);
  });

  it("are drawn in docs/architecture.md as the code has them", async () => {
    expect(
      documentedDrawing(),
      "run `npm run imports:server -- --write` to redraw docs/architecture.md",
    ).toBe((await cruised).drawing);
  });

  it("would be refused up a floor, sideways, or from a folder on no floor", () => {
    expect(problemWith("engagement", "web")).toMatch(/a floor above it/);
    expect(problemWith("newsletter", "notifications")).toMatch(/beside it on the same floor/);
    expect(problemWith("drawer", "lib")).toMatch(/server\/drawer is on no floor/);
    expect(problemWith("web", "engagement")).toBeUndefined();
    expect(problemWith("db", "config.ts")).toBeUndefined();
  });
});
