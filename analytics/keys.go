package analytics

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/table"
)

// spec is the table design of the Store (Design): the one definition of
// the keys this package writes and of the document that
// `timetable design analytics` prints. Every key below is one of its
// templates filled in, so the two cannot drift.
var spec = Design()

// The entities of spec this package writes.
var (
	entSite     = entity("Site")
	entPageView = entity("PageView")
	entSession  = entity("Session")
	entEvent    = entity("Event")
	entGoal     = entity("Goal")
	entStats    = entity("Stats")
	entRealtime = entity("Realtime")
	entTop      = entity("Top")
	entPending  = entity("Pending")
	entSalt     = entity("Salt")
	entShare    = entity("SharedLink")
	entFunnel   = entity("Funnel")
	entLease    = entity("Lease")
	entImported = entity("Imported")

	entHitBucket     = entity("HitBucket")
	entHitBucketPart = entity("HitBucketPart")
	entHitVisits     = entity("HitBucketVisits")
)

func entity(name string) *design.Entity {
	e := spec.Entity(name)
	if e == nil {
		panic("analytics: the design has no entity " + name)
	}
	return e
}

// Attribute names of the table's keys, from spec.
var (
	attrPK     = spec.Table.PartitionKey.Name
	attrSK     = spec.Table.SortKey.Name
	attrTTL    = spec.Table.TTL
	indexGSI1  = spec.Table.Indexes[0].Name
	attrGSI1PK = spec.Table.Indexes[0].PartitionKey.Name
	attrGSI1SK = spec.Table.Indexes[0].SortKey.Name
)

// Time layouts of the key values.
const (
	layoutTimestamp = design.LayoutTimestamp
	layoutDay       = design.LayoutDay
	layoutMinute    = "2006-01-02T15:04"
	layoutHour      = "2006-01-02T15"
	layoutMonth     = design.LayoutMonth
)

func timestamp(t time.Time) string { return t.UTC().Format(layoutTimestamp) }
func dayOf(t time.Time) string     { return t.UTC().Format(layoutDay) }

// schema is the table.Schema of spec's table, named name.
func schema(name string) table.Schema {
	s := table.Schema{Name: name, HashKey: attrPK, RangeKey: attrSK}
	for _, ix := range spec.Table.Indexes {
		s.Indexes = append(s.Indexes, table.Index{Name: ix.Name, HashKey: ix.PartitionKey.Name, RangeKey: ix.SortKey.Name})
	}
	return s
}

// keyItem returns the key attributes of an item of e (its table keys and
// the keys of the indexes it is in) filled with values, as a new Item.
func keyItem(e *design.Entity, values map[string]string) (table.Item, error) {
	kv, err := e.KeyValues(values)
	if err != nil {
		return nil, fmt.Errorf("analytics: %w", err)
	}
	it := make(table.Item, len(kv)+8)
	for k, v := range kv {
		it[k] = &types.AttributeValueMemberS{Value: v}
	}
	return it, nil
}

// primaryKey returns the table key of an item of e filled with values.
func primaryKey(e *design.Entity, values map[string]string) (table.Key, error) {
	pk, err := e.Keys[attrPK].Fill(values)
	if err != nil {
		return table.Key{}, fmt.Errorf("analytics: %w", err)
	}
	sk, err := e.Keys[attrSK].Fill(values)
	if err != nil {
		return table.Key{}, fmt.Errorf("analytics: %w", err)
	}
	return table.K(pk, sk), nil
}

// fill fills one template of spec with values; the templates are constant,
// so only a missing value fails, which is a bug of this package.
func fill(t design.Template, values map[string]string) string {
	s, err := t.Fill(values)
	if err != nil {
		panic(err)
	}
	return s
}

// sitePK is the partition of a site's items.
func sitePK(site string) string { return fill(entSite.Keys[attrPK], map[string]string{"siteId": site}) }

// prefix returns the sort-key prefix of entity e: its template's literal
// text up to the first placeholder, filled with values (for templates
// whose first placeholders are known).
func skPrefix(e *design.Entity) string { return e.Keys[attrSK].Prefix() }

// Attribute value helpers.

func sAttr(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func nAttr(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func getS(it table.Item, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func getN(it table.Item, name string) int64 {
	if v, ok := it[name].(*types.AttributeValueMemberN); ok {
		n, _ := strconv.ParseInt(v.Value, 10, 64)
		return n
	}
	return 0
}

func getB(it table.Item, name string) []byte {
	if v, ok := it[name].(*types.AttributeValueMemberB); ok {
		return v.Value
	}
	return nil
}

func getSS(it table.Item, name string) []string {
	if v, ok := it[name].(*types.AttributeValueMemberSS); ok {
		return v.Value
	}
	return nil
}

func getBool(it table.Item, name string) bool {
	v, ok := it[name].(*types.AttributeValueMemberBOOL)
	return ok && v.Value
}

func getMap(it table.Item, name string) map[string]string {
	v, ok := it[name].(*types.AttributeValueMemberM)
	if !ok {
		return nil
	}
	m := make(map[string]string, len(v.Value))
	for k, x := range v.Value {
		if s, ok := x.(*types.AttributeValueMemberS); ok {
			m[k] = s.Value
		}
	}
	return m
}

func mapAttr(m map[string]string) types.AttributeValue {
	av := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		if v != "" {
			av[k] = sAttr(v)
		}
	}
	return &types.AttributeValueMemberM{Value: av}
}

// expired reports whether it carries a ttl at or before now: DynamoDB
// deletes expired items late (up to about two days), so reads drop them.
func expired(it table.Item, now time.Time) bool {
	ttl := getN(it, attrTTL)
	return ttl != 0 && ttl <= now.Unix()
}
