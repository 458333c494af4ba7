import { loadServiceTitles } from "../../../content/catalog.ts";
import { type Enquiry, enquiryStatuses } from "../../../contract/enquiries.ts";
import { isServiceChoice } from "../../../contract/enquiry-choices.ts";
import { plural } from "../../../contract/plural.ts";
import type { Store } from "../../db/store.ts";
import { enquiryActions, enquiryReader } from "../../enquiries/owner-actions.ts";
import { createEnquiriesRepository } from "../../enquiries/repository.ts";
import {
  AdminError,
  type CommandContext,
  exitCodes,
  ownerAction,
  parseId,
  usageError,
  writeOut,
} from "../command.ts";
import { listed, printedJson } from "../table.ts";

/** The enquiries on the configured database, read as the console reads them, and the owner's actions. */
async function enquiriesOf(store: () => Promise<Store>) {
  const repository = createEnquiriesRepository(await store());
  const { toEnquiry } = enquiryReader(loadServiceTitles());
  return { repository, toEnquiry, actions: enquiryActions({ repository, toEnquiry }) };
}

export const enquiriesList = listed(
  async ({ values, store }) => {
    const status = values.status as string | undefined;
    if (status !== undefined && !(enquiryStatuses as readonly string[]).includes(status)) {
      throw usageError(`--status is new, answered or closed, not "${status}".`);
    }
    const { repository, toEnquiry } = await enquiriesOf(store);
    const list = await repository.list({
      status: status as Enquiry["status"] | undefined,
      service: values.service as string | undefined,
      q: values.search as string | undefined,
      limit: 100_000,
    });
    // A service taken off the site keeps its enquiries; a mistyped id has none.
    const service = values.service;
    if (
      typeof service === "string" &&
      list.length === 0 &&
      !isServiceChoice(loadServiceTitles(), service)
    ) {
      throw new AdminError(
        `There is no service "${service}": its id is the last part of its address, /services/<id>, or "other".`,
        exitCodes.notFound,
      );
    }
    return list.map(toEnquiry);
  },
  ["id", "created_at", "status", "kept", "service", "name", "email", "organisation", "message"],
  (e) => [
    e.id,
    e.createdAt,
    e.status,
    e.kept ? "kept" : "",
    e.serviceTitle,
    e.name,
    e.email,
    e.organisation ?? "",
    e.message.split(/\r?\n/)[0] ?? "",
  ],
);

export async function enquiriesShow({ positionals, values, stdout, store }: CommandContext) {
  const id = parseId(positionals[0], "ID");
  const { repository, toEnquiry } = await enquiriesOf(store);
  const found = await repository.get(id);
  if (!found) throw new AdminError(noEnquiry(id), exitCodes.notFound);
  const enquiry = toEnquiry(found);
  if (printedJson({ values, stdout }, enquiry)) return;
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
}

const enquiryId = ({ positionals }: CommandContext) => parseId(positionals[0], "ID");
const noEnquiry = (id: number) => `There is no enquiry ${id}.`;

export const enquiriesClose = ownerAction(
  enquiryId,
  async ({ store, actor }, id) =>
    (await enquiriesOf(store)).actions.update(actor, id, { status: "closed" }),
  (id, _closed, { json }) =>
    json ? `${JSON.stringify({ id, status: "closed" })}\n` : `Closed enquiry ${id}.\n`,
  noEnquiry,
);

export const enquiriesDelete = ownerAction(
  enquiryId,
  async ({ store, actor }, id) => (await enquiriesOf(store)).actions.remove(actor, id),
  (id, _deleted, { json }) =>
    json ? `${JSON.stringify({ id, deleted: true })}\n` : `Deleted enquiry ${id}.\n`,
  noEnquiry,
);

export async function enquiriesExport(context: CommandContext) {
  const { actions } = await enquiriesOf(context.store);
  await writeOut(context, async () => {
    const { csv, count } = await actions.exportCsv(context.actor);
    return { text: csv, what: plural(count, "enquiry", "enquiries") };
  });
}
