package expr

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/local/internal/number"
)

// The golden file testdata/golden.tsv holds expressions with the answer
// DynamoDB Local gave for each. Columns, tab-separated: kind, expression
// (JSON string), ExpressionAttributeNames (JSON or -), ExpressionAttribute-
// Values (DynamoDB JSON or -), item (DynamoDB JSON, "base" for baseItem,
// "none" for an absent item), and the answer: "error: <message>", true or
// false for conditions and filters, "ok" for key conditions, or the item
// (DynamoDB JSON, canonical) for projections and updates.
//
// The legacy kinds expected, scanfilter, keyconditions (table pk S, sk N)
// and attributeupdates hold the parameter's JSON in the expression column
// and the ConditionalOperator (JSON string) in the names column.
//
// Run with -update and TIMETABLE_DYNAMODB_ENDPOINT set to record the answers
// again from that endpoint.
var update = flag.Bool("update", false, "record the answers of testdata/golden.tsv from TIMETABLE_DYNAMODB_ENDPOINT")

const goldenFile = "testdata/golden.tsv"

// baseItem is the item most golden cases run against (its key pk is added
// when the case runs).
const baseItem = `{"n":{"N":"5"},"s":{"S":"str"},"e":{"S":"é"},"b":{"B":"AAEC"},"t":{"BOOL":true},"z":{"NULL":true},` +
	`"l":{"L":[{"N":"1"},{"N":"2"},{"N":"3"}]},"m":{"M":{"x":{"N":"1"},"y":{"M":{"z":{"S":"z"},"w":{"S":"w"}}}}},` +
	`"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"bs":{"BS":["AA==","AQ=="]},` +
	`"l2":{"L":[{"M":{"a":{"N":"1"},"b":{"N":"2"}}},{"L":[{"N":"7"},{"N":"8"}]}]},"es":{"S":""},"el":{"L":[]},"em":{"M":{}}}`

type goldenCase struct {
	line   int
	kind   string
	expr   string
	names  string
	values string
	item   string
	want   string
}

