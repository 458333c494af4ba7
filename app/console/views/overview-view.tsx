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
import { plural } from "../../../contract/plural.ts";
import { useConsoleData } from "../console-api.ts";
import { Loading, Panel } from "../ui.tsx";
import { AwaitingApproval } from "./awaiting-approval.tsx";

const colors = {
  comments: "#22c55e",
  reactions: "#60a5fa",
  confirmed: "#22c55e",
  pending: "#f59e0b",
  sent: "#22c55e",
  failed: "#f87171",
  calls: "#60a5fa",
};
const axis = { stroke: "#94a3b8", fontSize: 12 };
const tooltip = { contentStyle: { background: "#111821", border: "1px solid #1f2a37" } };
const shortDay = (day: string) => day.slice(5);
/** A series of `colors`: its key, named by it ("comments" is "Comments"), drawn at once. */
const series = (key: keyof typeof colors) => ({
  dataKey: key,
  name: `${key[0]?.toUpperCase()}${key.slice(1)}`,
  isAnimationActive: false,
});
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

/** Nine services and "Something else": one colour each, distinct on the dark panel. */
const serviceColors = [
  "#22c55e",
  "#60a5fa",
  "#f59e0b",
  "#f472b6",
  "#a78bfa",
  "#2dd4bf",
  "#facc15",
  "#fb7185",
  "#38bdf8",
  "#94a3b8",
];

/** Enquiries per week, stacked by service (docs/product.md, "The owner's console"). */
function EnquiryWeeks() {
  const { loaded } = useConsoleData("GET /admin/enquiries/weeks");
  return (
    <Panel title="Enquiries per week by service">
      <Loading loaded={loaded}>
        {({ weeks, services }) => {
          const rows = weeks.map((week) => ({ week: week.week, ...week.counts }));
          const totals = services
            .map((service) => ({
              title: service.title,
              count: sum(weeks.map((week) => week.counts[service.id] ?? 0)),
            }))
            .filter((service) => service.count > 0);
          return totals.length === 0 ? (
            <p className="text-slate-400">No enquiries in the last 12 weeks.</p>
          ) : (
            <Chart
              summary={`Last 12 weeks: ${totals.map((service) => `${service.title} ${service.count}`).join(", ")}.`}
            >
              <BarChart data={rows} accessibilityLayer={false}>
                <CartesianGrid stroke="#1f2a37" />
                <XAxis dataKey="week" tickFormatter={shortDay} {...axis} />
                <YAxis allowDecimals={false} {...axis} width={32} />
                <Tooltip {...tooltip} />
                <Legend />
                {services.map((service, index) => (
                  <Bar
                    key={service.id}
                    dataKey={service.id}
                    name={service.title}
                    stackId="w"
                    fill={serviceColors[index % serviceColors.length]}
                    isAnimationActive={false}
                  />
                ))}
              </BarChart>
            </Chart>
          );
        }}
      </Loading>
    </Panel>
  );
}

/** Calls still booked per week, the last 12 weeks and the next 4 (docs/product.md, "Book a call"). */
function CallWeeks() {
  const { loaded } = useConsoleData("GET /admin/bookings/weeks");
  return (
    <Panel title="Calls per week">
      <Loading loaded={loaded}>
        {({ weeks }) => {
          const total = sum(weeks.map((week) => week.count));
          // The last 12 weeks end with this one; the next 4 follow.
          const thisWeek = weeks.at(-5);
          const summary = [
            `This week (from ${thisWeek?.week ?? ""}): ${plural(thisWeek?.count ?? 0, "call")}`,
            `the 11 weeks before: ${plural(sum(weeks.slice(0, -5).map((w) => w.count)), "call")}`,
            `the next 4 weeks: ${plural(sum(weeks.slice(-4).map((w) => w.count)), "call")} booked.`,
          ].join("; ");
          return total === 0 ? (
            <p className="text-slate-400">No calls booked in the last 12 weeks or the next 4.</p>
          ) : (
            <Chart summary={summary}>
              <BarChart data={weeks} accessibilityLayer={false} maxBarSize={48}>
                <CartesianGrid stroke="#1f2a37" />
                <XAxis dataKey="week" tickFormatter={shortDay} {...axis} />
                <YAxis allowDecimals={false} {...axis} width={32} />
                <Tooltip {...tooltip} />
                <Bar dataKey="count" name="Calls" fill={colors.calls} isAnimationActive={false} />
              </BarChart>
            </Chart>
          );
        }}
      </Loading>
    </Panel>
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
              <Panel title="Held and spam comments">
                <dl className="flex gap-8">
                  <div>
                    <dt className="text-sm text-slate-400">Awaiting approval</dt>
                    <dd className="text-2xl font-semibold text-slate-100">
                      {data.moderation.held}
                    </dd>
                  </div>
                  <div>
                    <dt className="text-sm text-slate-400">Kept as spam</dt>
                    <dd className="text-2xl font-semibold text-slate-100">
                      {data.moderation.spam}
                    </dd>
                  </div>
                </dl>
                <p className="mt-3 text-sm text-slate-400">
                  Comments shows why each is there; one click publishes a false alarm.
                </p>
              </Panel>
              <Panel title="Comments and reactions per day">
                <Chart
                  summary={`Last 90 days: ${plural(sum(data.activity.map((d) => d.comments)), "comment")} and ${plural(sum(data.activity.map((d) => d.reactions)), "reaction")}.`}
                >
                  <LineChart data={data.activity} accessibilityLayer={false}>
                    <CartesianGrid stroke="#1f2a37" />
                    <XAxis dataKey="day" tickFormatter={shortDay} {...axis} minTickGap={24} />
                    <YAxis allowDecimals={false} {...axis} width={32} />
                    <Tooltip {...tooltip} />
                    <Legend />
                    {(["comments", "reactions"] as const).map((key) => (
                      <Line
                        key={key}
                        type="monotone"
                        {...series(key)}
                        stroke={colors[key]}
                        dot={false}
                      />
                    ))}
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
                    {(["confirmed", "pending"] as const).map((key) => (
                      <Area
                        key={key}
                        type="monotone"
                        {...series(key)}
                        stackId="1"
                        stroke={colors[key]}
                        fill={colors[key]}
                        fillOpacity={0.3}
                      />
                    ))}
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
                          `${item.title}: ${plural(item.reactions, "reaction")}, ${plural(item.comments, "comment")}`,
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
                      {(["reactions", "comments"] as const).map((key) => (
                        <Bar key={key} {...series(key)} stackId="a" fill={colors[key]} />
                      ))}
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
                      {(["sent", "failed"] as const).map((key) => (
                        <Bar key={key} {...series(key)} stackId="e" fill={colors[key]} />
                      ))}
                    </BarChart>
                  </Chart>
                )}
              </Panel>
              <EnquiryWeeks />
              <CallWeeks />
            </div>
          );
        }}
      </Loading>
    </>
  );
}
