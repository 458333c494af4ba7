import { useEffect, useState } from "react";
import { conversionKinds, labelOf, zoneNote } from "../../../contract/reader-kinds.ts";
import type {
  ConversionCounts,
  ReaderDimension,
  ReaderFigure,
  ReadersQuery,
} from "../../../contract/readers.ts";
import { useConsoleData } from "../console-api.ts";
import { Figures, Table } from "../data.tsx";
import { buttonClass, Choice, Input, Loading, Panel } from "../ui.tsx";

type PeriodName = "day" | "week" | "month" | "range";
const periods: { value: PeriodName; label: string }[] = [
  { value: "day", label: "Today" },
  { value: "week", label: "Last 7 days" },
  { value: "month", label: "Last 30 days" },
  { value: "range", label: "Chosen days" },
];

const kindLabels: Record<(typeof conversionKinds)[number], string> = {
  subscription: "Subscriptions",
  enquiry: "Enquiries",
  booking: "Calls booked",
  comment: "Comments",
  question: "Questions",
};

/** A share of the visitors; "–" for none, or for a page that is not an article or post (null). */
const percent = (part: number | null, whole: number) =>
  part !== null && whole > 0 ? `${Math.round((100 * part) / whole)}%` : "–";

/** One row's own figures, read when the owner opens it. */
function ItemFigures({
  query,
  dimension,
  value,
}: {
  query: ReadersQuery;
  dimension: ReaderDimension;
  value: string;
}) {
  const { loaded } = useConsoleData("GET /admin/readers/item", {
    query: { ...query, dimension, value },
  });
  const page = dimension === "page";
  return (
    <Loading loaded={loaded}>
      {(item) => (
        <div className="space-y-3 py-2">
          <Table
            stacked={page}
            caption={`${labelOf(dimension, value)}, day by day`}
            head={["Day", "Visitors", "Views", ...(page ? ["Engaged reads"] : [])]}
            rows={item.days
              .filter((day) => day.views > 0 || day.visitors > 0)
              .map((day) => [
                day.day,
                day.visitors,
                day.views,
                ...(page ? [day.engaged ?? "–"] : []),
              ])}
          />
          {item.conversions ? (
            <p className="text-sm text-slate-300">
              {`Visits that ${page ? "began here" : "came this way"} led to: `}
              {conversionKinds
                .filter((kind) => (item.conversions?.[kind] ?? 0) > 0)
                .map((kind) => `${kindLabels[kind].toLowerCase()} ${item.conversions?.[kind]}`)
                .join(", ")}
              .
            </p>
          ) : null}
        </div>
      )}
    </Loading>
  );
}

/** A table of figures; each row opens its own figures, day by day. */
function FigureTable({
  title,
  dimension,
  rows,
  query,
}: {
  title: string;
  dimension: ReaderDimension;
  rows: ReaderFigure[];
  query: ReadersQuery;
}) {
  const [open, setOpen] = useState<string | null>(null);
  const page = dimension === "page";
  return (
    <Panel title={title}>
      <Table
        stacked={page}
        caption={title}
        empty="Nothing counted in this period."
        head={[
          page ? "Page" : title,
          "Visitors",
          "Views",
          ...(page ? ["Read to the end or 30 s"] : []),
        ]}
        rows={rows.map((row) => [
          row.value,
          row.visitors,
          row.views,
          ...(page ? [percent(row.engaged, row.visitors)] : []),
        ])}
        first={(value, detailId) => (
          <button
            type="button"
            aria-expanded={open === value}
            aria-controls={detailId}
            onClick={() => setOpen(open === value ? null : value)}
            className="text-left text-slate-100 underline decoration-slate-500 underline-offset-2 hover:text-accent"
          >
            {labelOf(dimension, value)}
          </button>
        )}
        detail={(value) =>
          open === value ? <ItemFigures query={query} dimension={dimension} value={value} /> : null
        }
      />
      {page ? (
        <p className="mt-3 text-sm text-slate-400">
          Read to the end or 30 s: of an article's or post's visitors, the share who reached its end
          or kept it in view for 30 seconds. Other pages are not measured so (–).
        </p>
      ) : null}
    </Panel>
  );
}