func readGolden(t testing.TB) []goldenCase {
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []goldenCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) == 5 {
			cols = append(cols, "")
		}
		if len(cols) != 6 {
			t.Fatalf("%s:%d: %d columns", goldenFile, line, len(cols))
		}
		c := goldenCase{line: line, kind: cols[0], names: cols[2], values: cols[3], item: cols[4], want: cols[5]}
		if err := json.Unmarshal([]byte(cols[1]), &c.expr); err != nil {
			t.Fatalf("%s:%d: expression: %v", goldenFile, line, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func writeGolden(t testing.TB, cases []goldenCase) {
	src, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	for _, c := range cases {
		cols := strings.Split(lines[c.line-1], "\t")
		lines[c.line-1] = strings.Join(append(cols[:5], c.want), "\t")
	}
	if err := os.WriteFile(goldenFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (c *goldenCase) parseNames(t testing.TB) map[string]string {
	if c.names == "-" {
		return nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(c.names), &m); err != nil {
		t.Fatalf("line %d: names: %v", c.line, err)
	}
	return m
}

func (c *goldenCase) parseValues(t testing.TB) map[string]types.AttributeValue {
	if c.values == "-" {
		return nil
	}
	return mustItem(t, c.values)
}

// parseItem returns the case's item with key pk=id, or nil for "none".
func (c *goldenCase) parseItem(t testing.TB, id string) Item {
	src := c.item
	switch src {
	case "none":
		return nil
	case "base":
		src = baseItem
	}
	item := mustItem(t, src)
	item["pk"] = &types.AttributeValueMemberS{Value: id}
	return item
}

func TestGolden(t *testing.T) {
	cases := readGolden(t)
	if *update {
		if dynamotest.Endpoint() == "" {
			t.Fatal("-update needs " + dynamotest.EndpointEnv)
		}
		r := newRecorder(t)
		for i := range cases {
			cases[i].want = r.run(t, &cases[i])
		}
		writeGolden(t, cases)
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d_%s", c.line, c.kind), func(t *testing.T) {
			got := runLocal(t, &c)
			if got != c.want {
				t.Errorf("%s %q\n got: %s\nwant: %s", c.kind, c.expr, got, c.want)
			}
		})
	}
	t.Logf("%d golden cases", len(cases))
}

// runLocal answers a golden case with this package.
func runLocal(t testing.TB, c *goldenCase) string {
	if legacyKinds[c.kind] {
		return runLegacy(t, c)
	}
	comp := NewCompiler(c.parseNames(t), c.parseValues(t))
	item := c.parseItem(t, "golden")
	var (
		cond *Condition
		kc   *KeyCondition
		proj *Projection
		upd  *Update
		err  error
	)
	switch c.kind {
	case "condition":
		cond, err = comp.Condition(c.expr)
	case "filter":
		cond, err = comp.Filter(c.expr)
	case "key", "keyh":
		kc, err = comp.KeyCondition(c.expr)
	case "projection":
		proj, err = comp.Projection(c.expr)
	case "update":
		upd, err = comp.Update(c.expr)
	default:
		t.Fatalf("line %d: unknown kind %q", c.line, c.kind)
	}
	if err == nil {
		err = comp.Finish()
	}
	if err != nil {
		return "error: " + err.Error()
	}
	switch c.kind {
	case "condition":
		return fmt.Sprint(cond.Eval(item))
	case "filter":
		if item == nil {
			return "false"
		}
		return fmt.Sprint(cond.Eval(item))
	case "key", "keyh":
		rangeKey := "sk"
		if c.kind == "keyh" {
			rangeKey = ""
		}
		// The engine refuses nested paths into key attributes first.
		for _, k := range []string{"pk", rangeKey} {
			if k != "" && slices.Contains(kc.Nested(), k) {
				return "error: Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: " + k
			}
		}
		r, err := kc.Resolve("pk", rangeKey)
		if err != nil {
			return "error: " + err.Error()
		}
		return keyAnswer(r)
	case "projection":
		return canonical(proj.Apply(item))
	}
	return updateAnswer(upd, item)
}

// keyAnswer is the answer to a key condition resolved to r: "ok", or the
// error the engine gives when a value's type is not the schema's (pk S,
// sk N), which it checks after resolving.
func keyAnswer(r *KeyRange) string {
	bad := typeOf(r.HashValue) != tyS
	for _, v := range r.Values {
		bad = bad || typeOf(v) != tyN
	}
	if bad {
		return "error: One or more parameter values were invalid: Condition parameter type does not match schema type"
	}
	return "ok"
}

// updateAnswer is the answer of u applied to item: the item after it,
// with the partition key "golden" where it has none, or the error.
func updateAnswer(u *Update, item Item) string {
	out, err := u.Apply(item)
	if err != nil {
		return "error: " + err.Error()
	}
	if out["pk"] == nil {
		out["pk"] = &types.AttributeValueMemberS{Value: "golden"}
	}
	return canonical(out)
}

// legacyParam holds the JSON of any legacy parameter.
type legacyParam map[string]struct {
	Value              any
	Exists             *bool
	ComparisonOperator string
	AttributeValueList []any
	Action             string
}

func (c *goldenCase) legacy(t testing.TB) (legacyParam, types.ConditionalOperator) {
	var p legacyParam
	if err := json.Unmarshal([]byte(c.expr), &p); err != nil {
		t.Fatalf("line %d: %v", c.line, err)
	}
	var op string
	if c.names != "-" {
		if err := json.Unmarshal([]byte(c.names), &op); err != nil {
			t.Fatalf("line %d: %v", c.line, err)
		}
	}
	return p, types.ConditionalOperator(op)
}

func (p legacyParam) list(t testing.TB, name string) []types.AttributeValue {
	var l []types.AttributeValue
	for _, v := range p[name].AttributeValueList {
		l = append(l, fromJSON(t, v))
	}
	return l
}

func (p legacyParam) value(t testing.TB, name string) types.AttributeValue {
	if p[name].Value == nil {
		return nil
	}
	return fromJSON(t, p[name].Value)
}

func (p legacyParam) expected(t testing.TB) map[string]types.ExpectedAttributeValue {
	m := map[string]types.ExpectedAttributeValue{}
	for name, e := range p {
		m[name] = types.ExpectedAttributeValue{Value: p.value(t, name), Exists: e.Exists,
			ComparisonOperator: types.ComparisonOperator(e.ComparisonOperator), AttributeValueList: p.list(t, name)}
	}
	return m
}

func (p legacyParam) conditions(t testing.TB) map[string]types.Condition {
	m := map[string]types.Condition{}
	for name, e := range p {
		m[name] = types.Condition{ComparisonOperator: types.ComparisonOperator(e.ComparisonOperator), AttributeValueList: p.list(t, name)}
	}
	return m
}

func (p legacyParam) updates(t testing.TB) map[string]types.AttributeValueUpdate {
	m := map[string]types.AttributeValueUpdate{}
	for name, e := range p {
		m[name] = types.AttributeValueUpdate{Action: types.AttributeAction(e.Action), Value: p.value(t, name)}
	}
	return m
}

var legacyKinds = map[string]bool{"expected": true, "scanfilter": true, "keyconditions": true, "attributeupdates": true}

func runLegacy(t testing.TB, c *goldenCase) string {
	p, op := c.legacy(t)
	item := c.parseItem(t, "golden")
	var (
		cond *Condition
		err  error
	)
	switch c.kind {
	case "expected":
		cond, err = Expected(p.expected(t), op)
	case "scanfilter":
		cond, err = LegacyFilter(p.conditions(t), op)
	case "keyconditions":
		var kc *KeyCondition
		kc, err = KeyConditions(p.conditions(t))
		if err == nil {
			var r *KeyRange
			r, err = kc.Resolve("pk", "sk")
			if err == nil {
				return keyAnswer(r)
			}
		}
	case "attributeupdates":
		var u *Update
		u, err = AttributeUpdates(p.updates(t))
		if err == nil {
			return updateAnswer(u, item)
		}
	}
	if err != nil {
		return "error: " + err.Error()
	}
	if c.kind == "scanfilter" && item == nil {
		return "false"
	}
	return fmt.Sprint(cond.Eval(item))
}

// recorder answers golden cases with a DynamoDB endpoint.
type recorder struct {
	ctx    context.Context
	client *dynamodb.Client
	tables map[string]string
}

func newRecorder(t testing.TB) *recorder {
	r := &recorder{ctx: context.Background(), tables: map[string]string{}}
	r.client = dynamotest.Client(t)
	mk := func(kind string, rangeKey bool) {
		name := "expr_golden_" + kind
		defs := []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}}
		schema := []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}
		if rangeKey {
			defs = append(defs, types.AttributeDefinition{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN})
			schema = append(schema, types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange})
		}
		_, _ = r.client.DeleteTable(r.ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		_, err := r.client.CreateTable(r.ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: defs, KeySchema: schema,
			BillingMode: types.BillingModePayPerRequest,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_, _ = r.client.DeleteTable(r.ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		})
		r.tables[kind] = name
	}
	mk("h", false)
	mk("hr", true)
	return r
}

