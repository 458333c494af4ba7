import { runAdmin } from "./run-admin.ts";

// `npm run admin -- <command>`; `--help` lists the commands.
process.exitCode = await runAdmin(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
