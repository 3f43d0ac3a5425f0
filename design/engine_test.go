package design

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/internal/testenv"
)

// createTableInput builds the CreateTableInput of a design's table: its key
// schema and every index's, multi-attribute keys in key schema order.
func createTableInput(tb testing.TB, t *Table) *dynamodb.CreateTableInput {
	tb.Helper()
	defs := map[string]types.ScalarAttributeType{}
	schema := func(index string) []types.KeySchemaElement {
		pks, sks, ok := t.KeySchema(index)
		if !ok {
			tb.Fatalf("no index %s", index)
		}
		var ks []types.KeySchemaElement
		for i, k := range append(pks, sks...) {
			typ := types.KeyTypeHash
			if i >= len(pks) {
				typ = types.KeyTypeRange
			}
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(k.Name), KeyType: typ})
			defs[k.Name] = types.ScalarAttributeType(k.typ())
		}
		return ks
	}
	in := &dynamodb.CreateTableInput{TableName: aws.String(t.Name), KeySchema: schema(""), BillingMode: types.BillingModePayPerRequest}
	for _, ix := range t.Indexes {
		p := &types.Projection{ProjectionType: types.ProjectionType(ix.Projection.typ()), NonKeyAttributes: ix.Projection.NonKeyAttributes}
		if ix.Local {
			in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{IndexName: aws.String(ix.Name), KeySchema: schema(ix.Name), Projection: p})
		} else {
			in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{IndexName: aws.String(ix.Name), KeySchema: schema(ix.Name), Projection: p})
		}
	}
	for _, name := range sortedKeys(defs) {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: defs[name]})
	}
	return in
}

// attr returns text as an attribute value of a key attribute's type.
func attr(t *Table, name, text string) types.AttributeValue {
	if typ, ok := t.keyType(name); ok && typ == Number {
		return &types.AttributeValueMemberN{Value: text}
	}
	return &types.AttributeValueMemberS{Value: text}
}

// A multi-attribute pattern's expression runs on the embedded engine and
// reads the items its entity writes, and only those.
func TestDesign_Expression_Engine(t *testing.T) {
	ctx := context.Background()
	d := siteStats()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	db := testenv.MemDB(t, nil)
	if _, err := db.CreateTable(ctx, createTableInput(t, &d.Table)); err != nil {
		t.Fatal(err)
	}
	// put writes an item of entity e as the code would: its key values
	// and its attributes.
	put := func(name string, values map[string]string) {
		t.Helper()
		e := d.Entity(name)
		kv, err := e.KeyValues(values)
		if err != nil {
			t.Fatal(err)
		}
		item := map[string]types.AttributeValue{}
		for _, a := range e.Attributes {
			if v, ok := values[a.Name]; ok && a.typ() == "N" {
				item[a.Name] = &types.AttributeValueMemberN{Value: v}
			} else if ok {
				item[a.Name] = &types.AttributeValueMemberS{Value: v}
			}
		}
		for k, v := range kv {
			item[k] = attr(&d.Table, k, v)
		}
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(d.Table.Name), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	put("Site", map[string]string{"siteId": "s1", "domain": "example.com"})
	for _, v := range []map[string]string{
		{"siteId": "s1", "day": "2024-01-15", "path": "/docs/a", "views": "1"},
		{"siteId": "s1", "day": "2024-01-15", "path": "/docs/b", "views": "2"},
		{"siteId": "s1", "day": "2024-01-15", "path": "/pricing", "views": "3"},
		{"siteId": "s1", "day": "2024-01-16", "path": "/docs/a", "views": "4"},
		{"siteId": "s2", "day": "2024-01-15", "path": "/docs/a", "views": "5"},
	} {
		put("PathStats", v)
	}
	run := func(p *AccessPattern, x *Expression) (*dynamodb.QueryOutput, error) {
		vals := map[string]types.AttributeValue{}
		for ph, v := range x.Values {
			vals[ph] = attr(&d.Table, x.Attrs[ph], v)
		}
		return db.Query(ctx, &dynamodb.QueryInput{
			TableName: aws.String(d.Table.Name), IndexName: aws.String(p.Index),
			KeyConditionExpression: aws.String(x.KeyCondition), ExpressionAttributeNames: x.Names, ExpressionAttributeValues: vals,
		})
	}
	query := func(pattern string, values map[string]string) []string {
		t.Helper()
		x, err := d.Expression(pattern, values)
		if err != nil {
			t.Fatal(err)
		}
		p := d.AccessPattern(pattern)
		out, err := run(p, x)
		if err != nil {
			t.Fatalf("%s: %s: %v", pattern, x.KeyCondition, err)
		}
		var got []string
		for _, it := range out.Items {
			got = append(got, it["day"].(*types.AttributeValueMemberS).Value+" "+it["path"].(*types.AttributeValueMemberS).Value)
		}
		return got
	}
	got := query("Paths of a day", map[string]string{"siteId": "s1", "day": "2024-01-15", "prefix": "/docs/"})
	if want := []string{"2024-01-15 /docs/a", "2024-01-15 /docs/b"}; !slices.Equal(got, want) {
		t.Errorf("Paths of a day = %q, want %q", got, want)
	}
	got = query("Days of a site", map[string]string{"siteId": "s1", "from": "2024-01-16", "to": "2024-01-31"})
	if want := []string{"2024-01-16 /docs/a"}; !slices.Equal(got, want) {
		t.Errorf("Days of a site = %q, want %q", got, want)
	}

	// What Validate and Design.Expression refuse, the engine refuses too
	// (AccessPattern.Expression builds it without the key schema's check).
	values := map[string]string{"siteId": "s1", "day": "2024-01-15", "prefix": "/docs/"}
	for _, key := range []string{
		"siteId = {siteId} AND day = {day}",
		"siteId = {siteId} AND kind = day AND path = {prefix}",
		"siteId = {siteId} AND kind = day AND day >= {day} AND path = {prefix}",
	} {
		p := &AccessPattern{Name: "bad", Index: "byDay", Key: key, Returns: []string{"PathStats"}, Params: []Attribute{{Name: "prefix"}}}
		d.AccessPatterns = []AccessPattern{*p}
		if _, err := d.Expression("bad", values); err == nil {
			t.Errorf("%s: Design.Expression accepts it", key)
		}
		if err := d.Validate(); err == nil {
			t.Errorf("%s: Validate accepts it", key)
		}
		x, err := p.Expression(values)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := run(p, x); err == nil {
			t.Errorf("%s: the engine accepts %s", key, x.KeyCondition)
		}
	}
}
