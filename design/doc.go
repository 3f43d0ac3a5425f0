// Package design describes DynamoDB single-table designs as data, checks
// them, renders them as documents, and estimates what they cost.
//
// # Designs
//
// A Design is a table (keys, global and local secondary indexes, TTL), the
// entities stored in it with the templates of their keys ("SITE#{siteId}",
// "PV#{timestamp}#{id}"), and the access patterns the application runs, each
// a key condition template on the table or an index:
//
//	pk = SITE#{siteId} AND sk BETWEEN REALTIME#{start} AND REALTIME#{end}
//
// Code that builds keys and queries can take them from the same Design
// (Entity.KeyValues, AccessPattern.Expression, Design.Expression,
// Template.Fill and Template.Match), so the documents cannot drift from the
// code. Package design holds no product's design: each product declares
// its own next to the code that writes with it (analytics.Design,
// series.Design).
//
// # Multi-attribute keys
//
// A global index's key may have up to four partition and four sort key
// attributes (Index.MorePartitionKeys, Index.MoreSortKeys), often
// attributes the items store anyway rather than built strings:
//
//	Index{Name: "byDay",
//		PartitionKey: Key{Name: "siteId"}, MorePartitionKeys: []Key{{Name: "kind"}},
//		SortKey: Key{Name: "day"}, MoreSortKeys: []Key{{Name: "path"}}}
//
// An item is in such an index only if it has every key attribute; an
// entity that sets some of them is not in it (Entity.InIndex), which
// Validate reports only when an attribute it sets serves no other key. A
// query gives an equality on every partition attribute and conditions on
// the sort attributes from the left, at most one of them a range, the
// last:
//
//	siteId = {siteId} AND kind = day AND day = {day} AND begins_with(path, {prefix})
//
// Validate reports a condition that does not (CodePartitionKeys,
// CodeSortKeyGap, CodeAfterRange), too many attributes, such a key on a
// local index, an attribute twice in one key schema, and an attribute whose
// type differs from its key's. Design.Expression builds the condition with
// its terms in key schema order; the documents list every key attribute
// and chart an index's items sorted by all of them.
//
// # Validation
//
// Validate catches the usual mistakes (unknown indexes and entities,
// placeholders that name no attribute, keys that do not fit the key schema)
// and the traps of single-table designs:
//
//   - two entities in one partition whose sort keys interleave in formats
//     that do not sort alike: the hour bucket 2024-12-01-14 sorts before the
//     timestamp 2024-12-01T00:00:00.000Z ('-' sorts before 'T');
//   - a range bounded on one side, such as sk >= REALTIME#{start}, that runs
//     on into the items of other entities (SESSION#, STATS#);
//   - a condition that selects other entities' items as well;
//   - an inclusive upper bound coarser than the keys it bounds
//     (PV#2024-01-31 leaves out PV#2024-01-31T10:00:00.000Z#...);
//   - key conditions DynamoDB refuses (IN, OR, functions other than
//     begins_with).
//
// # Documents
//
// Markdown writes a design document: the table, its indexes, an entity chart
// with every key template, the access-pattern matrix (a row per pattern, a
// column per table or index, the key condition in the cell), and a
// single-table chart of example items in the order DynamoDB stores them.
// Matrix and Chart write those parts alone.
//
// # Capacity and cost
//
// A Workload (writes, reads per access pattern, storage per retention tier,
// or units measured on a real run) turns into an Estimate of the monthly
// on-demand and provisioned cost, following DynamoDB's rules: writes in 1 KB
// units, reads in 4 KB units, eventually consistent reads at half,
// transactional requests at double, storage with 100 bytes of overhead per
// item. Estimate.Markdown shows the arithmetic. Prices are those of
// us-east-1 (DefaultPrices) unless a Workload gives its own.
package design