function ConversionTable({
  title,
  heading,
  rows,
  note,
}: {
  title: string;
  heading: string;
  rows: ConversionCounts[];
  note?: string;
}) {
  return (
    <Panel title={title}>
      {rows.length === 0 ? (
        <p className="text-slate-400">
          No subscription, enquiry, call, comment or question counted in this period.
        </p>
      ) : (
        // On a phone its rows stack; should a long path still widen it past its panel,
        // the keyboard scrolls it too, from its own stop in the tab order.
        <section
          className="overflow-x-auto"
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolled region with nothing focusable in it needs a tab stop to be scrolled without a mouse
          tabIndex={0}
          aria-label={`${heading} by kind of conversion`}
        >
          <Table
            stacked
            caption={`${heading} by kind of conversion`}
            head={[heading, ...conversionKinds.map((kind) => kindLabels[kind])]}
            rows={rows.map((row) => [row.value, ...conversionKinds.map((kind) => row[kind])])}
          />
        </section>
      )}
      {note ? <p className="mt-3 text-sm text-slate-400">{note}</p> : null}
    </Panel>
  );
}

/**
 * Readers (docs/product.md, "Readers"): visitors and views over a period,
 * who is reading now, what is read and where readers come from, and which
 * writing brings subscriptions, enquiries, calls, comments and questions.
 */
export function ReadersView() {
  const [period, setPeriod] = useState<PeriodName>("week");
  // Today as the server counts it, from the owner's midnight in the owner's zone (not this
  // browser's): the chosen days start there, and the date fields end there.
  const [today, setToday] = useState<string | null>(null);
  const [chosenFrom, setFrom] = useState<string | null>(null);
  const [chosenTo, setTo] = useState<string | null>(null);
  const from = chosenFrom ?? today;
  const to = chosenTo ?? today;
  const query: ReadersQuery =
    period === "range" && from && to
      ? { period, from, to: to < from ? from : to }
      : { period: period === "range" ? "day" : period };
  const { loaded } = useConsoleData("GET /admin/readers", { query });
  const reportedToday = loaded.state === "ready" ? loaded.data.today : null;
  useEffect(() => {
    if (reportedToday) setToday(reportedToday);
  }, [reportedToday]);
  const exportUrl = `/api/admin/readers/export?${new URLSearchParams(query as Record<string, string>)}`;

  return (
    <div className="space-y-5">
      <div className="flex flex-wrap items-end gap-3">
        <Choice
          label="Period"
          value={period}
          onChange={setPeriod}
          options={periods.map((each) => [each.value, each.label] as const)}
        />
        {period === "range" && from && to && today ? (
          <>
            <Input
              label="From"
              type="date"
              value={from}
              max={today}
              onChange={(v) => {
                if (!v) return;
                setFrom(v);
                // A first day after the last takes the last with it, in its field as in the figures.
                if (to && v > to) setTo(v);
              }}
            />
            <Input
              label="To"
              type="date"
              value={to}
              min={from}
              max={today}
              onChange={(v) => v && setTo(v)}
            />
          </>
        ) : null}
        <a href={exportUrl} download className={buttonClass}>
          Export CSV
        </a>
      </div>
      <Loading loaded={loaded}>
        {(report) => (
          <div className="space-y-5">
            <Panel title="Visitors and views">
              <Figures
                figures={[
                  ["Visitors", report.visitors],
                  ["Views", report.views],
                  ["Reading now (last 30 minutes)", report.readingNow],
                ]}
              />
              <p className="mt-3 text-sm text-slate-400">
                {report.from === report.to ? report.from : `${report.from} to ${report.to}`},{" "}
                {zoneNote(report)} (the zone of your Bookings hours). A reader is recognised for one
                day only, so one who reads on three days counts three times. No cookie is used and
                no address is kept. Bots, and your own browser while signed in here, are not
                counted; a view reaches these figures within seconds.
              </p>
            </Panel>
            {/* Six columns each: the screen's width, where the figures below share it by two. */}
            <ConversionTable
              title="Conversions by entry page"
              heading="Entry page"
              rows={report.conversions.byEntryPage}
              note="Each is credited to the page and source the reader's visit began with that day. (not counted): no visit of theirs was counted that day, as with JavaScript off or a confirmation link opened on another day or device."
            />
            <ConversionTable
              title="Conversions by source"
              heading="Source"
              rows={report.conversions.bySource}
            />
            <div className="grid grid-cols-1 gap-5 xl:grid-cols-2">
              <FigureTable title="Top pages" dimension="page" rows={report.pages} query={query} />
              <FigureTable title="Sources" dimension="source" rows={report.sources} query={query} />
              <FigureTable
                title="Campaigns"
                dimension="campaign"
                rows={report.campaigns}
                query={query}
              />
              <FigureTable
                title="Countries"
                dimension="country"
                rows={report.countries}
                query={query}
              />
              <FigureTable title="Devices" dimension="device" rows={report.devices} query={query} />
            </div>
          </div>
        )}
      </Loading>
    </div>
  );
}
