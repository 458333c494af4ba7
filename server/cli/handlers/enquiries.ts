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
  type CommandContext,
  exitCodes,
  parseId,
  usageError,
  writePrivateFile,
} from "../command.ts";
import { AdminError } from "../sqlite-files.ts";

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

/** `enquiries list` (commands/enquiries.ts). */
export async function enquiriesList({ values, stdout, store }: CommandContext): Promise<number> {
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
      ["id", "created_at", "status", "kept", "service", "name", "email", "organisation", "message"],
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
}

/** `enquiries show` (commands/enquiries.ts). */
export async function enquiriesShow({
  positionals,
  values,
  stdout,
  store,
}: CommandContext): Promise<number> {
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
}

/** `enquiries close` (commands/enquiries.ts). */
export async function enquiriesClose({
  positionals,
  values,
  stdout,
  store,
  actor,
}: CommandContext): Promise<number> {
  const id = parseId(positionals[0], "ID");
  if (!(await (await repositoryOf(store)).update(id, { status: "closed" }))) {
    throw new AdminError(`There is no enquiry ${id}.`, exitCodes.notFound);
  }
  await actor.audit("enquiry closed", `enquiry ${id}`);
  stdout.write(
    values.json ? `${JSON.stringify({ id, status: "closed" })}\n` : `Closed enquiry ${id}.\n`,
  );
  return exitCodes.ok;
}

/** `enquiries delete` (commands/enquiries.ts). */
export async function enquiriesDelete({
  positionals,
  values,
  stdout,
  store,
  actor,
}: CommandContext): Promise<number> {
  const id = parseId(positionals[0], "ID");
  if (!(await (await repositoryOf(store)).delete(id))) {
    throw new AdminError(`There is no enquiry ${id}.`, exitCodes.notFound);
  }
  await actor.audit("enquiry delete", `enquiry ${id}`);
  stdout.write(
    values.json ? `${JSON.stringify({ id, deleted: true })}\n` : `Deleted enquiry ${id}.\n`,
  );
  return exitCodes.ok;
}

/** `enquiries export` (commands/enquiries.ts). */
export async function enquiriesExport({
  values,
  stdout,
  stderr,
  store,
  actor,
}: CommandContext): Promise<number> {
  const list = (await (await repositoryOf(store)).list({ limit: 100_000 })).map(describe);
  const csv = enquiriesCsv(list);
  await actor.audit("enquiries export", `${list.length} enquiries`);
  if (typeof values.out === "string") {
    writePrivateFile(values.out, csv);
    stderr.write(`Wrote ${plural(list.length, "enquiry", "enquiries")} to ${values.out}.\n`);
  } else {
    stdout.write(csv);
  }
  return exitCodes.ok;
}
