import { useConsoleData } from "../console-api.ts";
import { Table } from "../data.tsx";
import { Fact, Facts, Loading, Panel, When } from "../ui.tsx";

export function HealthView() {
  const { loaded } = useConsoleData("GET /admin/health");
  return (
    <Loading loaded={loaded}>
      {({ database, liveEvents, outbox, version, node, settings }) => (
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
                    {outbox.queued} waiting, {outbox.failed} failed
                    {outbox.oldestQueuedAt ? (
                      <>
                        {" "}
                        (oldest queued <When iso={outbox.oldestQueuedAt} />)
                      </>
                    ) : null}
                  </>
                }
              />
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
