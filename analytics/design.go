package analytics

import "github.com/timetable-db/timetable/design"

// Design returns the table design (package design) of the web-analytics
// table: sites, page views, sessions, custom events, goals, aggregated
// stats per hour, day and month, and realtime counters, in one table with
// two global indexes (GSI1: site and date or period; GSI2: visitor and
// time).
//
// It is the single-table analytics design with its traps fixed: the
// realtime read is bounded on both sides (an unbounded sk >= REALTIME#...
// runs on into the SESSION# and STATS# items), no key condition uses IN
// (DynamoDB refuses it), only page views carry GSI1's DATE# keys (so a read
// of page views by date returns page views only), and unique visitors are
// kept as mergeable sketches, never sums. The Store builds every key it
// writes by filling these templates, so this document is the code's own
// (`timetable design analytics` prints it). Each call returns a new
// design.Design, which the caller may change (such as Table.Name).
func Design() *design.Design {
	site := design.Attribute{Name: "siteId", Description: "Site identifier, chosen when the site is added."}
	ts := func(name, desc string) design.Attribute {
		return design.Attribute{Name: name, Format: design.LayoutTimestamp, Description: desc}
	}
	ttl := design.Attribute{Name: "ttl", Type: "N", Description: "Expiry in epoch seconds, computed from the item's event time (not from when it was written)."}
	visitor := design.Attribute{Name: "visitorId", Description: "Hash of a random salt rotated daily, the site, the IP address and the user agent; nothing is stored in the browser."}
	// hit are the attributes page views and events share.
	hit := []design.Attribute{
		{Name: "path", Description: "Page path, without query string."},
		{Name: "referrer", Description: "Referring URL, if another site."},
		{Name: "source", Description: "Referrer source: utm_source, else the referrer's known name or host, else empty (direct)."},
		visitor,
		{Name: "utm", Type: "M", Description: "source, medium, campaign, term, content."},
		{Name: "country", Description: "ISO 3166 country code."},
		{Name: "browser", Description: "Browser family."},
		{Name: "os", Description: "Operating system."},
		{Name: "device", Description: "desktop, mobile or tablet."},
		{Name: "props", Type: "M", Description: "String properties sent with the hit."},
		ttl,
	}
	return &design.Design{
		Name: "Web analytics",
		Description: "One table holds every site's page views, sessions, events, goals, aggregated stats and realtime counters. " +
			"Items of a site share the partition `SITE#{siteId}`; their sort keys start with a prefix per entity, so that each " +
			"read selects one kind of item. Raw items expire 30 days after their event, hourly stats after 90 days, daily stats " +
			"and hit buckets (a day's hits in compressed columns) after 2 years; monthly stats are kept.",
		Table: design.Table{
			Name:         "analytics",
			PartitionKey: design.Key{Name: "pk", Type: design.String},
			SortKey:      design.Key{Name: "sk", Type: design.String},
			TTL:          "ttl",
			Indexes: []design.Index{
				{
					Name:         "GSI1",
					PartitionKey: design.Key{Name: "gsi1pk", Type: design.String},
					SortKey:      design.Key{Name: "gsi1sk", Type: design.String},
					Description:  "Site and date: page views by day, stats by period.",
				},
				{
					Name:         "GSI2",
					PartitionKey: design.Key{Name: "gsi2pk", Type: design.String},
					SortKey:      design.Key{Name: "gsi2sk", Type: design.String},
					Description:  "Visitor and time: the sessions of a visitor.",
				},
			},
		},
		Entities: []design.Entity{
			{
				Name:        "Site",
				Description: "A tracked site and its settings.",
				Keys: map[string]design.Template{
					"pk": "SITE#{siteId}", "sk": "METADATA",
					"gsi1pk": "SITES", "gsi1sk": "SITE#{siteId}",
				},
				Attributes: []design.Attribute{
					site,
					{Name: "name", Description: "Display name."},
					{Name: "domains", Type: "SS", Description: "Domains whose hits are accepted; a referrer from one of them is internal."},
					{Name: "timeZone", Description: "IANA time zone of the site's dashboard, such as Europe/Paris."},
					{Name: "public", Type: "BOOL", Description: "The site's stats are readable without a token."},
					{Name: "excludedIps", Type: "SS", Description: "Client addresses and CIDR prefixes whose hits the collect endpoint drops."},
					{Name: "excludedPaths", Type: "SS", Description: "Path patterns (* within a segment, ** across) whose hits the collect endpoint drops."},
					ts("createdAt", "When the site was added."),
					ts("updatedAt", "When the site was last changed."),
				},
				Example: map[string]string{"siteId": "my-site", "name": "My Website", "domains": "example.com", "timeZone": "UTC"},
			},
			{
				Name:        "PageView",
				Description: "One page view, written by the collect endpoint.",
				Keys: map[string]design.Template{
					"pk": "SITE#{siteId}", "sk": "PV#{timestamp}#{id}",
					"gsi1pk": "SITE#{siteId}", "gsi1sk": "DATE#{date}",
				},
				Attributes: append([]design.Attribute{
					site,
					ts("timestamp", "Time of the view, UTC."),
					{Name: "id", Description: "Random id that keeps two views of one millisecond apart."},
					{Name: "date", Format: design.LayoutDay, Derived: "the UTC date of timestamp"},
				}, hit...),
				Example: map[string]string{
					"siteId": "my-site", "timestamp": "2024-01-15T10:30:00.000Z", "id": "pv-abc123",
					"date": "2024-01-15", "path": "/blog/post-1", "visitorId": "9f2c61d0a4e7b315",
				},
				TTL:       "ttl",
				Retention: "30 days from the view's time.",
			},
			{
				Name:        "Session",
				Description: "A visit: consecutive hits of one visitor, 30 minutes apart at most, within one UTC day (visitor ids change daily). Written by the aggregation from the raw hits, and rewritten whole when it runs again.",
				Keys: map[string]design.Template{
					"pk": "SITE#{siteId}", "sk": "SESSION#{sessionId}",
					"gsi2pk": "VISITOR#{visitorId}", "gsi2sk": "{startedAt}",
				},
				Attributes: []design.Attribute{
					site,
					{Name: "sessionId", Description: "The start time (UTC, as timestamp) and the visitor id, joined by '.': sessions sort by start time."},
					visitor,
					ts("startedAt", "Time of the first hit."),
					ts("lastSeen", "Time of the last hit, engagement events included."),
					{Name: "entryPage", Description: "Path of the first hit."},
					{Name: "exitPage", Description: "Path of the last page view."},
					{Name: "pageViews", Type: "N", Description: "Views in the session."},
					{Name: "duration", Type: "N", Description: "Milliseconds from the first to the last hit."},
					{Name: "bounce", Type: "BOOL", Description: "One page view at most and no interactive event."},
					{Name: "source", Description: "Referrer source of the first hit."},
					ttl,
				},
				Example: map[string]string{
					"siteId": "my-site", "sessionId": "2024-01-15T10:29:12.000Z.9f2c61d0a4e7b315", "visitorId": "9f2c61d0a4e7b315", "startedAt": "2024-01-15T10:29:12.000Z",
				},
				TTL:       "ttl",
				Retention: "30 days from the session's start.",
			},
			{
				Name:        "Event",
				Description: "A custom event sent by the site's script (signup, download, ...).",
				Keys:        map[string]design.Template{"pk": "SITE#{siteId}", "sk": "EVENT#{timestamp}#{id}"},
				Attributes: append([]design.Attribute{
					site,
					ts("timestamp", "Time of the event, UTC."),
					{Name: "id", Description: "Random id that keeps two events of one millisecond apart."},
					{Name: "name", Description: "Event name; \"engagement\" is the engagement event (time on page, scroll depth), which extends a session and is no custom event."},
					{Name: "interactive", Type: "BOOL", Description: "False for an event that does not end a bounce."},
					{Name: "engagementMs", Type: "N", Description: "Engagement event: the time the page was visible and focused, in milliseconds (absent when 0)."},
					{Name: "scrollDepth", Type: "N", Description: "Engagement event: the deepest scroll, in percent of the page (absent when 0)."},
				}, hit...),
				Example: map[string]string{
					"siteId": "my-site", "timestamp": "2024-01-15T10:31:05.250Z", "id": "ev-7d1e", "name": "signup",
				},
				TTL:       "ttl",
				Retention: "30 days from the event's time.",
			},
			{
				Name:        "Goal",
				Description: "A conversion goal: a page path or an event name to count.",
				Keys:        map[string]design.Template{"pk": "SITE#{siteId}", "sk": "GOAL#{goalId}"},
				Attributes: []design.Attribute{
					site,
					{Name: "goalId", Description: "Goal identifier."},
					{Name: "name", Description: "Display name."},
					{Name: "kind", Description: "pageview or event."},
					{Name: "match", Description: "Path pattern or event name."},
					{Name: "value", Type: "N", Description: "Value of one conversion."},
				},
				Example: map[string]string{"siteId": "my-site", "goalId": "signup", "name": "Sign-ups", "kind": "event"},
			},
			{
				Name:        "Stats",
				Description: "Aggregates of one period, recomputed whole from the raw hits (hours and days) or the days (months); recomputing a period replaces it, so re-runs never double-count.",
				Keys: map[string]design.Template{
					"pk": "SITE#{siteId}", "sk": "STATS#{period}#{periodStart}",
					"gsi1pk": "SITE#{siteId}", "gsi1sk": "PERIOD#{period}#{periodStart}",
				},
				Attributes: []design.Attribute{
					site,
					{Name: "period", Description: "hour, day or month."},
					{Name: "periodStart", Format: "2006-01-02T15", Description: "Start of the period, UTC, cut to the period: 2024-01-15T10 (hour), 2024-01-15 (day), 2024-01 (month)."},
					{Name: "pageViews", Type: "N", Description: "Page views."},
					{Name: "visitors", Type: "B", Description: "HyperLogLog sketch of the visitor ids; buckets merge by sketch union, never by sum."},
					{Name: "uniqueVisitors", Type: "N", Description: "Estimate read from the sketch."},
					{Name: "visits", Type: "N", Description: "Sessions started in the period."},
					{Name: "bounces", Type: "N", Description: "Of those, sessions that bounced."},
					{Name: "durationSum", Type: "N", Description: "Sum of their durations, milliseconds."},
					{Name: "events", Type: "N", Description: "Custom events."},
					{Name: "conversions", Type: "N", Description: "Sessions started in the period that converted at least one goal."},
					{Name: "top_page", Type: "B", Description: "Gzipped JSON: counts by page (page views). Each breakdown is an attribute of its own, so a read of one projects and decodes it alone; counts are additive, so periods merge by sum."},
					{Name: "top_entry_page", Type: "B", Description: "Gzipped JSON: counts by entry page (visits)."},
					{Name: "top_exit_page", Type: "B", Description: "Gzipped JSON: counts by exit page (visits)."},
					{Name: "top_source", Type: "B", Description: "Gzipped JSON: counts by referrer source (visits)."},
					{Name: "top_utm_source", Type: "B", Description: "Gzipped JSON: counts by UTM source (visits)."},
					{Name: "top_utm_medium", Type: "B", Description: "Gzipped JSON: counts by UTM medium (visits)."},
					{Name: "top_utm_campaign", Type: "B", Description: "Gzipped JSON: counts by UTM campaign (visits)."},
					{Name: "top_country", Type: "B", Description: "Gzipped JSON: counts by country (visits)."},
					{Name: "top_browser", Type: "B", Description: "Gzipped JSON: counts by browser (visits)."},
					{Name: "top_os", Type: "B", Description: "Gzipped JSON: counts by OS (visits)."},
					{Name: "top_device", Type: "B", Description: "Gzipped JSON: counts by device (visits)."},
					{Name: "top_event", Type: "B", Description: "Gzipped JSON: counts by custom event name (events)."},
					{Name: "top_goal", Type: "B", Description: "Gzipped JSON: counts by goal (converted visits)."},
					{Name: "top_props", Type: "B", Description: "Gzipped JSON: for each custom event property prop:{name}, the events carrying it, by value."},
					ttl,
				},
				Example:   map[string]string{"siteId": "my-site", "period": "day", "periodStart": "2024-01-15", "pageViews": "1500", "uniqueVisitors": "420"},
				TTL:       "ttl",
				Retention: "Hourly 90 days, daily 2 years from the period's start; monthly kept (no ttl).",
			},
			{
				Name:        "Imported",
				Description: "The figures of one UTC day imported from another tool (Plausible's CSV export), kept apart from the collected Stats: reads add them only when asked (the Stats API's include.imports), and importing a day again replaces it.",
				Keys:        map[string]design.Template{"pk": "SITE#{siteId}", "sk": "IMPORTED#{date}"},
				Attributes: []design.Attribute{
					site,
					{Name: "date", Format: design.LayoutDay, Description: "The UTC day."},
					{Name: "visitors", Type: "N", Description: "Visitors of the day, as imported: days are summed, not merged."},
					{Name: "visits", Type: "N", Description: "Visits."},
					{Name: "pageViews", Type: "N", Description: "Page views."},
					{Name: "bounces", Type: "N", Description: "Visits that bounced."},
					{Name: "events", Type: "N", Description: "Custom events."},
					{Name: "durationSum", Type: "N", Description: "Sum of the visits' durations, milliseconds."},
					{Name: "top_page", Type: "B", Description: "Gzipped JSON: page views by page; top_entry_page, top_exit_page, top_source, top_utm_source, top_utm_medium, top_utm_campaign, top_country, top_browser, top_os and top_device count visits, top_event custom events, as the Stats item's do."},
				},
				Example: map[string]string{"siteId": "my-site", "date": "2024-01-15", "pageViews": "1500"},
			},
			{
				Name:        "Realtime",
				Description: "Counters of one minute for the realtime view.",
				Keys:        map[string]design.Template{"pk": "SITE#{siteId}", "sk": "REALTIME#{minute}"},
				Attributes: []design.Attribute{
					site,
					{Name: "minute", Format: "2006-01-02T15:04", Description: "The minute, UTC."},
					{Name: "pageViews", Type: "N", Description: "Page views in the minute."},
					{Name: "visitors", Type: "SS", Description: "Visitor ids seen in the minute (ADD to a set: atomic and idempotent)."},
					{Name: "pages", Type: "SS", Description: "\"{visitorId} {path}\" of each page viewed in the minute."},
					ttl,
				},
				Example:   map[string]string{"siteId": "my-site", "minute": "2024-01-15T10:30", "pageViews": "156"},
				TTL:       "ttl",
				Retention: "10 minutes after the minute.",
			},
			{
				Name:        "Top",
				Description: "One value of a breakdown of a daily or monthly period, ranked by its count in the sort key, so that the top N are the first N items of a query.",
				Keys:        map[string]design.Template{"pk": "SITE#{siteId}", "sk": "TOP#{period}#{periodStart}#{dimension}#{rank}#{value}"},
				Attributes: []design.Attribute{
					site,
					{Name: "period", Description: "day or month."},
					{Name: "periodStart", Format: design.LayoutDay, Description: "Start of the period, UTC: 2024-01-15 (day), 2024-01 (month)."},
					{Name: "dimension", Description: "page, entry_page, exit_page, source, utm_source, utm_medium, utm_campaign, country, browser, os, device, event, goal or prop:{name} (a custom event property; names holding '#' have no Top items)."},
					{Name: "rank", Description: "999999999999 minus the count, 12 digits: higher counts sort first."},
					{Name: "value", Description: "The value (a path, a source, ...)."},
					{Name: "count", Type: "N", Description: "Its count."},
					ttl,
				},
				Example:   map[string]string{"siteId": "my-site", "period": "day", "periodStart": "2024-01-15", "dimension": "page", "rank": "999999998499", "value": "/pricing"},
				TTL:       "ttl",
				Retention: "As the period's stats.",
			},
			{
				Name:        "Pending",
				Description: "A day of a site whose raw hits changed since it was last aggregated; the aggregation deletes it once done.",
				Keys:        map[string]design.Template{"pk": "SITE#{siteId}", "sk": "DIRTY#{date}"},
				Attributes: []design.Attribute{
					site,
					{Name: "date", Format: design.LayoutDay, Description: "The UTC day."},
					{Name: "at", Type: "N", Description: "When it was last marked, Unix milliseconds: the aggregation deletes it only if it is older than the aggregation's start by the marking interval, so a mark made during an aggregation survives it."},
					{Name: "cutoff", Type: "N", Description: "Set when the day was aggregated before it was over: the mark then stays, for the day's hit bucket, and needs no aggregation while at is below it (Unix milliseconds, the aggregation's start less the marking interval)."},
				},
				Example: map[string]string{"siteId": "my-site", "date": "2024-01-15"},
			},
			{
				Name:        "Lease",
				Description: "The claim of one Store (one server) on a site's aggregation, so that the Stores sharing the table aggregate each site once at a time: taken with a conditional put (no holder, the claim ended, or the holder is the taker) before a pass over the site's pending days, renewed during a long pass, deleted when the pass ends. A holder that dies keeps it until its claim ends (three times the aggregation interval, at least 30 seconds); then another Store takes the site over.",
				Keys:        map[string]design.Template{"pk": "SITE#{siteId}", "sk": "LEASE#{work}"},
				Attributes: []design.Attribute{
					site,
					{Name: "work", Description: "The unit of work: aggregate (the site's pending days)."},
					{Name: "lease_owner", Description: "The holder: an id unique to the Store (Options.LeaseOwner)."},
					{Name: "lease_until", Type: "N", Description: "When the claim ends, Unix milliseconds of the holder's clock."},
					ttl,
				},
				Example:   map[string]string{"siteId": "my-site", "work": "aggregate"},
				TTL:       "ttl",
				Retention: "Deleted at the end of the pass; its ttl (an hour after the claim ends) is the safety net for a holder that died.",
			},
			{
				Name:        "SharedLink",
				Description: "A secret link to a site's dashboard, read-only: the slug is shown once when it is made; only its SHA-256 is kept.",
				Keys:        map[string]design.Template{"pk": "SITE#{siteId}", "sk": "SHARE#{linkId}"},
				Attributes: []design.Attribute{
					site,
					{Name: "linkId", Description: "Public id of the link, the first part of its slug."},
					{Name: "name", Description: "What the link is for."},
					{Name: "hash", Type: "B", Description: "SHA-256 of the slug."},
					ts("createdAt", "When the link was made."),
				},
				Example: map[string]string{"siteId": "my-site", "linkId": "3f9a0c1d2b4e5f60", "name": "Team wiki"},
			},
			{
				Name:        "Funnel",
				Description: "An ordered list of goals that a visit reaches one after the other (sign-up page, then the Signup event, ...).",
				Keys:        map[string]design.Template{"pk": "SITE#{siteId}", "sk": "FUNNEL#{funnelId}"},
				Attributes: []design.Attribute{
					site,
					{Name: "funnelId", Description: "Funnel identifier."},
					{Name: "name", Description: "Display name."},
					{Name: "steps", Type: "L", Description: "The goal ids of the steps, in order (2 to 8)."},
				},
				Example: map[string]string{"siteId": "my-site", "funnelId": "signup", "name": "Sign-up"},
			},
			{
				Name:        "Salt",
				Description: "The random salt of a day's visitor ids; the previous day's salt is deleted when a new one is made.",
				Keys:        map[string]design.Template{"pk": "SALT", "sk": "{date}"},
				Attributes: []design.Attribute{
					{Name: "date", Format: design.LayoutDay, Description: "The UTC day."},
					{Name: "salt", Type: "B", Description: "32 random bytes."},
					ttl,
				},
				Example:   map[string]string{"date": "2024-01-15"},
				TTL:       "ttl",
				Retention: "Deleted the next day; its ttl (2 days) is the safety net.",
			},
			{
				Name: "HitBucket",
				Description: "A UTC day of a site's page views and events, kept after the raw hits expire: it names the parts (HitBucketPart) that hold them. " +
					"The aggregation writes it once the day is over and again when a late hit arrives: the new parts first, then this item (a conditional put, never to an older set), then the old parts are deleted; a reader reads the parts it names, so it never mixes two sets.",
				Keys: map[string]design.Template{"pk": "SITE#{siteId}", "sk": "HITS#{date}"},
				Attributes: []design.Attribute{
					site,
					{Name: "date", Format: design.LayoutDay, Description: "The UTC day."},
					{Name: "written", Description: "The set of parts: when the pass that wrote it read the hits, Unix milliseconds in 13 digits, then 4 random hex digits."},
					{Name: "parts", Type: "N", Description: "Its parts, numbered from 0."},
					{Name: "hits", Type: "N", Description: "Page views and events (engagement events included) in its parts."},
					{Name: "sum", Description: "xxHash64 (hex) of the parts' blocks: a pass that would write the same leaves them."},
					ttl,
				},
				Example:   map[string]string{"siteId": "my-site", "date": "2024-01-15", "written": "1705363260000a3f2", "parts": "1"},
				TTL:       "ttl",
				Retention: "2 years from the end of the day (Retention.Buckets).",
			},
			{
				Name: "HitBucketPart",
				Description: "Hits of a HitBucket, sorted by visitor and time, in compressed columns: dictionaries of the strings (path, referrer, source, UTM, country, browser, OS, device, name, properties), " +
					"varint deltas of the times, zstd; the format is docs/format/hits.md. A day whose block would pass 350 KB is split into parts at visitor boundaries.",
				Keys: map[string]design.Template{"pk": "SITE#{siteId}", "sk": "HITPART#{date}#{written}#{part}"},
				Attributes: []design.Attribute{
					site,
					{Name: "date", Format: design.LayoutDay, Description: "The UTC day."},
					{Name: "written", Description: "The set it belongs to (HitBucket's written)."},
					{Name: "part", Type: "N", Description: "Its number in the set, from 0; three digits in the sort key."},
					{Name: "block", Type: "B", Description: "The hits: a block of docs/format/hits.md."},
					ttl,
				},
				Example:   map[string]string{"siteId": "my-site", "date": "2024-01-15", "written": "1705363260000a3f2", "part": "000"},
				TTL:       "ttl",
				Retention: "As its HitBucket; the parts of a replaced set are deleted when the new one is in place.",
			},
		},
		AccessPatterns: []design.AccessPattern{
			{
				Name:        "All sites",
				Description: "List the sites.",
				Index:       "GSI1",
				Key:         "gsi1pk = SITES",
				Returns:     []string{"Site"},
				Frequency:   "site list, aggregation rounds",
			},
			{
				Name:        "Site by id",
				Description: "Load a site's settings to accept or refuse a hit.",
				Op:          design.GetItem,
				Key:         "pk = SITE#{siteId} AND sk = METADATA",
				Returns:     []string{"Site"},
				Frequency:   "each collect request (cached)",
			},
			{
				Name:        "Goals of a site",
				Description: "The goals to match hits against.",
				Key:         "pk = SITE#{siteId} AND begins_with(sk, GOAL#)",
				Returns:     []string{"Goal"},
				Frequency:   "each collect request (cached)",
			},
			{
				Name:        "Page views in a time range",
				Description: "Raw views for the hourly rollup and for drill-downs.",
				Key:         "pk = SITE#{siteId} AND sk BETWEEN PV#{from} AND PV#{to}~",
				Params: []design.Attribute{
					{Name: "from", Format: design.LayoutTimestamp, Description: "First instant, inclusive."},
					{Name: "to", Format: design.LayoutTimestamp, Description: "Last instant, inclusive: at full precision, and followed by ~ (which sorts after #) so that every view of that millisecond is in."},
				},
				Returns:   []string{"PageView"},
				Frequency: "hourly rollup, per site",
			},
			{
				Name:        "Page views by date",
				Description: "Views of whole days through GSI1.",
				Index:       "GSI1",
				Key:         "gsi1pk = SITE#{siteId} AND gsi1sk BETWEEN DATE#{fromDate} AND DATE#{toDate}",
				Params: []design.Attribute{
					{Name: "fromDate", Format: design.LayoutDay, Description: "First day, inclusive."},
					{Name: "toDate", Format: design.LayoutDay, Description: "Last day, inclusive."},
				},
				Returns:   []string{"PageView"},
				Frequency: "daily rollup, per site",
			},
			{
				Name:        "Events in a time range",
				Description: "Custom events for the events report and goal conversions.",
				Key:         "pk = SITE#{siteId} AND sk BETWEEN EVENT#{from} AND EVENT#{to}~",
				Params: []design.Attribute{
					{Name: "from", Format: design.LayoutTimestamp, Description: "First instant, inclusive."},
					{Name: "to", Format: design.LayoutTimestamp, Description: "Last instant, inclusive (followed by ~, as for page views)."},
				},
				Returns:   []string{"Event"},
				Frequency: "hourly rollup, per site",
			},
			{
				Name:        "Sessions of a day",
				Description: "The sessions an aggregation wrote for a day, to replace them.",
				Key:         "pk = SITE#{siteId} AND begins_with(sk, SESSION#{date})",
				Params:      []design.Attribute{{Name: "date", Format: design.LayoutDay, Description: "The UTC day."}},
				Returns:     []string{"Session"},
				Frequency:   "each aggregation of a day",
			},
			{
				Name:        "Sessions of a visitor",
				Description: "A visitor's sessions, newest first.",
				Index:       "GSI2",
				Key:         "gsi2pk = VISITOR#{visitorId}",
				Returns:     []string{"Session"},
				Reverse:     true,
				Frequency:   "drill-down",
			},
			{
				Name:        "Stats of a period range",
				Description: "Aggregates for the dashboard's charts: hourly for a day, daily for a month, monthly for a year.",
				Index:       "GSI1",
				Key:         "gsi1pk = SITE#{siteId} AND gsi1sk BETWEEN PERIOD#{period}#{from} AND PERIOD#{period}#{to}",
				Params: []design.Attribute{
					{Name: "from", Format: "2006-01-02T15", Description: "First period start, cut to the period."},
					{Name: "to", Format: "2006-01-02T15", Description: "Last period start, cut to the period."},
				},
				Returns:   []string{"Stats"},
				Frequency: "each dashboard load",
			},
			{
				Name:        "Top values of a period",
				Description: "The N most frequent values of a breakdown of a day or month, read in sort-key order.",
				Key:         "pk = SITE#{siteId} AND begins_with(sk, TOP#{period}#{periodStart}#{dimension}#)",
				Returns:     []string{"Top"},
				Limit:       10,
				Frequency:   "each dashboard panel",
			},
			{
				Name:        "Imported days of a range",
				Description: "The imported figures of a range of days, read beside the collected aggregates when a query includes imports.",
				Key:         "pk = SITE#{siteId} AND sk BETWEEN IMPORTED#{fromDate} AND IMPORTED#{toDate}",
				Params: []design.Attribute{
					{Name: "fromDate", Format: design.LayoutDay, Description: "First day, inclusive."},
					{Name: "toDate", Format: design.LayoutDay, Description: "Last day, inclusive."},
				},
				Returns:   []string{"Imported"},
				Frequency: "each dashboard load that includes imports",
			},
			{
				Name:        "Shared links of a site",
				Description: "List a site's shared links; a request's slug is checked by GetItem on the link id it starts with.",
				Key:         "pk = SITE#{siteId} AND begins_with(sk, SHARE#)",
				Returns:     []string{"SharedLink"},
				Frequency:   "settings page; a shared dashboard's requests (cached)",
			},
			{
				Name:        "Funnels of a site",
				Description: "A site's funnels, to list them or pick one to compute from the raw hits.",
				Key:         "pk = SITE#{siteId} AND begins_with(sk, FUNNEL#)",
				Returns:     []string{"Funnel"},
				Frequency:   "funnel panel",
			},
			{
				Name:        "Pending days of a site",
				Description: "Days to aggregate again.",
				Key:         "pk = SITE#{siteId} AND begins_with(sk, DIRTY#)",
				Returns:     []string{"Pending"},
				Frequency:   "each aggregation round",
			},
			{
				Name:        "Aggregation lease of a site",
				Description: "Take, renew or release the claim on a site's aggregation (a put or delete conditional on the holder and lease_until).",
				Op:          design.GetItem,
				Key:         "pk = SITE#{siteId} AND sk = LEASE#aggregate",
				Returns:     []string{"Lease"},
				Frequency:   "each aggregation round, per site with pending days",
			},
			{
				Name:        "Salt of a day",
				Description: "The salt of today's visitor ids.",
				Op:          design.GetItem,
				Key:         "pk = SALT AND sk = {date}",
				Returns:     []string{"Salt"},
				Frequency:   "once a day per process (cached)",
			},
			{
				Name:        "All stats of a period kind",
				Description: "Every daily (or hourly, monthly) aggregate of a site, for exports.",
				Index:       "GSI1",
				Key:         "gsi1pk = SITE#{siteId} AND begins_with(gsi1sk, PERIOD#{period}#)",
				Returns:     []string{"Stats"},
				Frequency:   "on export",
			},
			{
				Name:        "Hit buckets of a day range",
				Description: "Which days of a range have a hit bucket, and its parts: the plan of a query the aggregates cannot answer.",
				Key:         "pk = SITE#{siteId} AND sk BETWEEN HITS#{fromDate} AND HITS#{toDate}",
				Params: []design.Attribute{
					{Name: "fromDate", Format: design.LayoutDay, Description: "First day, inclusive."},
					{Name: "toDate", Format: design.LayoutDay, Description: "Last day, inclusive."},
				},
				Returns:   []string{"HitBucket"},
				Frequency: "each filtered query, funnel or breakdown by two dimensions",
			},
			{
				Name:        "Parts of a hit bucket",
				Description: "The parts a HitBucket names, by key.",
				Op:          design.BatchGetItem,
				Key:         "pk = SITE#{siteId} AND sk = HITPART#{date}#{written}#{part}",
				Returns:     []string{"HitBucketPart"},
				Frequency:   "each day of such a query whose raw hits are gone",
			},
			{
				Name:        "Hit bucket parts of a day",
				Description: "Every part of a day, to delete the sets a new one replaces (and those a writer that died left).",
				Key:         "pk = SITE#{siteId} AND begins_with(sk, HITPART#{date}#)",
				Returns:     []string{"HitBucketPart"},
				Frequency:   "each hit bucket written",
			},
			{
				Name:        "Realtime visitors",
				Description: "The last minutes' counters, newest first, bounded on both sides so that SESSION# and STATS# items (which sort after REALTIME#) never come back.",
				Key:         "pk = SITE#{siteId} AND sk BETWEEN REALTIME#{start} AND REALTIME#{end}",
				Params: []design.Attribute{
					{Name: "start", Format: "2006-01-02T15:04", Description: "Oldest minute, inclusive (now minus 5 minutes)."},
					{Name: "end", Format: "2006-01-02T15:04", Description: "Newest minute, inclusive (now)."},
				},
				Returns:   []string{"Realtime"},
				Reverse:   true,
				Limit:     5,
				Frequency: "realtime view, every 10 s",
			},
		},
	}
}