func (r *recorder) run(t testing.TB, c *goldenCase) string {
	var names map[string]string
	var values map[string]types.AttributeValue
	if !legacyKinds[c.kind] {
		names, values = c.parseNames(t), c.parseValues(t)
	}
	id := fmt.Sprintf("golden%d", c.line)
	item := c.parseItem(t, id)
	table := aws.String(r.tables["h"])
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: id}}
	put := func() {
		if item != nil {
			if _, err := r.client.PutItem(r.ctx, &dynamodb.PutItemInput{TableName: table, Item: item}); err != nil {
				t.Fatalf("line %d: put: %v", c.line, err)
			}
		}
	}
	defer func() {
		_, _ = r.client.DeleteItem(r.ctx, &dynamodb.DeleteItemInput{TableName: table, Key: key})
	}()
	// result formats an item the engine returned, as the golden file has
	// it: an absent one as an empty item when empty says so, and this
	// case's partition key named "golden" as every case's is.
	result := func(it Item, empty bool) string {
		if it == nil && empty {
			it = Item{}
		}
		if p, ok := it["pk"].(*types.AttributeValueMemberS); ok && p.Value == id {
			it["pk"] = &types.AttributeValueMemberS{Value: "golden"}
		}
		return canonical(it)
	}
	var err error
	switch c.kind {
	case "expected", "scanfilter", "keyconditions", "attributeupdates":
		p, op := c.legacy(t)
		switch c.kind {
		case "expected":
			put()
			_, err = r.client.PutItem(r.ctx, &dynamodb.PutItemInput{TableName: table, Item: key,
				Expected: p.expected(t), ConditionalOperator: op})
			var ccf *types.ConditionalCheckFailedException
			if errors.As(err, &ccf) {
				return "false"
			}
			if err == nil {
				return "true"
			}
		case "scanfilter":
			put()
			var out *dynamodb.ScanOutput
			out, err = r.client.Scan(r.ctx, &dynamodb.ScanInput{TableName: table, ScanFilter: p.conditions(t), ConditionalOperator: op})
			if err == nil {
				return fmt.Sprint(out.Count > 0)
			}
		case "keyconditions":
			_, err = r.client.Query(r.ctx, &dynamodb.QueryInput{TableName: aws.String(r.tables["hr"]), KeyConditions: p.conditions(t)})
			if err == nil {
				return "ok"
			}
		case "attributeupdates":
			put()
			var out *dynamodb.UpdateItemOutput
			out, err = r.client.UpdateItem(r.ctx, &dynamodb.UpdateItemInput{TableName: table, Key: key,
				AttributeUpdates: p.updates(t), ReturnValues: types.ReturnValueAllNew})
			if err == nil {
				return result(out.Attributes, true)
			}
		}
	case "condition":
		put()
		_, err = r.client.PutItem(r.ctx, &dynamodb.PutItemInput{TableName: table, Item: key,
			ConditionExpression: aws.String(c.expr), ExpressionAttributeNames: names, ExpressionAttributeValues: values})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			return "false"
		}
		if err == nil {
			return "true"
		}
	case "filter":
		put()
		var out *dynamodb.ScanOutput
		out, err = r.client.Scan(r.ctx, &dynamodb.ScanInput{TableName: table,
			FilterExpression: aws.String(c.expr), ExpressionAttributeNames: names, ExpressionAttributeValues: values})
		if err == nil {
			return fmt.Sprint(out.Count > 0)
		}
	case "key", "keyh":
		tbl := r.tables["hr"]
		if c.kind == "keyh" {
			tbl = r.tables["h"]
		}
		_, err = r.client.Query(r.ctx, &dynamodb.QueryInput{TableName: aws.String(tbl),
			KeyConditionExpression: aws.String(c.expr), ExpressionAttributeNames: names, ExpressionAttributeValues: values})
		if err == nil {
			return "ok"
		}
	case "projection":
		put()
		var out *dynamodb.GetItemOutput
		out, err = r.client.GetItem(r.ctx, &dynamodb.GetItemInput{TableName: table, Key: key,
			ProjectionExpression: aws.String(c.expr), ExpressionAttributeNames: names})
		if err == nil {
			return result(out.Item, item != nil)
		}
	case "update":
		put()
		var out *dynamodb.UpdateItemOutput
		out, err = r.client.UpdateItem(r.ctx, &dynamodb.UpdateItemInput{TableName: table, Key: key,
			UpdateExpression: aws.String(c.expr), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
			ReturnValues: types.ReturnValueAllNew})
		if err == nil {
			return result(out.Attributes, true)
		}
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return "error: " + apiErr.ErrorMessage()
	}
	t.Fatalf("line %d: %v", c.line, err)
	return ""
}

