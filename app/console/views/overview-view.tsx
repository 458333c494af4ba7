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
import { zoneName } from "../../../contract/time-zones.ts";
import { useConsoleData } from "../console-api.ts";
import { Figures, shortened } from "../data.tsx";
import { Loading, Panel } from "../ui.tsx";
import { AwaitingApproval } from "./awaiting-approval.tsx";

const axis = { stroke: "#94a3b8", fontSize: 12 };
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** Nine services and "Something else": one colour each, distinct on the dark panel. */
const palette =
  "#22c55e #60a5fa #f59e0b #f472b6 #a78bfa #2dd4bf #facc15 #fb7185 #38bdf8 #94a3b8".split(" ");
const [green, blue, amber] = palette;
const red = "#f87171";

const shapes = { line: [LineChart, Line], area: [AreaChart, Area], bar: [BarChart, Bar] } as const;
const looks = {
  line: (color?: string) => ({ type: "monotone", stroke: color, dot: false }),
  area: (color?: string) => ({
    type: "monotone",
    stackId: "s",
    stroke: color,
    fill: color,
    fillOpacity: 0.3,
  }),
  bar: (color?: string) => ({ stackId: "s", fill: color }),
} as const;
type Series = { key: string; name: string; color: string | undefined };

/**
 * A chart, drawn at once, with its numbers in words beside it for those who
 * cannot see it: lines, stacked areas or stacked bars of `series` along `x`
 * (days and weeks shown as "11-24"), or with `vertical`, bars across a title
 * each; or, when there is nothing to draw, what `empty` says instead.
 */
function Chart({
  empty,
  summary,
  kind,
  data,
  x,
  series,
  vertical = false,
  maxBarSize,
}: {
  summary: string;
  kind: keyof typeof shapes;
  data: object[];
  x: string;
  series: Series[];
  vertical?: boolean;
  maxBarSize?: number;
  empty?: string | false;
}) {
  if (empty) return <p className="text-slate-400">{empty}</p>;
  const [Frame, Shape] = shapes[kind] as unknown as [typeof BarChart, typeof Bar];
  const dated = x === "day" || x === "week";
  return (
    <figure>
      <div className={vertical ? "h-80" : "h-64"} aria-hidden="true">
        <ResponsiveContainer width="100%" height="100%">
          <Frame
            data={data}
            layout={vertical ? "vertical" : "horizontal"}
            maxBarSize={maxBarSize}
            accessibilityLayer={false}
          >
            <CartesianGrid stroke="#1f2a37" />
            {vertical ? (
              <>
                <XAxis type="number" allowDecimals={false} {...axis} />
                <YAxis
                  type="category"
                  dataKey={x}
                  width={170}
                  // Titles are long questions: the axis shows their start, the summary and tooltip the whole.
                  tickFormatter={(title: string) => shortened(title, 26)}
                  interval={0}
                  {...axis}
                  fontSize={11}
                />
              </>
            ) : (
              <>
                <XAxis
                  dataKey={x}
                  tickFormatter={dated ? (day: string) => day.slice(5) : undefined}
                  minTickGap={x === "day" ? 24 : undefined}
                  {...axis}
                />
                <YAxis allowDecimals={false} {...axis} width={40} />
              </>
            )}
            <Tooltip contentStyle={{ background: "#111821", border: "1px solid #1f2a37" }} />
            {series.length > 1 ? <Legend /> : null}
            {series.map(({ key, name, color }) => (
              <Shape
                key={key}
                dataKey={key}
                name={name}
                isAnimationActive={false}
                {...looks[kind](color)}
              />
            ))}
          </Frame>
        </ResponsiveContainer>
      </div>
      <figcaption className="mt-2 text-sm text-slate-400">{summary}</figcaption>
    </figure>
  );
}

/** Enquiries per week, stacked by service (docs/console.md). */
function EnquiryWeeks() {
  const { loaded } = useConsoleData("GET /admin/enquiries/weeks");
  return (
    <Panel title="Enquiries per week by service">
      <Loading loaded={loaded}>
        {({ weeks, services }) => {
          const totals = services.flatMap(({ id, title }) => {
            const count = sum(weeks.map((week) => week.counts[id] ?? 0));
            return count > 0 ? [`${title}: ${plural(count, "enquiry", "enquiries")}`] : [];
          });
          return (
            <Chart
              empty={totals.length === 0 && "No enquiries in the last 12 weeks."}
              summary={`Last 12 weeks: ${totals.join("; ")}.`}
              kind="bar"
              data={weeks.map((week) => ({ week: week.week, ...week.counts }))}
              x="week"
              series={services.map(({ id, title }, index) => ({
                key: id,
                name: title,
                color: palette[index % palette.length],
              }))}
            />
          );
        }}
      </Loading>
    </Panel>
  );
}

