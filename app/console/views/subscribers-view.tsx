import { type ReactNode, useState } from "react";
import { act, consoleApi, useConsoleData, useSettled } from "../console-api.ts";
import { buttonClass, ConfirmButton, Input, Loading, Panel, When } from "../ui.tsx";

const reasons = {
  hard_bounce: "Refused: no such address",
  complaint: "Reported as spam",
  soft_bounces: "Three temporary refusals in 30 days",
} as const;

type AddressRow = { email: string; about: ReactNode; since: string; action: ReactNode };

/**
 * A table of addresses, one a row: the address, what is known of it (the
 * column `about`), since when, and the button that acts on it.
 */
function AddressTable({
  caption,
  about,
  rows,
}: {
  caption: string;
  about: string;
  rows: AddressRow[];
}) {
  return (
    <table className="w-full text-left text-sm">
      <caption className="sr-only">{caption}</caption>
      <thead className="text-slate-400">
        <tr>
          <th scope="col" className="py-2 pr-4">
            Address
          </th>
          <th scope="col" className="py-2 pr-4">
            {about}
          </th>
          <th scope="col" className="py-2 pr-4">
            Since
          </th>
          <th scope="col" className="py-2">
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.email} className="border-t border-line align-top">
            <td className="py-2 pr-4 break-all text-slate-100">{row.email}</td>
            <td className="py-2 pr-4">{row.about}</td>
            <td className="py-2 pr-4 text-slate-300">
              <When iso={row.since} />
            </td>
            <td className="py-2 text-right">{row.action}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Addresses no mail goes to (docs/mail.md, "Bounces and complaints"), with
 * why and since when; lifting one lets mail go to it again without
 * subscribing it.
 */
function Suppressions() {
  const { loaded, reload } = useConsoleData("GET /admin/suppressions");
  const lift = (email: string) =>
    act(
      () => consoleApi("POST /admin/suppressions/lift", { body: { email } }),
      `Mail may go to ${email} again`,
      reload,
    );
  return (
    <Panel title="Suppressed addresses">
      <Loading loaded={loaded}>
        {({ suppressions }) =>
          suppressions.length === 0 ? (
            <p className="text-sm text-slate-400">
              None: no receiving server has refused an address for good, and nobody has reported a
              mail as spam.
            </p>
          ) : (
            <AddressTable
              caption="Suppressed addresses, newest first"
              about="Reason"
              rows={suppressions.map((s) => ({
                email: s.email,
                about: (
                  <>
                    {reasons[s.reason]} ({s.source})
                    {s.detail ? (
                      <span className="block break-all text-xs text-slate-400">{s.detail}</span>
                    ) : null}
                  </>
                ),
                since: s.createdAt,
                action: (
                  <ConfirmButton
                    label="Lift"
                    ariaLabel={`Lift the suppression of ${s.email}`}
                    title={`Let mail go to ${s.email} again?`}
                    description="It is not subscribed again. If the address still refuses mail, it is suppressed again at the next refusal."
                    tone="primary"
                    onConfirm={() => void lift(s.email)}
                  />
                ),
              }))}
            />
          )
        }
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

  const remove = (email: string) =>
    act(
      () => consoleApi("POST /admin/subscribers/remove", { body: { email } }),
      `Removed ${email}`,
      reload,
    );

  return (
    <Loading loaded={loaded}>
      {({ counts, subscribers }) => (
        <div className="space-y-5">
          <dl className="flex flex-wrap gap-4">
            {(
              [
                ["Confirmed", counts.confirmed],
                ["Pending", counts.pending],
              ] as const
            ).map(([label, count]) => (
              <div key={label} className="min-w-40 rounded-xl border border-line bg-panel p-4">
                <dt className="text-sm text-slate-400">{label}</dt>
                <dd className="text-3xl font-bold text-slate-100">{count}</dd>
              </div>
            ))}
          </dl>
          <div className="flex flex-wrap items-end gap-3">
            <search aria-label="Search subscribers">
              <Input label="Search addresses" type="search" value={q} onChange={setQ} />
            </search>
            <a href="/api/admin/subscribers/export" download className={buttonClass}>
              Export CSV
            </a>
          </div>
          {subscribers.length === 0 ? (
            <p className="text-slate-400">No addresses match.</p>
          ) : (
            <AddressTable
              caption="Subscribers, newest first"
              about="State"
              rows={subscribers.map((s) => ({
                email: s.email,
                about: s.status === "confirmed" ? "Confirmed" : "Pending",
                since: s.confirmedAt ?? s.createdAt,
                action: (
                  <ConfirmButton
                    label="Remove"
                    title={`Remove ${s.email}?`}
                    description="The address gets no more editions. Its owner can subscribe again."
                    onConfirm={() => void remove(s.email)}
                  />
                ),
              }))}
            />
          )}
          <Suppressions />
        </div>
      )}
    </Loading>
  );
}
