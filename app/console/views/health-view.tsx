import { useConsoleData } from "../console-api.ts";
import { Loading, Panel, When } from "../ui.tsx";

export function HealthView() {
  const { loaded } = useConsoleData("GET /admin/health");
  return (
    <Loading loaded={loaded}>
      {(health) => (
        <div className="grid gap-5 xl:grid-cols-2">
          <Panel title="Status">
            <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
              <dt className="text-slate-400">Database</dt>
              <dd>
                {health.database.kind === "sqlite" ? "SQLite" : "PostgreSQL"},{" "}
                {health.database.reachable ? "answering" : "not answering"}
              </dd>
              <dt className="text-slate-400">Live events</dt>
              <dd>{health.liveEvents === "listening" ? "Listening" : "Reconnecting"}</dd>
              <dt className="text-slate-400">Outbox</dt>
              <dd>
                {health.outbox.queued} waiting, {health.outbox.failed} failed
                {health.outbox.oldestQueuedAt ? (
                  <>
                    {" "}
                    (oldest queued <When iso={health.outbox.oldestQueuedAt} />)
                  </>
                ) : null}
              </dd>
              <dt className="text-slate-400">Version</dt>
              <dd>
                {health.version} on Node.js {health.node}
              </dd>
            </dl>
          </Panel>
          <Panel title="Settings">
            {/* Fixed columns, each value wrapping anywhere: no name or path widens a phone's screen. */}
            <table className="w-full table-fixed text-left text-sm">
              <caption className="sr-only">Active settings; secrets are masked</caption>
              <thead className="text-slate-400">
                <tr>
                  <th scope="col" className="w-[45%] py-1 pr-4">
                    Variable
                  </th>
                  <th scope="col" className="py-1">
                    Value
                  </th>
                </tr>
              </thead>
              <tbody>
                {health.settings.map((setting) => (
                  <tr key={setting.name} className="border-t border-line">
                    <td className="py-1 pr-4 break-all font-mono text-xs">{setting.name}</td>
                    <td className="py-1 break-all font-mono text-xs text-slate-300">
                      {setting.value ?? <span className="text-slate-400">(not set)</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Panel>
        </div>
      )}
    </Loading>
  );
}
