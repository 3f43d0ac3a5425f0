package promapi

import (
	"context"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"

	"github.com/timetable-db/timetable/series"
)

// Label lookups without matchers on labels (only on __name__, or none)
// read the label index of each kind they match: its names, or the values
// of one name, up to the hints' limit, and, for __name__, the metrics of
// the kinds that have a series. A kind whose index is still being built,
// or that holds plain series labelled by their readings' tags (whose
// labels count only where they have readings in the range), is looked up
// through the selection of its series, as a lookup with matchers on
// labels is.

// onLabels reports whether ms has a matcher on another label than
// __name__.
func onLabels(ms []*labels.Matcher) bool {
	for _, m := range ms {
		if m.Name != model.MetricNameLabel {
			return true
		}
	}
	return false
}

// kindOf is a kind of a lookup and its metrics that matched.
type kindOf struct {
	kind    *series.Kind
	tags    []string
	metrics []metric
}

// kindsOf returns the kinds of the metrics ms match.
func (q *querier) kindsOf(ctx context.Context, ms []*labels.Matcher) []*kindOf {
	var out []*kindOf
	byName := map[string]*kindOf{}
	for _, m := range q.metrics(ctx, ms) {
		k := byName[m.kind.Name()]
		if k == nil {
			k = &kindOf{kind: m.kind, tags: m.tags}
			byName[m.kind.Name()] = k
			out = append(out, k)
		}
		k.metrics = append(k.metrics, m)
	}
	return out
}

// indexed reports whether a lookup of kind k can read its label index:
// the index is complete and no series is labelled by its readings.
func (q *querier) indexed(ctx context.Context, k *kindOf) (bool, error) {
	ready, err := k.kind.LabelIndexReady(ctx)
	if err != nil || !ready {
		return false, err
	}
	if len(readLabels(k.tags)) == 0 {
		return true, nil
	}
	ids, _, err := k.kind.PlainSeries(ctx, series.IndexRange{Limit: 1})
	return len(ids) == 0, err
}

// hasSeries reports whether kind k has a series.
func (q *querier) hasSeries(ctx context.Context, k *series.Kind) (bool, error) {
	if _, ok := q.q.hasSeries.Load(k.Name()); ok {
		return true, nil
	}
	ids, _, err := k.Series(ctx, "", 1, "")
	if err != nil || len(ids) == 0 {
		return false, err
	}
	q.q.hasSeries.Store(k.Name(), true)
	return true, nil
}

// selectKind returns the series of kind k's metrics that ms select, over
// the querier's range.
func (q *querier) selectKind(ctx context.Context, sel *selection, k *kindOf, ms []*labels.Matcher) ([]*selected, error) {
	var out []*selected
	for _, m := range k.metrics {
		cs, err := sel.candidates(ctx, m)
		if err != nil {
			return nil, err
		}
		got, err := q.selectOf(ctx, m, cs, q.mint, q.maxt, ms)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// indexedOr reports whether kind k has its label index; when it has
// not, it calls each with the labels of every series of k that ms select
// (sel), read from the series.
func (q *querier) indexedOr(ctx context.Context, sel *selection, k *kindOf, ms []*labels.Matcher, each func(labels.Labels)) (bool, error) {
	ok, err := q.indexed(ctx, k)
	if err != nil || ok {
		return ok, err
	}
	got, err := q.selectKind(ctx, sel, k, ms)
	if err != nil {
		return false, err
	}
	for _, s := range got {
		each(s.labels)
	}
	return false, nil
}

// indexValues returns the values of label name in the kinds ms (on
// __name__ only) match: from their label index, at most the hints' limit
// from each, or from their series selected.
func (q *querier) indexValues(ctx context.Context, name string, h *storage.LabelHints, ms []*labels.Matcher) (map[string]struct{}, error) {
	set := map[string]struct{}{}
	limit := 0
	if h != nil && h.Limit > 0 {
		limit = h.Limit
	}
	sel := q.newSelection(ms)
	for _, k := range q.kindsOf(ctx, ms) {
		ok, err := q.indexedOr(ctx, sel, k, ms, func(ls labels.Labels) {
			if v := ls.Get(name); v != "" {
				set[v] = struct{}{}
			}
		})
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if name == model.MetricNameLabel {
			has, err := q.hasSeries(ctx, k.kind)
			if err != nil {
				return nil, err
			}
			for _, m := range k.metrics {
				if has {
					set[m.name] = struct{}{}
				}
			}
			continue
		}
		r := series.IndexRange{Limit: seriesPage}
		if limit > 0 {
			r.Limit = min(limit, seriesPage)
		}
		for n := 0; limit == 0 || n < limit; {
			vs, more, err := k.kind.LabelValues(ctx, name, r)
			if err != nil {
				return nil, err
			}
			for _, v := range vs {
				set[v] = struct{}{}
			}
			n += len(vs)
			if !more {
				break
			}
			r.After = vs[len(vs)-1]
		}
	}
	return set, nil
}

// indexNames returns the names of the labels of the kinds ms (on
// __name__ only) match, from their label index or their series selected.
func (q *querier) indexNames(ctx context.Context, ms []*labels.Matcher) (map[string]struct{}, error) {
	set := map[string]struct{}{}
	sel := q.newSelection(ms)
	for _, k := range q.kindsOf(ctx, ms) {
		ok, err := q.indexedOr(ctx, sel, k, ms, func(ls labels.Labels) {
			ls.Range(func(l labels.Label) { set[l.Name] = struct{}{} })
		})
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		has, err := q.hasSeries(ctx, k.kind)
		if err != nil || !has {
			if err != nil {
				return nil, err
			}
			continue
		}
		set[model.MetricNameLabel] = struct{}{}
		r := series.IndexRange{Limit: seriesPage}
		for {
			names, more, err := k.kind.LabelNames(ctx, r)
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				set[n] = struct{}{}
			}
			if !more {
				break
			}
			r.After = names[len(names)-1]
		}
	}
	return set, nil
}
