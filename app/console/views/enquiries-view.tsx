import { type FormEvent, useState } from "react";
import type { Enquiry, EnquiryStatusName } from "../../../contract/enquiries.ts";
import { enquiryStatuses } from "../../../contract/enquiry-choices.ts";
import { limits } from "../../../contract/limits.ts";
import { ConfirmButton } from "../confirm-button.tsx";
import { act, consoleApi, useBusy, useConsoleData, useSettled } from "../console-api.ts";
import { List } from "../data.tsx";
import { useRefusal } from "../refusal.tsx";
import {
  ActButton,
  buttonClass,
  Choice,
  Fact,
  Facts,
  Input,
  Loading,
  primaryClass,
  When,
} from "../ui.tsx";

const statusLabels: Record<EnquiryStatusName, string> = {
  new: "New",
  answered: "Answered",
  closed: "Closed",
};

/** One enquiry: everything the sender wrote, its answers, and what the owner can do with it. */
function EnquiryCard({ enquiry, changed }: { enquiry: Enquiry; changed: () => Promise<void> }) {
  const [answer, setAnswer] = useState("");
  const [sending, busyWhile] = useBusy();
  const refusal = useRefusal(["body"]);
  const params = { id: enquiry.id };

  function sendAnswer(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (answer.trim() === "" || sending) return;
    refusal.clear();
    const field = event.currentTarget.querySelector("textarea");
    const send = async () => {
      await consoleApi("POST /admin/enquiries/:id/answers", { params, body: { body: answer } });
      setAnswer("");
    };
    // Sent, Send answer stays disabled until more is written: the field takes the focus.
    void busyWhile(
      () => act(send, `Answer to ${enquiry.name} queued`, changed, refusal.refused),
      () => field,
    );
  }

  const mark = (label: string, status: EnquiryStatusName) => (
    <ActButton
      label={label}
      call={["PATCH /admin/enquiries/:id", { params, body: { status } }]}
      done={`Marked ${statusLabels[status].toLowerCase()}`}
      after={changed}
    />
  );

  return (
    <article
      aria-label={`Enquiry from ${enquiry.name}`}
      className="rounded-2xl border border-line bg-panel p-5"
    >
      <header className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 className="min-w-0 text-base font-semibold wrap-anywhere text-slate-100">
          {enquiry.name} · {enquiry.serviceTitle}
        </h2>
        <p className="text-sm text-slate-400">
          <When iso={enquiry.createdAt} /> ·{" "}
          <span className="font-medium text-slate-200">{statusLabels[enquiry.status]}</span>
          {enquiry.kept ? " · kept" : ""}
        </p>
      </header>
      <Facts>
        <Fact label="Email" value={enquiry.email} href={`mailto:${enquiry.email}`} />
        <Fact label="Organisation" value={enquiry.organisation} />
        <Fact label="Timeline" value={enquiry.timeline} />
      </Facts>
      <p className="mt-3 border-l-2 border-accent/60 pl-4 break-words whitespace-pre-wrap text-slate-100">
        {enquiry.message}
      </p>
      {enquiry.answers.length > 0 ? (
        <section aria-label={`Answers to ${enquiry.name}`} className="mt-4 space-y-3">
          {enquiry.answers.map((each) => (
            <div key={each.id} className="rounded-lg bg-ink/60 p-3 text-sm">
              <p className="text-slate-400">
                Answered <When iso={each.createdAt} />
              </p>
              <p className="mt-1 break-words whitespace-pre-wrap text-slate-200">{each.body}</p>
            </div>
          ))}
        </section>
      ) : null}
      <form onSubmit={sendAnswer} className="mt-4 space-y-2">
        <Input
          label={`Answer ${enquiry.name} by mail`}
          rows={4}
          maxLength={limits.enquiryAnswerMax}
          value={answer}
          onChange={setAnswer}
          {...refusal.field("body")}
        />
        {refusal.problem}
        {/* Every card has the same buttons: the group says whose they are. */}
        <fieldset
          aria-label={`Enquiry from ${enquiry.name}`}
          className="flex min-w-0 flex-wrap gap-2"
        >
          <button type="submit" className={primaryClass} disabled={sending || answer.trim() === ""}>
            {sending ? "Sending…" : "Send answer"}
          </button>
          {enquiry.status !== "answered" ? mark("Mark answered", "answered") : null}
          {enquiry.status !== "closed" ? mark("Close", "closed") : mark("Reopen", "new")}
          <ActButton
            label="Keep"
            pressed={enquiry.kept}
            call={["PATCH /admin/enquiries/:id", { params, body: { kept: !enquiry.kept } }]}
            done={enquiry.kept ? "No longer kept" : "Kept past the retention period"}
            after={changed}
          />
          <ConfirmButton
            label="Delete"
            title={`Delete the enquiry from ${enquiry.name}?`}
            description="The enquiry, its answers and every mail about it are deleted. This cannot be undone."
            call={["DELETE /admin/enquiries/:id", { params }]}
            done={`Deleted the enquiry from ${enquiry.name}`}
            after={changed}
          />
        </fieldset>
      </form>
    </article>
  );
}

/**
 * Enquiries from /services (docs/product.md, "Enquiries"), newest first:
 * a search over name, address, organisation and message, filters by status
 * and service, and on each the full message, the answer by mail, the status,
 * keeping and deletion.
 */
export function EnquiriesView() {
  const [q, setQ] = useState("");
  const search = useSettled(q.trim());
  const [status, setStatus] = useState<EnquiryStatusName | "">("");
  const [service, setService] = useState("");
  const { loaded, reload } = useConsoleData("GET /admin/enquiries", {
    query: {
      q: search || undefined,
      status: status || undefined,
      service: service || undefined,
    },
  });

  return (
    <Loading loaded={loaded}>
      {({ enquiries, services, retentionDays }) => (
        <div className="space-y-5">
          <div className="flex flex-wrap items-end gap-3">
            <search aria-label="Search enquiries" className="flex flex-wrap items-end gap-3">
              <Input label="Search enquiries" type="search" value={q} onChange={setQ} />
              <Choice
                label="Status"
                value={status}
                onChange={setStatus}
                options={[
                  ["", "Any status"],
                  ...enquiryStatuses.map((each) => [each, statusLabels[each]] as const),
                ]}
              />
              <Choice
                label="Service"
                value={service}
                onChange={setService}
                options={[
                  ["", "Any service"],
                  ...services.map((each) => [each.id, each.title] as const),
                ]}
              />
            </search>
            <a href="/api/admin/enquiries/export" download className={buttonClass}>
              Export CSV
            </a>
          </div>
          <p className="text-sm text-slate-400">
            Enquiries are deleted {retentionDays} days after they arrive unless you keep them.
          </p>
          <List
            items={enquiries}
            label="Enquiries, newest first"
            empty={search || status || service ? "No enquiries match." : "No enquiries yet."}
            className="space-y-5"
          >
            {(enquiry) => (
              <li key={enquiry.id}>
                <EnquiryCard enquiry={enquiry} changed={reload} />
              </li>
            )}
          </List>
        </div>
      )}
    </Loading>
  );
}
