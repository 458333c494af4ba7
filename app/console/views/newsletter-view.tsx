import { type FormEvent, useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import type { EditionFile } from "../../../contract/console.ts";
import { plural } from "../../../contract/plural.ts";
import { ConfirmButton } from "../confirm-button.tsx";
import { act, consoleApi, useBusy, useConsoleData } from "../console-api.ts";
import { List, Table } from "../data.tsx";
import { useRefusal } from "../refusal.tsx";
import { buttonClass, Input, Loading, When, whenText } from "../ui.tsx";

function Progress({ edition }: { edition: EditionFile }) {
  const p = edition.progress;
  if (!p) return <p className="text-sm text-slate-400">Not sent yet.</p>;
  const total = p.queued + p.sent + p.failed + p.cancelled;
  return (
    <div className="space-y-1">
      <progress
        className="h-2 w-full accent-accent"
        max={Math.max(total, 1)}
        value={p.sent + p.failed + p.cancelled}
        aria-label={`Progress of ${edition.slug}`}
      />
      <p className="text-sm text-slate-300">
        {p.sent} sent, {p.queued} waiting, {p.failed} failed, {p.cancelled} cancelled
      </p>
      <p className="text-sm text-slate-300">
        {p.bounced} bounced, {plural(p.complaints, "complaint")}, {p.unsubscribes} unsubscribed
        within 7 days
      </p>
      {p.links.length > 0 ? (
        <Table
          caption="Clicks per link (counted per link only: nobody's clicks or opens are recorded)"
          captionShown
          className="mt-2 table-fixed text-slate-300"
          head={["Link", "Clicks"]}
          rows={p.links.map((link) => [link.url, link.clicks])}
        />
      ) : null}
    </div>
  );
}

/** What is wrong with an edition (edition-links.ts): read before a test copy or the sending. */
function LinkWarnings({ edition }: { edition: EditionFile }) {
  if (edition.warnings.length === 0) return null;
  const count = edition.warnings.length;
  return (
    <section
      aria-label={`Warnings about ${edition.slug}`}
      className="mt-3 rounded-lg border border-amber-400/40 bg-amber-400/10 p-3 text-sm wrap-anywhere text-amber-200"
    >
      <p className="font-semibold">{warningsSaid(count)} to read before sending</p>
      <ul className="mt-1 list-disc space-y-1 pl-5">
        {edition.warnings.map((warning) => (
          <li key={warning}>{warning}</li>
        ))}
      </ul>
    </section>
  );
}

/** How many warnings an edition has: links and images that lead nowhere, raw HTML, its length. */
const warningsSaid = (count: number) => plural(count, "warning");

/**
 * Whom Send reaches, as its confirmation says: every confirmed subscriber not suppressed,
 * but for an edition sent before, only those who have not had it, which the count
 * of confirmed addresses does not tell.
 */
function sendReach(edition: EditionFile, confirmed: number, suppressed: number): string {
  const now = plural(confirmed - suppressed, "address", "addresses");
  const leftOut =
    suppressed > 0
      ? `, not to ${plural(suppressed, "suppressed address", "suppressed addresses")}`
      : "";
  const warned =
    edition.warnings.length > 0 ? ` ${warningsSaid(edition.warnings.length)} (listed above).` : "";
  const whom = edition.progress
    ? `It was sent before: it goes only to the confirmed subscribers who have not had it yet, of ${now} now${leftOut}`
    : `It goes to every confirmed subscriber (${now} now)${leftOut}`;
  return `${whom}, at the configured pace. This cannot be undone.${warned}`;
}

/** A toast that says a mail went out with warnings (links that lead nowhere, raw HTML…). */
function warnAbout(warnings: string[]) {
  if (warnings.length > 0) toast.warning(`${warningsSaid(warnings.length)}: ${warnings.join(" ")}`);
}

function Preview({ slug }: { slug: string }) {
  const { loaded } = useConsoleData("GET /admin/editions/:slug", { params: { slug } });
  return (
    <Loading loaded={loaded}>
      {(preview) => (
        <iframe
          title={`Preview of ${preview.subject}`}
          srcDoc={preview.html}
          // Nothing in the mail runs: no scripts, no forms, no navigation.
          sandbox=""
          className="h-[32rem] w-full rounded-lg border border-line bg-white"
        />
      )}
    </Loading>
  );
}

function TestSend({ slug }: { slug: string }) {
  const [to, setTo] = useState("");
  const [busy, busyWhile] = useBusy();
  const refusal = useRefusal(["to"]);
  function submit(event: FormEvent) {
    event.preventDefault();
    refusal.clear();
    void busyWhile(() =>
      act(
        () => consoleApi("POST /admin/editions/:slug/test", { params: { slug }, body: { to } }),
        ({ sent }) =>
          sent === "mail"
            ? `Test copy sent to ${to}`
            : `Test copy to ${to} written to the outbox folder, not mailed (SMTP_URL is not set): open it in a mail program`,
        ({ warnings }) => warnAbout(warnings),
        refusal.refused,
      ),
    );
  }
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-2">
      <Input
        label="Test address"
        type="email"
        required
        value={to}
        onChange={setTo}
        {...refusal.field("to")}
      />
      <button type="submit" disabled={busy} className={buttonClass}>
        Send test
      </button>
      {refusal.problem}
    </form>
  );
}

