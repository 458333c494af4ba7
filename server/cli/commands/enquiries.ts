import { loadServiceTitles } from "../../../content/catalog.ts";
import {
  type Enquiry,
  enquiryStatuses,
  otherService,
  otherServiceLabel,
} from "../../../contract/enquiries.ts";
import { plural } from "../../../contract/plural.ts";
import type { Store } from "../../db/store.ts";
import { enquiriesCsv } from "../../enquiries/export.ts";
import { createEnquiriesRepository, type StoredEnquiry } from "../../enquiries/repository.ts";
import { toTsv } from "../../lib/csv.ts";
import {
  audited,
  type Command,
  exitCodes,
  parseId,
  usageError,
  writePrivateFile,
} from "../command.ts";
import { AdminError } from "../sqlite-files.ts";

/**
 * `enquiries list|show|close|delete|export` (docs/product.md, "Enquiries"):
 * the console's Enquiries screen for scripts and for when the console cannot
 * be reached. Tab-separated and CSV output are safe to open in a spreadsheet
 * (server/lib/csv.ts); every change is audited.
 */

function describe(stored: StoredEnquiry): Enquiry {
  const titles = new Map(loadServiceTitles().map((service) => [service.id, service.title]));
  const { threadId: _thread, ...rest } = stored;
  return {
    ...rest,
    serviceTitle:
      stored.service === otherService
        ? otherServiceLabel
        : (titles.get(stored.service) ?? stored.service),
  };
}

async function repositoryOf(store: () => Promise<Store>) {
  return createEnquiriesRepository(await store());
}

async function existing(store: () => Promise<Store>, id: number): Promise<StoredEnquiry> {
  const found = await (await repositoryOf(store)).get(id);
  if (!found) throw new AdminError(`There is no enquiry ${id}.`, exitCodes.notFound);
  return found;
}

