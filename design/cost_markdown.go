package design

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// Markdown writes the estimate as markdown: the prices, a table per kind
// of figure (writes, reads, measured units, storage) with the arithmetic of
// each line, and the monthly cost in both capacity modes with the
// arithmetic of each total.
func (e *Estimate) Markdown(w io.Writer) error {
	var b strings.Builder
	title := "Capacity and cost"
	if e.Name != "" {
		title += ": " + e.Name
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	p := e.Prices
	fmt.Fprintf(&b, "Prices")
	if p.Region != "" || p.Source != "" {
		fmt.Fprintf(&b, " (%s)", strings.Trim(p.Region+"; "+p.Source, "; "))
	}
	fmt.Fprintf(&b, ": on-demand %s per million write request units (WRU) and %s per million read request units (RRU); "+
		"provisioned %s per WCU-hour and %s per RCU-hour; storage %s per GB-month. "+
		"A month is %d hours, %s seconds; a GB is 2^30 bytes. "+
		"A write takes one unit per started KB, a read one unit per started 4 KB, "+
		"half that when eventually consistent and twice that in a transaction.\n\n",
		price(p.WriteRequestUnit*1e6), price(p.ReadRequestUnit*1e6), price(p.WCUHour), price(p.RCUHour), price(p.StorageGBMonth),
		HoursPerMonth, num(SecondsPerMonth))
	e.writeWrites(&b)
	e.writeReads(&b)
	e.writeMeasured(&b)
	e.writeStorage(&b)
	e.writeCost(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (e *Estimate) writeWrites(b *strings.Builder) {
	if len(e.Writes) == 0 {
		return
	}
	b.WriteString("## Writes\n\n")
	header(b, "Write", "Per second", "Item", "WRU per write", "Index WRU per write", "WRU per second")
	for _, l := range e.Writes {
		row(b, cell(l.Name), num(l.PerSecond), num(float64(l.ItemBytes))+" B", num(l.Units), num(l.GSIUnits), num(l.UnitsPerSecond+l.GSIUnitsPerSecond))
	}
	b.WriteString("\n")
	for _, l := range e.Writes {
		tx := ""
		if l.Transactional {
			tx = " × 2 (transactional)"
		}
		fmt.Fprintf(b, "- %s: ⌈%s B / 1,024⌉%s = %s WRU per write; %s/s × %s = %s WRU/s.\n",
			l.Name, num(float64(l.ItemBytes)), tx, num(l.Units), num(l.PerSecond), num(l.Units), num(l.UnitsPerSecond))
		if l.GSIs > 0 {
			gb := l.GSIItemBytes
			if gb == 0 {
				gb = l.ItemBytes
			}
			fmt.Fprintf(b, "  Indexes: %d × ⌈%s B / 1,024⌉ = %s WRU per write; %s/s × %s = %s WRU/s.\n",
				l.GSIs, num(float64(gb)), num(l.GSIUnits), num(l.PerSecond), num(l.GSIUnits), num(l.GSIUnitsPerSecond))
		}
	}
	b.WriteString("\n")
}

func (e *Estimate) writeReads(b *strings.Builder) {
	if len(e.Reads) == 0 {
		return
	}
	b.WriteString("## Reads\n\n")
	header(b, "Access pattern", "Operation", "Per second", "Items × size", "Consistency", "RRU per request", "RRU per second")
	for _, l := range e.Reads {
		items := l.Items
		if l.Op == GetItem || l.Op == BatchGetItem {
			items = max(items, 1)
		}
		row(b, cell(l.Pattern), string(l.Op), num(l.PerSecond), fmt.Sprintf("%s × %s B", num(float64(items)), num(float64(l.ItemBytes))),
			l.Consistency.String(), num(l.Units), num(l.UnitsPerSecond))
	}
	b.WriteString("\n")
	for _, l := range e.Reads {
		f := num(l.Consistency.factor())
		var how string
		switch l.Op {
		case GetItem, BatchGetItem:
			how = fmt.Sprintf("%d × ⌈%s B / 4,096⌉ × %s", max(l.Items, 1), num(float64(l.ItemBytes)), f)
		default:
			how = fmt.Sprintf("⌈%s × %s B / 4,096⌉ × %s", num(float64(l.Items)), num(float64(l.ItemBytes)), f)
		}
		fmt.Fprintf(b, "- %s: %s = %s RRU per request; %s/s × %s = %s RRU/s.\n",
			l.Pattern, how, num(l.Units), num(l.PerSecond), num(l.Units), num(l.UnitsPerSecond))
	}
	b.WriteString("\n")
}

func (e *Estimate) writeMeasured(b *strings.Builder) {
	if len(e.Measured) == 0 {
		return
	}
	b.WriteString("## Measured\n\n")
	var d time.Duration
	if l := e.Measured[0]; l.PerSecond.Read > 0 {
		d = time.Duration(l.Read / l.PerSecond.Read * float64(time.Second))
	} else if l.PerSecond.Write > 0 {
		d = time.Duration(l.Write / l.PerSecond.Write * float64(time.Second))
	}
	if d > 0 {
		fmt.Fprintf(b, "Units consumed in a run of %s, divided by its %s seconds.\n\n", d.Round(time.Millisecond), num(d.Seconds()))
	}
	header(b, "Operation", "RRU", "WRU", "RRU per second", "WRU per second")
	for _, l := range e.Measured {
		row(b, cell(l.Op), num(l.Read), num(l.Write), num(l.PerSecond.Read), num(l.PerSecond.Write))
	}
	b.WriteString("\n")
}

func (e *Estimate) writeStorage(b *strings.Builder) {
	if len(e.Storage) == 0 {
		return
	}
	b.WriteString("## Storage\n\n")
	fmt.Fprintf(b, "Each item costs its size plus %d bytes of overhead, in the table and in every index holding it.\n\n", ItemOverhead)
	header(b, "Tier", "Items per second", "Retention", "Items", "Bytes per item", "Index copies", "GB")
	for _, l := range e.Storage {
		ret := days(l.Retention)
		if l.Tier.Retention == 0 {
			ret = "kept (" + ret + ")"
		}
		row(b, cell(l.Name), num(l.ItemsPerSecond), ret, num(l.Items), num(float64(l.ItemBytes+ItemOverhead)),
			strconv.Itoa(l.GSIs), num(l.Bytes/BytesPerGB))
	}
	b.WriteString("\n")
	for _, l := range e.Storage {
		var items string
		switch {
		case l.ItemsPerSecond > 0 && l.Tier.Items > 0:
			items = fmt.Sprintf("%s + %s/s × %s s", num(l.Tier.Items), num(l.ItemsPerSecond), num(l.Retention.Seconds()))
		case l.ItemsPerSecond > 0:
			items = fmt.Sprintf("%s/s × %s s", num(l.ItemsPerSecond), num(l.Retention.Seconds()))
		default:
			items = num(l.Tier.Items)
		}
		size := fmt.Sprintf("(%s + %d) B", num(float64(l.ItemBytes)), ItemOverhead)
		if l.GSIs > 0 {
			gb := l.GSIItemBytes
			if gb == 0 {
				gb = l.ItemBytes
			}
			size = fmt.Sprintf("(%s + %d + %d × (%s + %d)) B", num(float64(l.ItemBytes)), ItemOverhead, l.GSIs, num(float64(gb)), ItemOverhead)
		}
		fmt.Fprintf(b, "- %s: %s = %s items; × %s = %s B = %s GB.\n",
			l.Name, items, num(l.Items), size, num(l.Bytes), num(l.Bytes/BytesPerGB))
	}
	b.WriteString("\n")
}

func (e *Estimate) writeCost(b *strings.Builder) {
	p := e.Prices
	b.WriteString("## Monthly cost\n\n")
	header(b, "", "On-demand", "Provisioned")
	row(b, "Writes", money(e.OnDemand.Writes), money(e.Provisioned.Writes))
	row(b, "Reads", money(e.OnDemand.Reads), money(e.Provisioned.Reads))
	row(b, "Storage", money(e.OnDemand.Storage), money(e.Provisioned.Storage))
	row(b, "**Total**", "**"+money(e.OnDemand.Total)+"**", "**"+money(e.Provisioned.Total)+"**")
	b.WriteString("\n")

	wu := e.WriteUnits + e.GSIWriteUnits
	b.WriteString("On-demand, billed per request:\n\n")
	if e.GSIWriteUnits > 0 {
		fmt.Fprintf(b, "- Writes: (%s + %s to indexes) WRU/s × %s s = %s WRU × %s per million = %s.\n",
			num(e.WriteUnits), num(e.GSIWriteUnits), num(SecondsPerMonth), num(wu*SecondsPerMonth), price(p.WriteRequestUnit*1e6), money(e.OnDemand.Writes))
	} else {
		fmt.Fprintf(b, "- Writes: %s WRU/s × %s s = %s WRU × %s per million = %s.\n",
			num(wu), num(SecondsPerMonth), num(wu*SecondsPerMonth), price(p.WriteRequestUnit*1e6), money(e.OnDemand.Writes))
	}
	fmt.Fprintf(b, "- Reads: %s RRU/s × %s s = %s RRU × %s per million = %s.\n",
		num(e.ReadUnits), num(SecondsPerMonth), num(e.ReadUnits*SecondsPerMonth), price(p.ReadRequestUnit*1e6), money(e.OnDemand.Reads))
	fmt.Fprintf(b, "- Storage: %s GB × %s = %s.\n\n", num(e.StorageBytes/BytesPerGB), price(p.StorageGBMonth), money(e.OnDemand.Storage))

	fmt.Fprintf(b, "Provisioned, billed per hour for capacity sized at the average rate × %s (peak to average) / %s (target utilisation), rounded up:\n\n",
		num(e.PeakToAverage), num(e.TargetUtilization))
	fmt.Fprintf(b, "- Table writes: ⌈%s × %s / %s⌉ = %s WCU (at least 1).\n", num(e.WriteUnits), num(e.PeakToAverage), num(e.TargetUtilization), num(float64(e.WCU)))
	if e.GSIWCU > 0 {
		fmt.Fprintf(b, "- Index writes: ⌈%s × %s / %s⌉ = %s WCU.\n", num(e.GSIWriteUnits), num(e.PeakToAverage), num(e.TargetUtilization), num(float64(e.GSIWCU)))
	}
	fmt.Fprintf(b, "- Reads: ⌈%s × %s / %s⌉ = %s RCU (at least 1).\n", num(e.ReadUnits), num(e.PeakToAverage), num(e.TargetUtilization), num(float64(e.RCU)))
	fmt.Fprintf(b, "- Writes: %s WCU × %d h × %s = %s.\n", num(float64(e.WCU+e.GSIWCU)), HoursPerMonth, price(p.WCUHour), money(e.Provisioned.Writes))
	fmt.Fprintf(b, "- Reads: %s RCU × %d h × %s = %s.\n", num(float64(e.RCU)), HoursPerMonth, price(p.RCUHour), money(e.Provisioned.Reads))
	fmt.Fprintf(b, "- Storage: as on-demand, %s.\n\n", money(e.Provisioned.Storage))

	lo, hi := e.Provisioned.Total, e.OnDemand.Total
	if e.Cheaper() == "on-demand" {
		lo, hi = hi, lo
	}
	fmt.Fprintf(b, "Cheaper: %s", e.Cheaper())
	if hi > 0 && hi > lo {
		fmt.Fprintf(b, ", by %s a month (%s%%)", money(hi-lo), num(math.Round((hi-lo)/hi*1000)/10))
	}
	b.WriteString(".\n\n")
	b.WriteString("Not included: the account's free tier (25 GB, 25 WCU and 25 RCU), reserved capacity, backups, streams, " +
		"global tables and data transfer. Deletions by TTL are free; failed conditional writes cost the units of the item's size.\n")
}

// days formats d in days when it is whole days, else as a duration.
func days(d time.Duration) string {
	const day = 24 * time.Hour
	if d%day == 0 {
		n := int64(d / day)
		if n == 1 {
			return "1 day"
		}
		return num(float64(n)) + " days"
	}
	return d.String()
}

// num formats x with thousands separators and at most four decimals (three
// significant digits below 0.01), trailing zeros trimmed.
func num(x float64) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	prec := 4
	if x != 0 && math.Abs(x) < 0.01 {
		prec = 2 - int(math.Floor(math.Log10(math.Abs(x))))
	}
	s := strconv.FormatFloat(x, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return group(s)
}

// money formats a dollar amount: cents, or two significant digits below a
// cent.
func money(x float64) string {
	if x != 0 && math.Abs(x) < 0.01 {
		digits := 1 - int(math.Floor(math.Log10(math.Abs(x))))
		return "$" + strconv.FormatFloat(x, 'f', digits, 64)
	}
	return "$" + group(strconv.FormatFloat(x, 'f', 2, 64))
}

// price formats a unit price in full, without float noise ($0.625,
// $0.00065).
func price(x float64) string {
	x = math.Round(x*1e12) / 1e12
	return "$" + group(strconv.FormatFloat(x, 'f', -1, 64))
}

// group puts commas between the thousands of the integer part of a
// formatted number.
func group(s string) string {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}