/** Calls still booked per week, the last 12 weeks and those ahead to the horizon (docs/product.md, "Book a call"). */
function CallWeeks() {
  const { loaded } = useConsoleData("GET /admin/bookings/weeks");
  return (
    <Panel title="Calls per week">
      <Loading loaded={loaded}>
        {({ weeks }) => {
          const calls = (some: typeof weeks) => plural(sum(some.map((w) => w.count)), "call");
          // The last 12 weeks end with this one; those up to the booking horizon follow.
          const thisWeek = weeks[11];
          const ahead = weeks.slice(12);
          const summary = [
            `This week (from ${thisWeek?.week ?? ""}): ${plural(thisWeek?.count ?? 0, "call")}`,
            `the 11 weeks before: ${calls(weeks.slice(0, 11))}`,
            `the next ${ahead.length} weeks: ${calls(ahead)} booked.`,
          ].join("; ");
          return (
            <Chart
              empty={
                sum(weeks.map((week) => week.count)) === 0 &&
                `No calls booked in the last 12 weeks or the next ${ahead.length}.`
              }
              summary={summary}
              kind="bar"
              data={weeks}
              x="week"
              series={[{ key: "count", name: "Calls", color: blue }]}
              maxBarSize={48}
            />
          );
        }}
      </Loading>
    </Panel>
  );
}

const named = (key: string, color: string | undefined) => ({
  key,
  name: `${key[0]?.toUpperCase()}${key.slice(1)}`,
  color,
});

export function OverviewView() {
  const { loaded } = useConsoleData("GET /admin/overview");
  return (
    <>
      <AwaitingApproval />
      <Loading loaded={loaded}>
        {(data) => {
          const lastSubscribers = data.subscribers.at(-1);
          const total = (key: "comments" | "reactions") => sum(data.activity.map((d) => d[key]));
          return (
            <div className="grid gap-5 xl:grid-cols-2">
              <Panel title="Held and spam comments">
                <Figures
                  figures={[
                    ["Awaiting approval", data.moderation.held],
                    ["Kept as spam", data.moderation.spam],
                  ]}
                />
                <p className="mt-3 text-sm text-slate-400">
                  Comments shows why each is there; one click publishes a false alarm.
                </p>
              </Panel>
              <Panel title="Comments and reactions per day">
                <Chart
                  summary={`Last 90 days: ${plural(total("comments"), "comment")} and ${plural(total("reactions"), "reaction")}.`}
                  kind="line"
                  data={data.activity}
                  x="day"
                  series={[named("comments", green), named("reactions", blue)]}
                />
                <p className="mt-3 text-sm text-slate-400">
                  The Overview's days run from midnight, and its weeks from Monday's, in{" "}
                  {zoneName(data.zone)} (the zone of your Bookings hours).
                </p>
              </Panel>
              <Panel title="Subscribers over time">
                <Chart
                  summary={`Today: ${lastSubscribers?.confirmed ?? 0} confirmed, ${lastSubscribers?.pending ?? 0} pending.`}
                  kind="area"
                  data={data.subscribers}
                  x="day"
                  series={[named("confirmed", green), named("pending", amber)]}
                />
              </Panel>
              <Panel title="Most engaged stories and posts">
                <Chart
                  empty={data.mostEngaged.length === 0 && "No reactions or comments yet."}
                  summary={data.mostEngaged
                    .map(
                      (item) =>
                        `${item.title}: ${plural(item.reactions, "reaction")}, ${plural(item.comments, "comment")}`,
                    )
                    .join("; ")}
                  kind="bar"
                  vertical
                  data={data.mostEngaged}
                  x="title"
                  series={[named("reactions", blue), named("comments", green)]}
                />
              </Panel>
              <Panel title="Editions sent and failed">
                <Chart
                  empty={data.editions.length === 0 && "No edition has been sent yet."}
                  summary={data.editions
                    .map(
                      (e) => `${e.slug}: ${e.sent} sent, ${e.failed} failed, ${e.queued} waiting`,
                    )
                    .join("; ")}
                  kind="bar"
                  data={data.editions}
                  x="slug"
                  series={[named("sent", green), named("failed", red)]}
                  maxBarSize={64}
                />
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
