import { once } from "node:events";
import { createWriteStream, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { plural } from "../../../contract/plural.ts";
import { resolveCookieSecret } from "../../engagement/visitor.ts";
import { type Sink, writeExport } from "../../portability/export.ts";
import { createExportSigner } from "../../portability/signature.ts";
import type { CommandContext } from "../command.ts";
import { AdminError } from "../sqlite-files.ts";

/** Streams the export into FILE under a temporary name, readable by its owner only, renamed when whole. */
async function exportToFile(file: string, write: (sink: Sink) => Promise<unknown>) {
  const partial = `${file}.partial-${process.pid}`;
  const stream = createWriteStream(partial, { mode: 0o600 });
  const failed = new Promise<never>((_, reject) => stream.once("error", reject));
  failed.catch(() => {});
  try {
    await write(async (text) => {
      if (!stream.write(text)) await Promise.race([once(stream, "drain"), failed]);
    });
    stream.end();
    await Promise.race([once(stream, "finish"), failed]);
    renameSync(partial, file);
  } catch (error) {
    stream.destroy();
    rmSync(partial, { force: true });
    throw new AdminError(`Cannot write ${file}: ${(error as Error).message}`);
  }
}

export async function exportAll({ values, config, stdout, store, actor }: CommandContext) {
  const db = await store();
  // The owner's comments are signed with the site's secret, so only this
  // site's own export can mark comments as the owner's when read back.
  const signer = createExportSigner(resolveCookieSecret(config));
  if (typeof values.out === "string") {
    const file = path.resolve(values.out);
    let counts: Record<string, number> = {};
    await exportToFile(file, async (sink) => {
      counts = await writeExport(db, config, sink, { signer });
    });
    // After the file is whole, so an export read back re-exports to the same file.
    await actor.audit("export", file);
    const rows = Object.values(counts).reduce((a, b) => a + b, 0);
    stdout.write(`Exported ${plural(rows, "row")} to ${values.out}.\n`);
  } else {
    await writeExport(
      db,
      config,
      async (text) => {
        stdout.write(text);
      },
      { signer },
    );
    await actor.audit("export", "standard output");
  }
}
