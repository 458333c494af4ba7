import type { HealthResponse } from "../../../contract/console.ts";
import { plural } from "../../../contract/plural.ts";
import { useConsoleData } from "../console-api.ts";
import { Table } from "../data.tsx";
import { Fact, Facts, Loading, Panel, When } from "../ui.tsx";

/** What each kind of Fediverse queue message is, to the owner. */
const kinds: Record<string, string> = {
  outbox: "A delivery to a server",
  fanout: "The deliveries to followers' servers",
  inbox: "An activity received",
  "ewe:take-back": "The Deletes of your answers",
};

/** The Fediverse messages given up in the last 30 days (docs/fediverse.md): the latest, and how many more. */
function GivenUp({ total, latest }: HealthResponse["fediverseGivenUp"]) {
  if (total === 0) return "Nothing given up in the last 30 days";
  const more = total - latest.length;
  return (
    <>
      {total} {total === 1 ? "message" : "messages"} given up in the last 30 days
      <ul className="mt-1 space-y-1">
        {latest.map(({ id, kind, activity, why, at }) => (
          <li key={id} className="break-all">
            {kinds[kind] ?? kind}
            {activity ? <> ({activity})</> : null}, given up <When iso={at} />; last failure: {why}
          </li>
        ))}
      </ul>
      {more > 0 ? <p className="mt-1">and {more} more before these</p> : null}
    </>
  );
}

/** The owner's busy calendar (docs/product.md, "Book a call"): its last read, and whether it stands. */
function BusyCalendar({ readAt, failedAt, why, inForce, skipped }: NonNullable<Busy>) {
  const kept = failedAt ? "; its last busy times are kept for a day after that read" : "";
  return (
    <>
      {readAt ? (
        <>
          Read <When iso={readAt} />
        </>
      ) : (
        "Not read yet"
      )}
      {failedAt ? (
        <>
          ; the last try failed <When iso={failedAt} /> ({why})
        </>
      ) : null}
      {inForce ? kept : "; free times come from your hours alone"}
      {skipped > 0
        ? `; ${plural(skipped, "event")} skipped: could not be expanded (each keeps its first time busy)`
        : ""}
    </>
  );
}
type Busy = HealthResponse["busyCalendar"];

export function HealthView() {
  const { loaded } = useConsoleData("GET /admin/health");
  return (
    <Loading loaded={loaded}>
      {({
        database,
        liveEvents,
        outbox,
        fediverseGivenUp,
        busyCalendar,
        version,
        node,
        settings,
      }) => (
        <div className="grid gap-5 xl:grid-cols-2">
          <Panel title="Status">
            <Facts>
              <Fact
                label="Database"
                value={`${database.kind === "sqlite" ? "SQLite" : "PostgreSQL"}, ${database.reachable ? "answering" : "not answering"}`}
              />
              <Fact
                label="Live events"
                value={liveEvents === "listening" ? "Listening" : "Reconnecting"}
              />
              <Fact
                label="Outbox"
                value={
                  <>
                    {outbox.queued} mails waiting, {outbox.failed} given up
                    {outbox.scheduled > 0
                      ? `, ${outbox.scheduled} due later (reminders and digests)`
                      : ""}
                    {outbox.oldestQueuedAt ? (
                      <>
                        {" "}
                        (oldest queued <When iso={outbox.oldestQueuedAt} />)
                      </>
                    ) : null}
                  </>
                }
              />
              <Fact label="Fediverse" value={<GivenUp {...fediverseGivenUp} />} />
              {busyCalendar ? (
                <Fact label="Busy calendar" value={<BusyCalendar {...busyCalendar} />} />
              ) : null}
              <Fact label="Version" value={`${version} on Node.js ${node}`} />
            </Facts>
          </Panel>
          <Panel title="Settings">
            {/* Fixed columns, each value wrapping anywhere: no name or path widens a phone's screen. */}
            <Table
              caption="Active settings; secrets are masked"
              className="table-fixed font-mono text-xs"
              head={["Variable", "Value"]}
              rows={settings.map(({ name, value }) => [
                name,
                value ?? <span className="text-slate-400">(not set)</span>,
              ])}
            />
          </Panel>
        </div>
      )}
    </Loading>
  );
}
