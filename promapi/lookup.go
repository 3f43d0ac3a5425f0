package promapi

import (
	"context"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"

	"github.com/timetable-db/timetable/ingest"
	"github.com/timetable-db/timetable/series"
)

// Label lookups without matchers on labels (only on __name__, or none)
// read the label index of each kind they match: its names, or the values
// of one name, up to the hints' limit; the series whose readings' tags
// give labels (see candidatesRead) are read over the querier's range for
// theirs. __name__'s values are the metrics of the kinds that have a
// series. A kind whose index is still being built sends the lookup to
// the selection of series (collect), as one with matchers on labels goes.

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

// kindsOf returns the kinds of metrics ms match, and whether the label
// index of each is complete.
func (q *querier) kindsOf(ctx context.Context, ms []*labels.Matcher) ([]*kindOf, bool, error) {
	var out []*kindOf
	byName := map[string]*kindOf{}
	for _, m := range q.metrics(ctx, ms) {
		k := byName[m.kind.Name()]
		if k == nil {
			ready, err := m.kind.LabelIndexReady(ctx)
			if err != nil || !ready {
				return nil, false, err
			}
			k = &kindOf{kind: m.kind, tags: m.tags}
			byName[m.kind.Name()] = k
			out = append(out, k)
		}
		k.metrics = append(k.metrics, m)
	}
	return out, true, nil
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

// readLabels returns the series of k whose readings' tags give labels,
// read over the querier's range, when one of those labels is wanted
// (name, or any for "").
func (q *querier) readLabels(ctx context.Context, sel *selection, k *kindOf, name string) ([]*selected, error) {
	wanted := false
	for _, t := range k.tags {
		l := ingest.LabelOfTag(t)
		wanted = wanted || (l != model.MetricNameLabel && (name == "" || l == name))
	}
	if !wanted {
		return nil, nil
	}
	found := map[string]candidate{}
	if err := sel.candidatesRead(ctx, k.kind, k.tags, nil, found); err != nil {
		return nil, err
	}
	cs := make([]candidate, 0, len(found))
	for _, c := range found {
		cs = append(cs, c)
	}
	var out []*selected
	for _, m := range k.metrics {
		got, err := q.selectOf(ctx, m, cs, q.mint, q.maxt, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// indexValues returns the values of label name in the kinds ms match,
// from their label index, at most the hints' limit from each, and
// whether every kind's index is complete (if not, it returns nothing).
func (q *querier) indexValues(ctx context.Context, name string, h *storage.LabelHints, ms []*labels.Matcher) (map[string]struct{}, bool, error) {
	ks, ok, err := q.kindsOf(ctx, ms)
	if err != nil || !ok {
		return nil, false, err
	}
	set := map[string]struct{}{}
	limit := 0
	if h != nil && h.Limit > 0 {
		limit = h.Limit
	}
	sel := q.newSelection(nil)
	for _, k := range ks {
		if name == model.MetricNameLabel {
			has, err := q.hasSeries(ctx, k.kind)
			if err != nil {
				return nil, false, err
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
				return nil, false, err
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
		read, err := q.readLabels(ctx, sel, k, name)
		if err != nil {
			return nil, false, err
		}
		for _, s := range read {
			if v := s.labels.Get(name); v != "" {
				set[v] = struct{}{}
			}
		}
	}
	return set, true, nil
}

// indexNames returns the names of the labels of the kinds ms match, from
// their label index, and whether every kind's index is complete (if not,
// it returns nothing).
func (q *querier) indexNames(ctx context.Context, ms []*labels.Matcher) (map[string]struct{}, bool, error) {
	ks, ok, err := q.kindsOf(ctx, ms)
	if err != nil || !ok {
		return nil, false, err
	}
	set := map[string]struct{}{}
	sel := q.newSelection(nil)
	for _, k := range ks {
		has, err := q.hasSeries(ctx, k.kind)
		if err != nil {
			return nil, false, err
		}
		if !has {
			continue
		}
		set[model.MetricNameLabel] = struct{}{}
		r := series.IndexRange{Limit: seriesPage}
		for {
			names, more, err := k.kind.LabelNames(ctx, r)
			if err != nil {
				return nil, false, err
			}
			for _, n := range names {
				set[n] = struct{}{}
			}
			if !more {
				break
			}
			r.After = names[len(names)-1]
		}
		read, err := q.readLabels(ctx, sel, k, "")
		if err != nil {
			return nil, false, err
		}
		for _, s := range read {
			s.labels.Range(func(l labels.Label) { set[l.Name] = struct{}{} })
		}
	}
	return set, true, nil
}