/**
 * The browser's zone as a time typed at `at` is read in (a datetime-local
 * field's): its name and its offset then ("India Standard Time, GMT+5:30").
 */
function zoneText(at: Date): string {
  const part = (timeZoneName: "long" | "shortOffset") =>
    new Intl.DateTimeFormat("en-GB", { timeZoneName })
      .formatToParts(at)
      .find((each) => each.type === "timeZoneName")?.value;
  return `${part("long")}, ${part("shortOffset")}`;
}

/**
 * Sends the edition later: the time is read in the browser's own zone and
 * sent as UTC. A scheduled edition shows its time and can be cancelled
 * until it starts going out.
 */
function Schedule({ edition, reload }: { edition: EditionFile; reload: () => Promise<void> }) {
  const [at, setAt] = useState("");
  const [busy, busyWhile] = useBusy();
  const refusal = useRefusal(["at"]);
  const { slug } = edition;
  const typed = new Date(at);
  function submit(event: FormEvent) {
    event.preventDefault();
    refusal.clear();
    void busyWhile(() =>
      act(
        () =>
          consoleApi("POST /admin/editions/:slug/schedule", {
            params: { slug },
            body: { at: typed.toISOString() },
          }),
        ({ sendAt }) => `Scheduled for ${whenText(sendAt)}`,
        ({ warnings }) => {
          warnAbout(warnings);
          return reload();
        },
        refusal.refused,
      ),
    );
  }
  const scheduled = edition.scheduled;
  return (
    <div className="flex flex-wrap items-end gap-2">
      {scheduled ? (
        <p className="text-sm text-slate-300">
          {scheduled.started ? "Going out now (scheduled for " : "Scheduled for "}
          <When iso={scheduled.sendAt} />
          {scheduled.started ? ")" : ""}
        </p>
      ) : null}
      {scheduled && !scheduled.started ? (
        <ConfirmButton
          label="Cancel schedule"
          title={`Cancel the sending of "${edition.subject}"?`}
          description="Nothing of it goes out. You can schedule it again or send it now."
          call={["DELETE /admin/editions/:slug/schedule", { params: { slug } }]}
          done="Cancelled: nothing of it goes out"
          after={reload}
        />
      ) : null}
      {scheduled?.started ? null : (
        <form onSubmit={submit} className="flex flex-wrap items-end gap-2">
          <Input
            label="Send at"
            type="datetime-local"
            required
            aria-describedby={`zone-${slug}`}
            value={at}
            onChange={setAt}
            {...refusal.field("at")}
          />
          <button type="submit" disabled={busy} className={buttonClass}>
            {scheduled ? "Change time" : "Schedule"}
          </button>
          {refusal.problem}
          <p id={`zone-${slug}`} className="w-full text-xs text-slate-400">
            In this browser's zone: {zoneText(Number.isNaN(typed.getTime()) ? new Date() : typed)}
          </p>
        </form>
      )}
    </div>
  );
}

