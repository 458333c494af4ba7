import {
  Area,
  AreaChart,
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { useConsoleData } from "../console-api.ts";
import { useLive } from "../live.tsx";
import { Loading, Panel } from "../ui.tsx";

const colors = {
  comments: "#22c55e",
  reactions: "#60a5fa",
  confirmed: "#22c55e",
  pending: "#f59e0b",
  sent: "#22c55e",
  failed: "#f87171",
};
const axis = { stroke: "#94a3b8", fontSize: 12 };
const tooltip = { contentStyle: { background: "#111821", border: "1px solid #1f2a37" } };
const shortDay = (day: string) => day.slice(5);
/** Titles are long questions: the axis shows their start, the summary and tooltip the whole. */
const shortTitle = (title: string) => (title.length > 26 ? `${title.slice(0, 25)}…` : title);

/** A chart with its numbers in words beside it, for those who cannot see it. */
function Chart({
  summary,
  children,
  tall = false,
}: {
  summary: string;
  children: React.ReactElement;
  tall?: boolean;
}) {
  return (
    <figure>
      <div className={tall ? "h-80" : "h-64"} aria-hidden="true">
        <ResponsiveContainer width="100%" height="100%">
          {children}
        </ResponsiveContainer>
      </div>
      <figcaption className="mt-2 text-sm text-slate-400">{summary}</figcaption>
    </figure>
  );
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** The call to work the held queue, when comments wait; kept current by the live stream. */
function AwaitingApproval() {
  const { pending } = useLive();
  if (pending === null) return null;
  if (pending === 0) {
    return <p className="mb-5 text-sm text-slate-400">No comment is awaiting approval.</p>;
  }
  return (
    <p className="mb-5">
      <a
        href="/admin/comments?status=pending"
        className="inline-flex items-center gap-2 rounded-xl border border-amber-300/40 bg-amber-300/10 px-4 py-3 font-semibold text-amber-200 hover:bg-amber-300/20"
      >
        {pending} {pending === 1 ? "comment" : "comments"} awaiting approval
        <span aria-hidden="true">→</span>
      </a>
    </p>
  );
}

export function OverviewView() {
  const { loaded } = useConsoleData("GET /admin/overview");
  return (
    <>
      <AwaitingApproval />
      <Loading loaded={loaded}>
        {(data) => {
          const lastSubscribers = data.subscribers.at(-1);
          return (
            <div className="grid gap-5 xl:grid-cols-2">
              <Panel title="Comments and reactions per day">
                <Chart
                  summary={`Last 90 days: ${sum(data.activity.map((d) => d.comments))} comments and ${sum(data.activity.map((d) => d.reactions))} reactions.`}
                >
                  <LineChart data={data.activity} accessibilityLayer={false}>
                    <CartesianGrid stroke="#1f2a37" />
                    <XAxis dataKey="day" tickFormatter={shortDay} {...axis} minTickGap={24} />
                    <YAxis allowDecimals={false} {...axis} width={32} />
                    <Tooltip {...tooltip} />
                    <Legend />
                    <Line
                      type="monotone"
                      dataKey="comments"
                      name="Comments"
                      stroke={colors.comments}
                      dot={false}
                      isAnimationActive={false}
                    />
                    <Line
                      type="monotone"
                      dataKey="reactions"
                      name="Reactions"
                      stroke={colors.reactions}
                      dot={false}
                      isAnimationActive={false}
                    />
                  </LineChart>
                </Chart>
              </Panel>
              <Panel title="Subscribers over time">
                <Chart
                  summary={`Today: ${lastSubscribers?.confirmed ?? 0} confirmed, ${lastSubscribers?.pending ?? 0} pending.`}
                >
                  <AreaChart data={data.subscribers} accessibilityLayer={false}>
                    <CartesianGrid stroke="#1f2a37" />
                    <XAxis dataKey="day" tickFormatter={shortDay} {...axis} minTickGap={24} />
                    <YAxis allowDecimals={false} {...axis} width={32} />
                    <Tooltip {...tooltip} />
                    <Legend />
                    <Area
                      type="monotone"
                      dataKey="confirmed"
                      name="Confirmed"
                      stackId="1"
                      stroke={colors.confirmed}
                      fill={colors.confirmed}
                      fillOpacity={0.3}
                      isAnimationActive={false}
                    />
                    <Area
                      type="monotone"
                      dataKey="pending"
                      name="Pending"
                      stackId="1"
                      stroke={colors.pending}
                      fill={colors.pending}
                      fillOpacity={0.3}
                      isAnimationActive={false}
                    />
                  </AreaChart>
                </Chart>
              </Panel>
              <Panel title="Most engaged stories and posts">
                {data.mostEngaged.length === 0 ? (
                  <p className="text-slate-400">No reactions or comments yet.</p>
                ) : (
                  <Chart
                    tall
                    summary={data.mostEngaged
                      .map(
                        (item) =>
                          `${item.title}: ${item.reactions} reactions, ${item.comments} comments`,
                      )
                      .join("; ")}
                  >
                    <BarChart data={data.mostEngaged} layout="vertical" accessibilityLayer={false}>
                      <CartesianGrid stroke="#1f2a37" />
                      <XAxis type="number" allowDecimals={false} {...axis} />
                      <YAxis
                        type="category"
                        dataKey="title"
                        width={170}
                        tickFormatter={shortTitle}
                        interval={0}
                        {...axis}
                        fontSize={11}
                      />
                      <Tooltip {...tooltip} />
                      <Legend />
                      <Bar
                        dataKey="reactions"
                        name="Reactions"
                        stackId="a"
                        fill={colors.reactions}
                        isAnimationActive={false}
                      />
                      <Bar
                        dataKey="comments"
                        name="Comments"
                        stackId="a"
                        fill={colors.comments}
                        isAnimationActive={false}
                      />
                    </BarChart>
                  </Chart>
                )}
              </Panel>
              <Panel title="Editions sent and failed">
                {data.editions.length === 0 ? (
                  <p className="text-slate-400">No edition has been sent yet.</p>
                ) : (
                  <Chart
                    summary={data.editions
                      .map(
                        (e) => `${e.slug}: ${e.sent} sent, ${e.failed} failed, ${e.queued} waiting`,
                      )
                      .join("; ")}
                  >
                    <BarChart data={data.editions} accessibilityLayer={false} maxBarSize={64}>
                      <CartesianGrid stroke="#1f2a37" />
                      <XAxis dataKey="slug" {...axis} />
                      <YAxis allowDecimals={false} {...axis} width={40} />
                      <Tooltip {...tooltip} />
                      <Legend />
                      <Bar
                        dataKey="sent"
                        name="Sent"
                        stackId="e"
                        fill={colors.sent}
                        isAnimationActive={false}
                      />
                      <Bar
                        dataKey="failed"
                        name="Failed"
                        stackId="e"
                        fill={colors.failed}
                        isAnimationActive={false}
                      />
                    </BarChart>
                  </Chart>
                )}
              </Panel>
            </div>
          );
        }}
      </Loading>
    </>
  );
}