export const enquiryCommands: Command[] = [
  {
    name: "enquiries list",
    usage: "[--status new|answered|closed] [--service ID] [--search TEXT] [--json]",
    summary: "enquiries from the services page, newest first",
    help: `Lists enquiries, newest first, as tab-separated columns: id, created_at,
status, kept, service, name, email, organisation and the message's first
line. A cell that a spreadsheet would run as a formula starts with a '.

  --status S      only new, answered or closed ones
  --service ID    only those about one service (its id on /services, or "other")
  --search TEXT   only those whose name, email, organisation or message contain TEXT
  --json          one JSON array of whole enquiries instead, answers included`,
    options: {
      status: { type: "string" },
      service: { type: "string" },
      search: { type: "string" },
      json: { type: "boolean" },
    },
    async run({ values, stdout, store }) {
      const status = values.status as string | undefined;
      if (status !== undefined && !(enquiryStatuses as readonly string[]).includes(status)) {
        throw usageError(`--status is new, answered or closed, not "${status}".`);
      }
      const list = (
        await (
          await repositoryOf(store)
        ).list({
          status: status as Enquiry["status"] | undefined,
          service: values.service as string | undefined,
          q: values.search as string | undefined,
          limit: 100_000,
        })
      ).map(describe);
      if (values.json) {
        stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        return exitCodes.ok;
      }
      stdout.write(
        toTsv([
          [
            "id",
            "created_at",
            "status",
            "kept",
            "service",
            "name",
            "email",
            "organisation",
            "message",
          ],
          ...list.map((e) => [
            String(e.id),
            e.createdAt,
            e.status,
            e.kept ? "kept" : "",
            e.serviceTitle,
            e.name,
            e.email,
            e.organisation ?? "",
            e.message.split(/\r?\n/)[0] ?? "",
          ]),
        ]),
      );
      return exitCodes.ok;
    },
  },
  {
    name: "enquiries show",
    usage: "ID [--json]",
    summary: "one enquiry in full, with the answers sent",
    help: `Prints one enquiry: who sent it, the service, organisation and timeline,
its status, the whole message and every answer sent from the console. Exit
code 3 when there is no such enquiry.

  --json   the enquiry as JSON instead`,
    arguments: ["ID"],
    options: { json: { type: "boolean" } },
    async run({ positionals, values, stdout, store }) {
      const enquiry = describe(await existing(store, parseId(positionals[0], "ID")));
      if (values.json) {
        stdout.write(`${JSON.stringify(enquiry, null, 2)}\n`);
        return exitCodes.ok;
      }
      const lines = [
        `Enquiry ${enquiry.id}, ${enquiry.createdAt}, ${enquiry.status}${enquiry.kept ? " (kept)" : ""}`,
        `From: ${enquiry.name} <${enquiry.email}>`,
        `Service: ${enquiry.serviceTitle}`,
        ...(enquiry.organisation ? [`Organisation: ${enquiry.organisation}`] : []),
        ...(enquiry.timeline ? [`Timeline: ${enquiry.timeline}`] : []),
        "",
        enquiry.message,
        ...enquiry.answers.flatMap((answer) => ["", `Answered ${answer.createdAt}:`, answer.body]),
      ];
      stdout.write(`${lines.join("\n")}\n`);
      return exitCodes.ok;
    },
  },
  {
    name: "enquiries close",
    usage: "ID [--json]",
    summary: "mark an enquiry closed",
    help: `Marks the enquiry closed (the console can reopen it). Exit code 3 when
there is no such enquiry.

  --json   print {"id":ID,"status":"closed"} instead`,
    arguments: ["ID"],
    options: { json: { type: "boolean" } },
    async run({ positionals, values, stdout, store }) {
      const id = parseId(positionals[0], "ID");
      if (!(await (await repositoryOf(store)).update(id, { status: "closed" }))) {
        throw new AdminError(`There is no enquiry ${id}.`, exitCodes.notFound);
      }
      await audited(store, "enquiry closed", `enquiry ${id}`);
      stdout.write(
        values.json ? `${JSON.stringify({ id, status: "closed" })}\n` : `Closed enquiry ${id}.\n`,
      );
      return exitCodes.ok;
    },
  },
  {
    name: "enquiries delete",
    usage: "ID [--json]",
    summary: "delete an enquiry with its answers and mails",
    help: `Deletes the enquiry, the answers sent to it and every mail about it that
is queued or recorded in the outbox. Exit code 3 when there is no such
enquiry.

  --json   print {"id":ID,"deleted":true} instead`,
    arguments: ["ID"],
    options: { json: { type: "boolean" } },
    async run({ positionals, values, stdout, store }) {
      const id = parseId(positionals[0], "ID");
      if (!(await (await repositoryOf(store)).delete(id))) {
        throw new AdminError(`There is no enquiry ${id}.`, exitCodes.notFound);
      }
      await audited(store, "enquiry delete", `enquiry ${id}`);
      stdout.write(
        values.json ? `${JSON.stringify({ id, deleted: true })}\n` : `Deleted enquiry ${id}.\n`,
      );
      return exitCodes.ok;
    },
  },
  {
    name: "enquiries export",
    usage: "[--out FILE]",
    summary: "every enquiry as CSV, safe to open in a spreadsheet",
    help: `Prints every enquiry as CSV (RFC 4180), newest first: id, created_at,
status, kept, service, name, email, organisation, timeline, message and the
number of answers. A cell that a spreadsheet would run as a formula starts
with a '.

  --out FILE   write to FILE (readable by its owner only) instead of the terminal`,
    options: { out: { type: "string" } },
    async run({ values, stdout, stderr, store }) {
      const list = (await (await repositoryOf(store)).list({ limit: 100_000 })).map(describe);
      const csv = enquiriesCsv(list);
      await audited(store, "enquiries export", `${list.length} enquiries`);
      if (typeof values.out === "string") {
        writePrivateFile(values.out, csv);
        stderr.write(`Wrote ${plural(list.length, "enquiry", "enquiries")} to ${values.out}.\n`);
      } else {
        stdout.write(csv);
      }
      return exitCodes.ok;
    },
  },
];
