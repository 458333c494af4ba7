import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/*
 * The layers of docs/architecture.md ("Layers") are enforced by the lint
 * (biome.json, noRestrictedImports per folder). Each case lints one file,
 * placed where it would sit in the repository, with the project's own config.
 */
const root = path.resolve(import.meta.dirname, "..");
const biome = path.join(root, "node_modules", ".bin", "biome");
const scratch = mkdtempSync(path.join(tmpdir(), "ewe-layers-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Diagnostic = { category: string; message: string };

function lintAt(file: string, source: string): Diagnostic[] {
  const dir = mkdtempSync(path.join(scratch, "case-"));
  copyFileSync(path.join(root, "biome.json"), path.join(dir, "biome.json"));
  const target = path.join(dir, file);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, source);
  let output: string;
  try {
    output = execFileSync(
      biome,
      ["lint", "--vcs-enabled=false", "--reporter=json", "--max-diagnostics=50", target],
      { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
    );
  } catch (error) {
    // Biome exits non-zero when it finds an error; the report is still on stdout.
    output = (error as { stdout: string }).stdout;
  }
  const report = JSON.parse(output) as { diagnostics: Diagnostic[] };
  return report.diagnostics.filter((d) => d.category === "lint/style/noRestrictedImports");
}

const importing = (specifier: string) =>
  `import { thing } from "${specifier}";\n\nexport const used = thing;\n`;

describe("import boundaries", () => {
  it.each([
    ["a feature importing another feature", "app/features/reactions/x.ts", "../comments/x.ts"],
    [
      "browser code importing the server",
      "app/features/comments/x.ts",
      "../../../server/config.ts",
    ],
    ["browser code importing Node", "app/lib/x.ts", "node:fs"],
    ["shared browser code importing a feature", "app/lib/x.ts", "../features/search/x.ts"],
    ["a component importing an island", "app/components/x.tsx", "../islands/header.tsx"],
    ["the contract importing the server", "contract/x.ts", "../server/config.ts"],
    ["the contract importing the browser", "contract/x.ts", "../app/lib/x.ts"],
    ["the server importing browser code", "server/web/x.ts", "../../app/lib/site-name.ts"],
    [
      "the server importing a browser feature it does not render",
      "server/web/x.ts",
      "../../app/features/comments/comment-section.tsx",
    ],
  ])("refuses %s", (_case, file, specifier) => {
    expect(lintAt(file, importing(specifier))).toEqual([
      expect.objectContaining({ category: "lint/style/noRestrictedImports" }),
    ]);
  });

  it.each([
    ["a feature importing shared code", "app/features/reactions/x.ts", "../../lib/api-client.ts"],
    ["a feature importing its own module", "app/features/reactions/x.ts", "./use-reactions.ts"],
    ["a feature importing the contract", "app/features/comments/x.ts", "../../../contract/api.ts"],
    ["an island composing features", "app/islands/x.tsx", "../features/comments/x.tsx"],
    ["the server importing the contract", "server/x.ts", "../contract/api.ts"],
    [
      "the server importing the comment view it renders into pages",
      "server/web/x.ts",
      "../../app/features/comments/comment-view.ts",
    ],
  ])("allows %s", (_case, file, specifier) => {
    expect(lintAt(file, importing(specifier))).toEqual([]);
  });
});
