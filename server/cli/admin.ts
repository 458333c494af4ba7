import module from "node:module";
import { createInterface } from "node:readline/promises";

// Each run strips the types of the files it loads (a command loads only its
// own: run-admin.ts) and compiles them with their libraries: Node's compile
// cache (in the system's temporary folder, or NODE_COMPILE_CACHE) keeps both
// between runs, which makes a command start faster and in less memory
// (docs/benchmarks.md, "The owner's export").
module.enableCompileCache?.();
const { runAdmin } = await import("./run-admin.ts");

/** A yes-or-no question on the terminal (on standard error, so piped output stays clean). */
async function confirm(question: string): Promise<boolean> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^(y|yes)$/i.test((await terminal.question(`${question} [y/N] `)).trim());
  } finally {
    terminal.close();
  }
}

// `npm run admin -- <command>`; `--help` lists the commands. Questions are
// asked only when a person is at the terminal; scripts pass --yes instead.
process.exitCode = await runAdmin(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  ...(process.stdin.isTTY ? { confirm } : {}),
});
