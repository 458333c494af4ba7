import path from "node:path";
import { plural } from "../../../contract/plural.ts";
import { writeExport } from "../../portability/export.ts";
import { createExportSigner } from "../../portability/signature.ts";
import { type CommandContext, writePrivateFile } from "../command.ts";

export async function exportAll({ values, config, stdout, store, secret, actor }: CommandContext) {
  const db = await store();
  // The owner's comments are signed with the site's secret, so only this
  // site's own export can mark comments as the owner's when read back.
  const signer = createExportSigner(await secret());
  const write = (sink: (text: string) => Promise<void>) => writeExport(db, config, sink, signer);
  if (typeof values.out === "string") {
    const file = path.resolve(values.out);
    const counts = await writePrivateFile(file, write);
    // After the file is whole, so an export read back re-exports to the same file.
    await actor.audit("export", file);
    const rows = Object.values(counts).reduce((a, b) => a + b, 0);
    stdout.write(`Exported ${plural(rows, "row")} to ${values.out}.\n`);
  } else {
    await write(async (text) => {
      stdout.write(text);
    });
    await actor.audit("export", "standard output");
  }
}
