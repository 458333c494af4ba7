import { createInterface } from "node:readline/promises";
import { runAdmin } from "./run-admin.ts";

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
