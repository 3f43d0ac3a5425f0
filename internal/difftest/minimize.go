package difftest

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// maxReplays bounds the work of Minimize.
const maxReplays = 150

// Minimize looks for a short reproduction of divergence d of a run made
// with cfg: it regenerates the run's operations, keeps the diverging one
// and the earlier writes that may have touched what it reads, and drops
// writes (delta debugging) while a replay on fresh tables still diverges at
// the same place. It returns the operations of the smallest replay found,
// the diverging one last, and that replay's divergence.
func Minimize(ctx context.Context, cfg Config, a, b Target, d *Divergence) ([]Op, *Divergence, error) {
	if d.Index < 0 {
		return nil, d, nil
	}
	g := NewGenerator(cfg.Seed, cfg.Skip...)
	ops := make([]Op, 0, d.Index+1)
	for range min(d.Index+1, cfg.Ops) {
		ops = append(ops, g.Next())
	}
	if d.Index >= cfg.Ops {
		ops = append(ops, FinalChecks(g.Schema, cfg.Skip)[d.Index-cfg.Ops])
	}
	last := ops[len(ops)-1]
	var cands []Op
	for _, op := range ops[:len(ops)-1] {
		if isWrite(op) && touches(op, last) {
			cands = append(cands, op)
		}
	}
	m := &minimizer{cfg: cfg, a: a, b: b, schema: g.Schema, last: last, want: shape(d)}
	best, bestD, err := m.try(ctx, cands)
	if err != nil {
		return nil, nil, err
	}
	if bestD == nil {
		return append(cands, last), d, fmt.Errorf("difftest: the divergence at operation %d does not reproduce with the %d earlier writes that touch its keys", d.Index, len(cands))
	}
	if _, d0, err := m.try(ctx, nil); err != nil {
		return nil, nil, err
	} else if d0 != nil {
		return []Op{last}, d0, nil
	}
	// Delta debugging over the candidate writes.
	c, n := best, 2
	for len(c) >= 2 && m.replays < maxReplays {
		size := (len(c) + n - 1) / n
		reduced := false
		for i := 0; i < len(c) && m.replays < maxReplays; i += size {
			rest := append(append([]Op(nil), c[:i]...), c[min(i+size, len(c)):]...)
			ops, dd, err := m.try(ctx, rest)
			if err != nil {
				return nil, nil, err
			}
			if dd != nil {
				c, bestD, reduced = ops, dd, true
				n = max(n-1, 2)
				break
			}
		}
		if !reduced {
			if n >= len(c) {
				break
			}
			n = min(2*n, len(c))
		}
	}
	if len(c) == 1 { // try without the last one left
		if _, dd, err := m.try(ctx, nil); err == nil && dd != nil {
			return []Op{last}, dd, nil
		}
	}
	return append(c, last), bestD, nil
}

type minimizer struct {
	cfg     Config
	a, b    Target
	schema  *Schema
	last    Op
	want    string
	replays int
}