export function NewsletterView() {
  const { loaded, reload } = useConsoleData("GET /admin/editions");
  const [previewing, setPreviewing] = useState<string | null>(null);

  // Live progress: while anything waits in the outbox, ask again every two seconds.
  const sending =
    loaded.state === "ready" && loaded.data.editions.some((e) => (e.progress?.queued ?? 0) > 0);
  useEffect(() => {
    if (!sending) return;
    const timer = setInterval(() => void reload(), 2000);
    return () => clearInterval(timer);
  }, [sending, reload]);

  // A sending's end is said once, as its start was: the figures under its bar
  // change every two seconds, which a live region would read out each time.
  const goingOut = useRef(new Set<string>());
  useEffect(() => {
    if (loaded.state !== "ready") return;
    for (const { slug, subject, progress: p } of loaded.data.editions) {
      if ((p?.queued ?? 0) > 0) goingOut.current.add(slug);
      else if (goingOut.current.delete(slug) && p) {
        const failed = p.failed > 0 ? `, ${p.failed} failed` : "";
        toast.success(`"${subject ?? slug}" has gone out: ${p.sent} sent${failed}`);
      }
    }
  }, [loaded]);

  const send = (slug: string) =>
    act(
      () => consoleApi("POST /admin/editions/:slug/send", { params: { slug } }),
      ({ queued, before }) =>
        `Queued for ${plural(queued, "subscriber")}${before > 0 ? `, after ${before} queued since its last send` : ""}`,
      ({ warnings }) => {
        warnAbout(warnings);
        goingOut.current.add(slug);
        return reload();
      },
    );

  return (
    <Loading loaded={loaded}>
      {({ editions, confirmedSubscribers, suppressedSubscribers }) => (
        <List
          items={editions}
          empty='No editions yet: add a Markdown file to the editions folder (docs/mail.md, "Newsletter editions").'
          className="space-y-4"
        >
          {(edition) => (
            <li key={edition.slug} className="rounded-2xl border border-line bg-panel p-5">
              <h2
                id={`edition-${edition.slug}`}
                className="text-lg font-semibold wrap-anywhere text-slate-100"
              >
                {edition.subject ?? edition.slug}
              </h2>
              <p className="font-mono text-xs wrap-anywhere text-slate-400">{edition.slug}.md</p>
              {edition.problem ? (
                <p className="mt-2 text-sm text-amber-300">{edition.problem}</p>
              ) : null}
              <LinkWarnings edition={edition} />
              <div className="mt-3">
                <Progress edition={edition} />
              </div>
              {edition.problem === null ? (
                // Every edition has a Preview, a Send test and a Send: the group names whose they are.
                <fieldset
                  aria-labelledby={`edition-${edition.slug}`}
                  className="mt-4 flex min-w-0 flex-wrap items-end gap-3"
                >
                  <button
                    type="button"
                    className={buttonClass}
                    aria-expanded={previewing === edition.slug}
                    onClick={() => setPreviewing(previewing === edition.slug ? null : edition.slug)}
                  >
                    {previewing === edition.slug ? "Hide preview" : "Preview"}
                  </button>
                  <TestSend slug={edition.slug} />
                  <Schedule edition={edition} reload={reload} />
                  <ConfirmButton
                    label="Send"
                    title={`Send "${edition.subject}"?`}
                    description={sendReach(edition, confirmedSubscribers, suppressedSubscribers)}
                    confirmLabel="Send now"
                    tone="primary"
                    onConfirm={() => void send(edition.slug)}
                  />
                </fieldset>
              ) : null}
              {previewing === edition.slug ? (
                <div className="mt-4">
                  <Preview slug={edition.slug} />
                </div>
              ) : null}
            </li>
          )}
        </List>
      )}
    </Loading>
  );
}
