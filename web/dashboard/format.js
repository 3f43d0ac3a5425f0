// Formatting of figures, dates and dimension values for the dashboard.

const whole = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });
const regions = typeof Intl.DisplayNames === "function" ? new Intl.DisplayNames(["en"], { type: "region" }) : null;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

// count formats a count in full ("12,345"), or compactly ("12.3K") for an
// axis.
export function count(v, axis) {
  v = Number(v) || 0;
  return axis && Math.abs(v) >= 1000 ? compact.format(v) : whole.format(v);
}

// duration formats seconds as "1h 2m", "3m 4s" or "5s".
export function duration(sec) {
  sec = Math.round(Number(sec) || 0);
  const h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
  if (h) return `${h}h ${m}m`;
  if (m) return `${m}m ${s}s`;
  return `${s}s`;
}

export function percent(v, digits = 0) {
  return `${(Number(v) || 0).toFixed(digits)}%`;
}

// METRICS are the headline figures in order: key, label, formatter, and
// whether a rise is bad news.
export const METRICS = [
  { key: "visitors", label: "Unique visitors", fmt: count },
  { key: "visits", label: "Total visits", fmt: count },
  { key: "pageviews", label: "Total pageviews", fmt: count },
  { key: "views_per_visit", label: "Views per visit", fmt: (v, axis) => (axis ? count(v, true) : (Number(v) || 0).toFixed(2)) },
  { key: "bounce_rate", label: "Bounce rate", fmt: (v) => percent(v), lowerIsBetter: true },
  { key: "visit_duration", label: "Visit duration", fmt: (v) => duration(v) },
];

export function metric(key) {
  return METRICS.find((m) => m.key === key) || METRICS[0];
}

// DIMENSIONS names the Stats API's dimensions for people.
export const DIMENSIONS = {
  "event:page": "Page",
  "visit:entry_page": "Entry page",
  "visit:exit_page": "Exit page",
  "visit:source": "Source",
  "visit:utm_source": "UTM source",
  "visit:utm_medium": "UTM medium",
  "visit:utm_campaign": "UTM campaign",
  "visit:country": "Country",
  "visit:device": "Device",
  "visit:browser": "Browser",
  "visit:os": "OS",
  "event:goal": "Goal",
  "event:name": "Event",
};

export function dimensionName(d) {
  if (d.startsWith("event:props:")) return "Property " + d.slice("event:props:".length);
  return DIMENSIONS[d] || d;
}

// value formats a dimension's value: a country code as its name, no
// source as "Direct / None", another empty value as "(none)".
export function value(dim, v) {
  if (dim === "visit:source" && !v) return "Direct / None";
  if (v === null || v === undefined || v === "") return "(none)";
  if (dim === "visit:country" && /^[A-Za-z]{2}$/.test(v)) {
    try {
      return (regions && regions.of(v.toUpperCase())) || v;
    } catch {
      return v; // a code Intl does not know
    }
  }
  return String(v);
}

// timeLabel returns the long and short labels of a time bucket of grain
// "hour", "day", "week" or "month" ("2024-01-05 13:00:00", "2024-01-05").
export function timeLabel(s, grain) {
  const d = String(s).replace("T", " ");
  const [date, time = ""] = d.split(" ");
  const [year, mo, day] = date.split("-").map(Number);
  const month = MONTHS[(mo || 1) - 1];
  const dm = `${month} ${day}`;
  switch (grain) {
    case "hour": {
      const hm = time.slice(0, 5) || "00:00";
      return { label: `${dm}, ${hm}`, short: hm };
    }
    case "week":
      return { label: `Week of ${dm}`, short: dm };
    case "month":
      return { label: `${month} ${year}`, short: month };
  }
  return { label: dm, short: dm };
}

// compared describes a figure's change from the previous period, for
// metric m (of METRICS): {text, tone, words}, tone "up" (good news),
// "down" (bad) or "" (neither). change is the server's (a difference of
// points for bounce_rate, a percent otherwise), or null to compute it
// from cur and prev. Against an empty previous period (empty: no visits
// in it), or from nothing to something, it is "new", never "+100%" or a
// difference of points; from nothing to nothing "—".
export function compared(m, cur, prev, change, empty) {
  cur = Number(cur) || 0;
  prev = Number(prev) || 0;
  if (empty || (!prev && m.key !== "bounce_rate")) {
    return cur
      ? { text: "new", tone: "", words: "no data in the previous period" }
      : { text: "—", tone: "", words: "none in either period" };
  }
  let ch = change;
  if (ch === null || ch === undefined) ch = m.key === "bounce_rate" ? cur - prev : Math.round(((cur - prev) / prev) * 100);
  ch = Math.round(Number(ch) || 0);
  const unit = m.key === "bounce_rate" ? " pts" : "%";
  if (!ch) return { text: "0" + unit, tone: "", words: "unchanged from the previous period" };
  return {
    text: `${ch > 0 ? "↑" : "↓"} ${Math.abs(ch)}${unit}`,
    tone: (ch > 0) !== !!m.lowerIsBetter ? "up" : "down",
    words: `${ch > 0 ? "up" : "down"} ${Math.abs(ch)}${unit === "%" ? "%" : " points"} from the previous period`,
  };
}

// relative says how long ago the time t was, from now: "3 minutes ago",
// "2 hours ago", "5 days ago".
export function relative(t, now = Date.now()) {
  const s = Math.max(0, Math.round((now - new Date(t).getTime()) / 1000));
  const [n, unit] = s < 90 ? [s, "second"] : s < 5400 ? [Math.round(s / 60), "minute"] : s < 129600 ? [Math.round(s / 3600), "hour"] : [Math.round(s / 86400), "day"];
  return `${n} ${unit}${n === 1 ? "" : "s"} ago`;
}

// zonedNow returns now in the IANA time zone tz ("" is UTC) as the keys
// of the Stats API's time labels: {day: "2024-01-05", hour: "2024-01-05 13"}.
export function zonedNow(tz, now = new Date()) {
  let parts;
  try {
    parts = new Intl.DateTimeFormat("en-CA", { timeZone: tz || "UTC", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", hourCycle: "h23" }).formatToParts(now);
  } catch {
    parts = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", hourCycle: "h23" }).formatToParts(now);
  }
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
  const day = `${p.year}-${p.month}-${p.day}`;
  return { day, hour: `${day} ${p.hour}` };
}

// clock formats a time as HH:MM:SS in the viewer's zone.
export function clock(t) {
  const d = new Date(t);
  if (isNaN(d)) return String(t || "");
  return d.toLocaleTimeString("en-GB", { hour12: false });
}
