import { useState } from "react";
import { shownAddress } from "../../../contract/console-endpoints.ts";
import { ConfirmButton } from "../confirm-button.tsx";
import { useConsoleData, useSettled } from "../console-api.ts";
import { Figures, Pager, Table, usePages } from "../data.tsx";
import { buttonClass, Input, Loading, Panel, When } from "../ui.tsx";

const reasons = {
  hard_bounce: "Refused: no such address",
  complaint: "Reported as spam",
  soft_bounces: "Three temporary refusals in 30 days",
} as const;

/** The columns of a table of addresses: what is known of each (`about`), since when, and its button. */
const head = (about: string) => [
  "Address",
  about,
  "Since",
  <span key="actions" className="sr-only">
    Actions
  </span>,
];

/**
 * Addresses no mail goes to (docs/mail.md, "Bounces and complaints"), with
 * why and since when, a page at a time, or the one address searched for;
 * lifting one lets mail go to it again without subscribing it.
 */
function Suppressions() {
  const [q, setQ] = useState("");
  const email = useSettled(q.trim());
  const pages = usePages();
  const { loaded, reload } = useConsoleData("POST /admin/suppressions/search", {
    body: email ? { email } : pages.after ? { after: pages.after } : {},
  });
  return (
    <Panel title="Suppressed addresses">
      <search aria-label="Search suppressed addresses" className="mb-4">
        <Input label="Find an address" type="search" value={q} onChange={setQ} />
      </search>
      <Loading loaded={loaded}>
        {({ suppressions, next }) => (
          <>
            <Table
              caption="Suppressed addresses, newest first"
              stacked
              empty={
                email
                  ? `${email} is not suppressed.`
                  : pages.number > 1
                    ? "No more addresses: they were lifted meanwhile."
                    : "None: no receiving server has refused an address for good, and nobody has reported a mail as spam."
              }
              head={head("Reason")}
              rows={suppressions.map(({ id, email, domain, reason, source, detail, createdAt }) => [
                shownAddress({ email, domain }),
                <span key="reason">
                  {reasons[reason]} ({source})
                  {detail ? (
                    <span className="block text-xs wrap-anywhere text-slate-400">{detail}</span>
                  ) : null}
                </span>,
                <When key="since" iso={createdAt} />,
                <ConfirmButton
                  key="act"
                  label="Lift"
                  ariaLabel={`Lift the suppression of ${shownAddress({ email, domain })}`}
                  title={`Let mail go to ${shownAddress({ email, domain })} again?`}
                  description="It is not subscribed again. If the address still refuses mail, it is suppressed again at the next refusal."
                  tone="primary"
                  call={["POST /admin/suppressions/lift", { body: email ? { email } : { id } }]}
                  done={`Mail may go to ${shownAddress({ email, domain })} again`}
                  after={reload}
                />,
              ])}
            />
            {email ? null : (
              <Pager label="Pages of suppressed addresses" pages={pages} next={next} />
            )}
          </>
        )}
      </Loading>
    </Panel>
  );
}

export function SubscribersView() {
  const [q, setQ] = useState("");
  const search = useSettled(q.trim());
  const { loaded, reload } = useConsoleData("POST /admin/subscribers/search", {
    body: search ? { q: search } : {},
  });
  // An address typed whole that no subscriber has: a reader who left, whose
  // mails' records stay until forgotten (docs/privacy-requests.md).
  // (A look at its form only: the server reads it as it reads any; no Zod in the console's bundle.)
  const typedAddress = /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(search);
  return (
    <Loading loaded={loaded}>
      {({ counts, subscribers }) => (
        <div className="space-y-5">
          <Figures
            figures={[
              ["Confirmed", counts.confirmed],
              ["Pending", counts.pending],
            ]}
          />
          <div className="flex flex-wrap items-end gap-3">
            <search aria-label="Search subscribers">
              <Input label="Search addresses" type="search" value={q} onChange={setQ} />
            </search>
            <a href="/api/admin/subscribers/export" download className={buttonClass}>
              Export CSV
            </a>
          </div>
          <Table
            caption="Subscribers, newest first"
            // Four columns, one a button, and a time named at length: wider than a phone.
            stacked
            empty={
              typedAddress
                ? "No subscriber has this address. A reader who unsubscribed is listed no more, but the records of the mails sent to them stay until you forget the address."
                : search
                  ? "No addresses match."
                  : "No subscribers yet: readers subscribe with the form at the foot of every page."
            }
            head={head("State")}
            rows={subscribers.map(({ email, status, suppressed, confirmedAt, createdAt }) => [
              email,
              `${status === "confirmed" ? "Confirmed" : "Pending"}${suppressed ? ", suppressed" : ""}`,
              <When key="since" iso={confirmedAt ?? createdAt} />,
              <ConfirmButton
                key="act"
                label="Remove"
                ariaLabel={`Remove ${email}`}
                title={`Remove ${email}?`}
                description="The address gets no more editions. Its owner can subscribe again."
                call={["POST /admin/subscribers/remove", { body: { email } }]}
                done={`Removed ${email}`}
                after={reload}
              />,
            ])}
          />
          {typedAddress && subscribers.length === 0 ? (
            <ConfirmButton
              label="Forget this address"
              title={`Forget ${search}?`}
              description="The records of the confirmations and editions mailed to it are deleted; past editions' figures count those copies no more. A suppression of the address stays."
              confirmLabel="Forget"
              call={["POST /admin/subscribers/remove", { body: { email: search } }]}
              done={`Forgot ${search}`}
              after={reload}
            />
          ) : null}
          <Suppressions />
        </div>
      )}
    </Loading>
  );
}
