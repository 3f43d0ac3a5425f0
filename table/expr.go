package table

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// exprs collects the expressions of one request, built together so that
// they share one set of placeholder names and values.
type exprs struct {
	cond, filter Cond
	update       *expression.UpdateBuilder
	key          *expression.KeyConditionBuilder
	projection   []string // document paths
	keyNames     []string // top-level names added to a non-empty projection
}

// built is the result of exprs.build; nil pointers for absent parts.
type built struct {
	cond, filter, update, key, projection *string
	names                                 map[string]string
	values                                map[string]types.AttributeValue
}

func (x exprs) build() (built, error) {
	b := expression.NewBuilder()
	some := false
	if x.cond.err != nil {
		return built{}, x.cond.err
	}
	if x.filter.err != nil {
		return built{}, x.filter.err
	}
	if x.cond.raw != nil || x.filter.raw != nil {
		return x.buildRaw()
	}
	if x.cond.set {
		b, some = b.WithCondition(x.cond.b), true
	}
	if x.filter.set {
		b, some = b.WithFilter(x.filter.b), true
	}
	if x.update != nil {
		b, some = b.WithUpdate(*x.update), true
	}
	if x.key != nil {
		b, some = b.WithKeyCondition(*x.key), true
	}
	if len(x.projection) > 0 {
		var p expression.ProjectionBuilder
		seen := map[string]bool{}
		for _, n := range x.projection {
			p = p.AddNames(expression.Name(n))
			seen[topLevel(n)] = true
		}
		for _, n := range x.keyNames {
			if !seen[n] {
				p = p.AddNames(expression.NameNoDotSplit(n))
				seen[n] = true
			}
		}
		b, some = b.WithProjection(p), true
	}
	if !some {
		return built{}, nil
	}
	e, err := b.Build()
	if err != nil {
		return built{}, err
	}
	return built{
		cond: e.Condition(), filter: e.Filter(), update: e.Update(), key: e.KeyCondition(),
		projection: e.Projection(), names: e.Names(), values: e.Values(),
	}, nil
}

// buildRaw returns the expressions of x when its condition or filter is
// made by Expr, which must then be its only expression.
func (x exprs) buildRaw() (built, error) {
	r := x.cond.raw
	if r == nil {
		r = x.filter.raw
	}
	if (x.cond.set && x.filter.set) || x.update != nil || x.key != nil || len(x.projection) > 0 {
		return built{}, errRawCombined
	}
	b := built{names: r.names, values: r.values}
	if x.cond.set {
		b.cond = &r.expr
	} else {
		b.filter = &r.expr
	}
	return b, nil
}

// topLevel returns the attribute name a document path starts with.
func topLevel(path string) string {
	if i := strings.IndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return path
}

// stripper returns a function that removes from items the key attributes
// added to a projection only to build cursors, or nil if none were added.
func stripper(projection, keyNames []string) func(Item) {
	if len(projection) == 0 {
		return nil
	}
	asked := map[string]bool{}
	for _, p := range projection {
		asked[topLevel(p)] = true
	}
	var extra []string
	for _, n := range keyNames {
		if !asked[n] {
			extra = append(extra, n)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	return func(it Item) {
		for _, n := range extra {
			delete(it, n)
		}
	}
}