// canonical formats an item as DynamoDB JSON with sorted keys, sorted set
// elements and numbers in canonical form; a nil item is "null".
func canonical(item Item) string {
	if item == nil {
		return "null"
	}
	b, _ := json.Marshal(toJSON(&types.AttributeValueMemberM{Value: item})["M"])
	s := string(b)
	// The pk of the golden case is not interesting.
	return strings.ReplaceAll(s, `"pk":{"S":"golden"}`, `"pk":"_"`)
}

func toJSON(v types.AttributeValue) map[string]any {
	canon := func(s string) string {
		n, err := number.Parse(s)
		if err != nil {
			return s
		}
		return n.String()
	}
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": canon(v.Value)}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Value)}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": v.Value}
	case *types.AttributeValueMemberSS:
		s := slices.Clone(v.Value)
		slices.Sort(s)
		return map[string]any{"SS": s}
	case *types.AttributeValueMemberNS:
		s := make([]string, len(v.Value))
		for i, e := range v.Value {
			s[i] = canon(e)
		}
		slices.SortFunc(s, cmpDecimal)
		return map[string]any{"NS": s}
	case *types.AttributeValueMemberBS:
		s := make([]string, len(v.Value))
		for i, e := range v.Value {
			s[i] = base64.StdEncoding.EncodeToString(e)
		}
		slices.Sort(s)
		return map[string]any{"BS": s}
	case *types.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, e := range v.Value {
			l[i] = toJSON(e)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		m := make(map[string]any, len(v.Value))
		for k, e := range v.Value {
			m[k] = toJSON(e)
		}
		return map[string]any{"M": m}
	}
	return map[string]any{}
}

