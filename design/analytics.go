package design

// Analytics returns the design of the web-analytics table: sites, page
// views, sessions, custom events, goals, aggregated stats per hour, day and
// month, and realtime counters, in one table with two global indexes (GSI1:
// site and date or period; GSI2: visitor and time).
//
// It is the single-table analytics design with its traps fixed: the
// realtime read is bounded on both sides (an unbounded sk >= REALTIME#...
// runs on into the SESSION# and STATS# items), no key condition uses IN
// (DynamoDB refuses it), only page views carry GSI1's DATE# keys (so a read
// of page views by date returns page views only), and unique visitors are
// kept as mergeable sketches, never sums. Each call returns a new Design,
// which the caller may change (such as Table.Name).
func Analytics() *Design {
	site := Attribute{Name: "siteId", Description: "Site identifier, chosen when the site is added."}
	ts := func(name, desc string) Attribute {
		return Attribute{Name: name, Format: LayoutTimestamp, Description: desc}
	}
	ttl := Attribute{Name: "ttl", Type: "N", Description: "Expiry in epoch seconds, computed from the item's event time (not from when it was written)."}
	visitor := Attribute{Name: "visitorId", Description: "Hash of a random salt rotated daily, the site, the IP address and the user agent; nothing is stored in the browser."}
	return &Design{
		Name: "Web analytics",
		Description: "One table holds every site's page views, sessions, events, goals, aggregated stats and realtime counters. " +
			"Items of a site share the partition `SITE#{siteId}`; their sort keys start with a prefix per entity, so that each " +
			"read selects one kind of item. Raw items expire 30 days after their event, hourly stats after 90 days, daily stats " +
			"after 2 years; monthly stats are kept.",
		Table: Table{
			Name:         "analytics",
			PartitionKey: Key{Name: "pk", Type: String},
			SortKey:      Key{Name: "sk", Type: String},
			TTL:          "ttl",
			Indexes: []Index{
				{
					Name:         "GSI1",
					PartitionKey: Key{Name: "gsi1pk", Type: String},
					SortKey:      Key{Name: "gsi1sk", Type: String},
					Description:  "Site and date: page views by day, stats by period.",
				},
				{
					Name:         "GSI2",
					PartitionKey: Key{Name: "gsi2pk", Type: String},
					SortKey:      Key{Name: "gsi2sk", Type: String},
					Description:  "Visitor and time: the sessions of a visitor.",
				},
			},
		},
		Entities: []Entity{
			{
				Name:        "Site",
				Description: "A tracked site and its settings.",
				Keys:        map[string]Template{"pk": "SITE#{siteId}", "sk": "METADATA"},
				Attributes: []Attribute{
					site,
					{Name: "name", Description: "Display name."},
					{Name: "domains", Type: "SS", Description: "Domains whose hits are accepted."},
					{Name: "ownerId", Description: "Owner's user id."},
					ts("createdAt", "When the site was added."),
				},
				Example: map[string]string{"siteId": "my-site", "name": "My Website", "domains": "example.com", "ownerId": "user-123"},
			},
			{
				Name:        "PageView",
				Description: "One page view, written by the collect endpoint.",
				Keys: map[string]Template{
					"pk": "SITE#{siteId}", "sk": "PV#{timestamp}#{id}",
					"gsi1pk": "SITE#{siteId}", "gsi1sk": "DATE#{date}",
				},
				Attributes: []Attribute{
					site,
					ts("timestamp", "Time of the view, UTC."),
					{Name: "id", Description: "Random id that keeps two views of one millisecond apart."},
					{Name: "date", Format: LayoutDay, Derived: "the UTC date of timestamp"},
					{Name: "path", Description: "Page path, without query string."},
					{Name: "referrer", Description: "Referring host, if another site."},
					visitor,
					{Name: "sessionId", Description: "The session the view belongs to."},
					{Name: "device", Description: "desktop, mobile or tablet."},
					{Name: "browser", Description: "Browser family."},
					{Name: "country", Description: "ISO 3166 country code."},
					{Name: "utm", Type: "M", Description: "utm_source, utm_medium, utm_campaign, utm_term, utm_content."},
					ttl,
				},
				Example: map[string]string{
					"siteId": "my-site", "timestamp": "2024-01-15T10:30:00.000Z", "id": "pv-abc123",
					"date": "2024-01-15", "path": "/blog/post-1", "visitorId": "9f2c61d0", "sessionId": "s-xyz",
				},
				TTL:       "ttl",
				Retention: "30 days from the view's time.",
			},
			{
				Name:        "Session",
				Description: "A visit: consecutive page views of one visitor, 30 minutes apart at most.",
				Keys: map[string]Template{
					"pk": "SITE#{siteId}", "sk": "SESSION#{sessionId}",
					"gsi2pk": "VISITOR#{visitorId}", "gsi2sk": "{startedAt}",
				},
				Attributes: []Attribute{
					site,
					{Name: "sessionId", Description: "Random session id."},
					visitor,
					ts("startedAt", "Time of the first view."),
					ts("lastSeen", "Time of the last view or event."),
					{Name: "entryPage", Description: "Path of the first view."},
					{Name: "exitPage", Description: "Path of the last view."},
					{Name: "pageViews", Type: "N", Description: "Views in the session."},
					{Name: "duration", Type: "N", Description: "Seconds from the first to the last view."},
					{Name: "bounce", Type: "BOOL", Description: "True while the session has one view."},
					ttl,
				},
				Example: map[string]string{
					"siteId": "my-site", "sessionId": "s-xyz", "visitorId": "9f2c61d0", "startedAt": "2024-01-15T10:29:12.000Z",
				},
				TTL:       "ttl",
				Retention: "30 days from the session's start.",
			},
			{
				Name:        "Event",
				Description: "A custom event sent by the site's script (signup, download, ...).",
				Keys:        map[string]Template{"pk": "SITE#{siteId}", "sk": "EVENT#{timestamp}#{id}"},
				Attributes: []Attribute{
					site,
					ts("timestamp", "Time of the event, UTC."),
					{Name: "id", Description: "Random id that keeps two events of one millisecond apart."},
					{Name: "name", Description: "Event name."},
					{Name: "properties", Type: "M", Description: "String properties sent with the event."},
					{Name: "value", Type: "N", Description: "Optional numeric value (revenue)."},
					{Name: "path", Description: "Page path where it happened."},
					visitor,
					{Name: "sessionId", Description: "The session it belongs to."},
					ttl,
				},
				Example: map[string]string{
					"siteId": "my-site", "timestamp": "2024-01-15T10:31:05.250Z", "id": "ev-7d1e", "name": "signup",
				},
				TTL:       "ttl",
				Retention: "30 days from the event's time.",
			},
			{
				Name:        "Goal",
				Description: "A conversion goal: a page path or an event name to count.",
				Keys:        map[string]Template{"pk": "SITE#{siteId}", "sk": "GOAL#{goalId}"},
				Attributes: []Attribute{
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
				Description: "Aggregates of one period, written by the rollup jobs; recomputing a period replaces it, so re-runs never double-count.",
				Keys: map[string]Template{
					"pk": "SITE#{siteId}", "sk": "STATS#{period}#{periodStart}",
					"gsi1pk": "SITE#{siteId}", "gsi1sk": "PERIOD#{period}#{periodStart}",
				},
				Attributes: []Attribute{
					site,
					{Name: "period", Description: "hour, day or month."},
					{Name: "periodStart", Format: "2006-01-02T15", Description: "Start of the period, UTC, cut to the period: 2024-01-15T10 (hour), 2024-01-15 (day), 2024-01 (month)."},
					{Name: "pageViews", Type: "N", Description: "Page views."},
					{Name: "visitors", Type: "B", Description: "HyperLogLog sketch of the visitor ids; buckets merge by sketch union, never by sum."},
					{Name: "uniqueVisitors", Type: "N", Description: "Estimate read from the sketch."},
					{Name: "sessions", Type: "N", Description: "Sessions started."},
					{Name: "bounces", Type: "N", Description: "Sessions with one view."},
					{Name: "durationSum", Type: "N", Description: "Sum of session durations, seconds."},
					{Name: "top", Type: "M", Description: "Counts by page, referrer, UTM, device, browser, country, event and goal."},
					ttl,
				},
				Example:   map[string]string{"siteId": "my-site", "period": "day", "periodStart": "2024-01-15", "pageViews": "1500", "uniqueVisitors": "420"},
				TTL:       "ttl",
				Retention: "Hourly 90 days, daily 2 years from the period's start; monthly kept (no ttl).",
			},
			{
				Name:        "Realtime",
				Description: "Counters of one minute for the realtime view.",
				Keys:        map[string]Template{"pk": "SITE#{siteId}", "sk": "REALTIME#{minute}"},
				Attributes: []Attribute{
					site,
					{Name: "minute", Format: "2006-01-02T15:04", Description: "The minute, UTC."},
					{Name: "pageViews", Type: "N", Description: "Page views in the minute."},
					{Name: "visitors", Type: "B", Description: "HyperLogLog sketch of the minute's visitors."},
					{Name: "activePages", Type: "M", Description: "Views by path."},
					ttl,
				},
				Example:   map[string]string{"siteId": "my-site", "minute": "2024-01-15T10:30", "pageViews": "156"},
				TTL:       "ttl",
				Retention: "10 minutes after the minute.",
			},
		},
		AccessPatterns: []AccessPattern{
			{
				Name:        "Site by id",
				Description: "Load a site's settings to accept or refuse a hit.",
				Op:          GetItem,
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
				Params: []Attribute{
					{Name: "from", Format: LayoutTimestamp, Description: "First instant, inclusive."},
					{Name: "to", Format: LayoutTimestamp, Description: "Last instant, inclusive: at full precision, and followed by ~ (which sorts after #) so that every view of that millisecond is in."},
				},
				Returns:   []string{"PageView"},
				Frequency: "hourly rollup, per site",
			},
			{
				Name:        "Page views by date",
				Description: "Views of whole days through GSI1.",
				Index:       "GSI1",
				Key:         "gsi1pk = SITE#{siteId} AND gsi1sk BETWEEN DATE#{fromDate} AND DATE#{toDate}",
				Params: []Attribute{
					{Name: "fromDate", Format: LayoutDay, Description: "First day, inclusive."},
					{Name: "toDate", Format: LayoutDay, Description: "Last day, inclusive."},
				},
				Returns:   []string{"PageView"},
				Frequency: "daily rollup, per site",
			},
			{
				Name:        "Events in a time range",
				Description: "Custom events for the events report and goal conversions.",
				Key:         "pk = SITE#{siteId} AND sk BETWEEN EVENT#{from} AND EVENT#{to}~",
				Params: []Attribute{
					{Name: "from", Format: LayoutTimestamp, Description: "First instant, inclusive."},
					{Name: "to", Format: LayoutTimestamp, Description: "Last instant, inclusive (followed by ~, as for page views)."},
				},
				Returns:   []string{"Event"},
				Frequency: "hourly rollup, per site",
			},
			{
				Name:        "Session by id",
				Description: "Load the visitor's current session to extend it.",
				Op:          GetItem,
				Key:         "pk = SITE#{siteId} AND sk = SESSION#{sessionId}",
				Returns:     []string{"Session"},
				Frequency:   "each page view",
			},
			{
				Name:        "Latest session of a visitor",
				Description: "Find whether a visitor has a session still open.",
				Index:       "GSI2",
				Key:         "gsi2pk = VISITOR#{visitorId} AND gsi2sk >= {since}",
				Params:      []Attribute{{Name: "since", Format: LayoutTimestamp, Description: "Now minus the 30-minute session timeout."}},
				Returns:     []string{"Session"},
				Reverse:     true,
				Limit:       1,
				Frequency:   "each page view without a session id",
			},
			{
				Name:        "Stats of a period range",
				Description: "Aggregates for the dashboard's charts: hourly for a day, daily for a month, monthly for a year.",
				Index:       "GSI1",
				Key:         "gsi1pk = SITE#{siteId} AND gsi1sk BETWEEN PERIOD#{period}#{from} AND PERIOD#{period}#{to}",
				Params: []Attribute{
					{Name: "from", Format: "2006-01-02T15", Description: "First period start, cut to the period."},
					{Name: "to", Format: "2006-01-02T15", Description: "Last period start, cut to the period."},
				},
				Returns:   []string{"Stats"},
				Frequency: "each dashboard load",
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
				Name:        "Realtime visitors",
				Description: "The last minutes' counters, newest first, bounded on both sides so that SESSION# and STATS# items (which sort after REALTIME#) never come back.",
				Key:         "pk = SITE#{siteId} AND sk BETWEEN REALTIME#{start} AND REALTIME#{end}",
				Params: []Attribute{
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