// try replays prefix and then the diverging operation on fresh tables. It
// returns prefix and the divergence of the last operation if it has the
// wanted shape, nil otherwise.
func (m *minimizer) try(ctx context.Context, prefix []Op) ([]Op, *Divergence, error) {
	m.replays++
	tag := fmt.Sprintf("r%d", m.replays)
	a, b := m.a, m.b
	a.Prefix += tag
	b.Prefix += tag
	r := &runner{cfg: m.cfg, schema: m.schema, a: a, b: b, res: &Result{Outcomes: map[string]int{}}}
	r.cfg.MaxDivergences = 1 << 30
	defer r.dropTables(m.schema)
	if err := r.createTables(ctx, m.schema); err != nil {
		return nil, nil, err
	}
	for _, op := range prefix {
		if err := r.compare(ctx, 0, op); err != nil {
			return nil, nil, err
		}
	}
	n := len(r.res.Divergences)
	if err := r.compare(ctx, len(prefix), m.last); err != nil {
		return nil, nil, err
	}
	if len(r.res.Divergences) > n {
		if d := r.res.Divergences[n]; shape(d) == m.want {
			return prefix, d, nil
		}
	}
	return prefix, nil, nil
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// shape identifies a divergence for Minimize: the operation and the path of
// the first difference, without list indexes.
// For a difference in an error's code or message, the two texts (cut
// short, paths in them removed) are part of the shape.
func shape(d *Divergence) string {
	s := d.Kind + " " + indexRE.ReplaceAllString(strings.SplitN(d.Path, " ", 2)[0], "[]")
	if strings.HasSuffix(d.Path, ".message") || strings.HasSuffix(d.Path, ".error") {
		cut := func(x string) string {
			x = bracketRE.ReplaceAllString(x, "")
			return x[:min(len(x), 60)]
		}
		s += " " + cut(d.AtA) + " | " + cut(d.AtB)
	}
	return s
}

var bracketRE = regexp.MustCompile(`\[[^\]]*\]|\{[^}]*\}`)

func isWrite(op Op) bool {
	switch op.Kind {
	case "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems":
		return true
	}
	return op.writes
}

// touches reports whether write w may have changed what op reads: the same
// key for operations on one key, the same partition for a query of the
// table, the same table otherwise.
func touches(w, op Op) bool {
	wk := keysOf(w)
	for _, k := range keysOf(op) {
		for _, x := range wk {
			if k.table != x.table {
				continue
			}
			if k.id == "" || x.id == "" || k.id == x.id || k.partition && strings.HasPrefix(x.id, k.id) {
				return true
			}
		}
	}
	return false
}

type keyRef struct {
	table     string
	id        string // "" for the whole table
	partition bool   // id is a partition prefix
}

func keysOf(op Op) []keyRef {
	one := func(table *string, k Item) keyRef {
		if table == nil {
			return keyRef{}
		}
		return keyRef{table: *table, id: keyID("", k)}
	}
	switch in := op.Input.(type) {
	case *dynamodb.ExecuteStatementInput, *dynamodb.BatchExecuteStatementInput, *dynamodb.ExecuteTransactionInput:
		return op.keys
	case *dynamodb.PutItemInput:
		return []keyRef{one(in.TableName, in.Item)}
	case *dynamodb.UpdateItemInput:
		return []keyRef{one(in.TableName, in.Key)}
	case *dynamodb.DeleteItemInput:
		return []keyRef{one(in.TableName, in.Key)}
	case *dynamodb.GetItemInput:
		return []keyRef{one(in.TableName, in.Key)}
	case *dynamodb.QueryInput:
		// A key condition "pk = :v" on the table names its partition; any
		// other query may read anything in the table.
		if in.IndexName == nil && in.KeyConditionExpression != nil && in.TableName != nil {
			for p, v := range in.ExpressionAttributeValues {
				if s, ok := v.(*types.AttributeValueMemberS); ok &&
					(strings.Contains(*in.KeyConditionExpression, "pk = "+p) || hashByName(in, p)) {
					return []keyRef{{table: *in.TableName, id: "|S" + s.Value + "|", partition: true}}
				}
			}
		}
		return []keyRef{{table: deref(in.TableName)}}
	case *dynamodb.ScanInput:
		return []keyRef{{table: deref(in.TableName)}}
	case *dynamodb.BatchWriteItemInput:
		var out []keyRef
		for t, reqs := range in.RequestItems {
			for _, r := range reqs {
				if r.PutRequest != nil {
					out = append(out, one(&t, r.PutRequest.Item))
				}
				if r.DeleteRequest != nil {
					out = append(out, one(&t, r.DeleteRequest.Key))
				}
			}
		}
		return out
	case *dynamodb.BatchGetItemInput:
		var out []keyRef
		for t, ka := range in.RequestItems {
			for _, k := range ka.Keys {
				out = append(out, one(&t, k))
			}
		}
		return out
	case *dynamodb.TransactWriteItemsInput:
		var out []keyRef
		for _, ti := range in.TransactItems {
			switch {
			case ti.Put != nil:
				out = append(out, one(ti.Put.TableName, ti.Put.Item))
			case ti.Update != nil:
				out = append(out, one(ti.Update.TableName, ti.Update.Key))
			case ti.Delete != nil:
				out = append(out, one(ti.Delete.TableName, ti.Delete.Key))
			case ti.ConditionCheck != nil:
				out = append(out, one(ti.ConditionCheck.TableName, ti.ConditionCheck.Key))
			}
		}
		return out
	case *dynamodb.TransactGetItemsInput:
		var out []keyRef
		for _, ti := range in.TransactItems {
			if ti.Get != nil {
				out = append(out, one(ti.Get.TableName, ti.Get.Key))
			}
		}
		return out
	}
	return nil
}

// hashByName reports whether the query's key condition compares the
// partition key, spelled through a name placeholder, with value p.
func hashByName(in *dynamodb.QueryInput, p string) bool {
	for ph, name := range in.ExpressionAttributeNames {
		if name == "pk" && strings.Contains(*in.KeyConditionExpression, ph+" = "+p) {
			return true
		}
	}
	return false
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Repro formats a reproduction: the requests in order, then both answers
// to the last one.
func Repro(ops []Op, d *Divergence) string {
	var sb strings.Builder
	for i, op := range ops {
		fmt.Fprintf(&sb, "%d. %s %s\n", i+1, op.Kind, Render(op.Input))
	}
	fmt.Fprintf(&sb, "first difference at %s\n%s: %s\n%s: %s\n", d.Path, d.AName, d.A, d.BName, d.B)
	return sb.String()
}