func mustItem(t testing.TB, src string) Item {
	var raw map[string]any
	if err := json.Unmarshal([]byte(src), &raw); err != nil {
		t.Fatalf("item %s: %v", src, err)
	}
	item := make(Item, len(raw))
	for k, v := range raw {
		item[k] = fromJSON(t, v)
	}
	return item
}

// fromJSON converts DynamoDB JSON to an attribute value. An object without
// a known type gives a nil value (an invalid, empty attribute value).
func fromJSON(t testing.TB, v any) types.AttributeValue {
	m, _ := v.(map[string]any)
	for k, x := range m {
		switch k {
		case "S":
			return &types.AttributeValueMemberS{Value: x.(string)}
		case "N":
			return &types.AttributeValueMemberN{Value: x.(string)}
		case "B":
			b, err := base64.StdEncoding.DecodeString(x.(string))
			if err != nil {
				t.Fatal(err)
			}
			return &types.AttributeValueMemberB{Value: b}
		case "BOOL":
			return &types.AttributeValueMemberBOOL{Value: x.(bool)}
		case "NULL":
			return &types.AttributeValueMemberNULL{Value: x.(bool)}
		case "SS", "NS":
			var s []string
			for _, e := range x.([]any) {
				s = append(s, e.(string))
			}
			if s == nil {
				s = []string{}
			}
			if k == "SS" {
				return &types.AttributeValueMemberSS{Value: s}
			}
			return &types.AttributeValueMemberNS{Value: s}
		case "BS":
			s := [][]byte{}
			for _, e := range x.([]any) {
				b, err := base64.StdEncoding.DecodeString(e.(string))
				if err != nil {
					t.Fatal(err)
				}
				s = append(s, b)
			}
			return &types.AttributeValueMemberBS{Value: s}
		case "L":
			l := []types.AttributeValue{}
			for _, e := range x.([]any) {
				l = append(l, fromJSON(t, e))
			}
			return &types.AttributeValueMemberL{Value: l}
		case "M":
			mm := map[string]types.AttributeValue{}
			for k, e := range x.(map[string]any) {
				mm[k] = fromJSON(t, e)
			}
			return &types.AttributeValueMemberM{Value: mm}
		}
	}
	return nil
}
