package promapi

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"golang.org/x/sync/errgroup"

	"github.com/timetable-db/timetable/ingest"
	"github.com/timetable-db/timetable/series"
)

// Selecting the series of a kind: which ids a selection may select, from
// the kind's label index (series.Kind.LabelSeries and LabelValues), the
// way Prometheus' PostingsForMatchers does from its inverted index. The
// matchers that do not match the empty value ("positive": job="a",
// job=~"a|b", job!="") need their label set, so the series selected are
// among those of the postings of their values; the others (job!="a",
// job="") only remove series, which the labels of each id found tell at
// no cost (the id is its label set), so unlike Prometheus no posting is
// read for them. Without a positive matcher the selection is every
// series of the kind (its directory).
//
// Of the positive matchers, those of few values are read together, a
// page each in turn, until one has no more: its series, less those whose
// labels another matcher refuses, are the selection, which costs reads of
// about as many postings per such matcher as the smallest of them holds.
// The series of an id that is not a label set may take labels from their
// readings' tags (extra); no posting names those, so they are found
// apart (candidatesRead) and read to be selected.

// maxDriverValues is the most values a positive matcher may have for its
// postings to be read; a regular expression of more values is checked
// against the labels of the series the others find instead, unless it
// has the fewest values of the positive matchers and none has at most
// this many.
const maxDriverValues = 64

// postingsConcurrency bounds the postings pages a selection reads at once.
const postingsConcurrency = 8

// First and largest page of postings a selection reads of one value: the
// pages grow as a value keeps giving series, so that a small value costs
// little and a large one few calls.
const (
	firstPostingsPage = 100
	maxPostingsPage   = 4000
)

// candidate is a series id a selection may select: the labels of its id
// and the kind's tags whose labels its readings give (extra), by index.
type candidate struct {
	id     string
	labels labels.Labels
	extra  []int
}

// labelsOf converts labels of the series package.
func labelsOf(ls []series.Label) labels.Labels {
	b := labels.NewScratchBuilder(len(ls))
	for _, l := range ls {
		b.Add(l.Name, l.Value)
	}
	return b.Labels()
}

// newCandidate returns the candidate of id in a kind of tags: an id that
// is a label set is all its labels; any other takes the kind's tags it
// does not name from its readings.
func newCandidate(id string, tags []string) candidate {
	ls, isSet := series.IDLabels(id)
	c := candidate{id: id, labels: labelsOf(ls)}
	if !isSet {
		c.extra = extraTags(tags, c.labels)
	}
	return c
}

// mayMatch reports whether c may match every matcher of ms but those on
// __name__: those on labels its readings give are checked once read.
func (c *candidate) mayMatch(ms []*labels.Matcher, tags []string) bool {
	for _, m := range ms {
		if m.Name == model.MetricNameLabel || c.readsLabel(m.Name, tags) {
			continue
		}
		if !m.Matches(c.labels.Get(m.Name)) {
			return false
		}
	}
	return true
}

// readsLabel reports whether c's readings give label name.
func (c *candidate) readsLabel(name string, tags []string) bool {
	for _, i := range c.extra {
		if ingest.LabelOfTag(tags[i]) == name {
			return true
		}
	}
	return false
}

// selection is the candidates of one selection, kind by kind, counted
// against MaxSeries.
type selection struct {
	q     *querier
	ms    []*labels.Matcher
	limit int
	n     int
	kinds map[string][]candidate
}

func (q *querier) newSelection(ms []*labels.Matcher) *selection {
	limit := q.q.MaxSeries
	if limit <= 0 {
		limit = DefaultMaxSeries
	}
	return &selection{q: q, ms: ms, limit: limit, kinds: map[string][]candidate{}}
}

// count counts n more candidates, refusing more than the limit.
func (s *selection) count(n int) error {
	s.n += n
	if s.n > s.limit {
		return fmt.Errorf("%w: the selection selects more than %d series (MaxSeries): select fewer by their labels", ErrTooManySeries, s.limit)
	}
	return nil
}

// candidates returns the candidates of kind k of the metric m.
func (s *selection) candidates(ctx context.Context, m metric) ([]candidate, error) {
	name := m.kind.Name()
	if got, ok := s.kinds[name]; ok {
		return got, nil
	}
	ready, err := m.kind.LabelIndexReady(ctx)
	if err != nil {
		return nil, err
	}
	var out []candidate
	if !ready {
		out, err = s.scanKind(ctx, m.kind, m.tags)
	} else {
		out, err = s.indexed(ctx, m.kind, m.tags)
	}
	if err != nil {
		return nil, err
	}
	s.kinds[name] = out
	return out, nil
}

// positives returns the matchers of ms but those on __name__ that do not
// match the empty value.
func positives(ms []*labels.Matcher) []*labels.Matcher {
	var out []*labels.Matcher
	for _, m := range ms {
		if m.Name != model.MetricNameLabel && !m.Matches("") {
			out = append(out, m)
		}
	}
	return out
}

// indexed returns the candidates of kind k (of tags) through its label
// index.
func (s *selection) indexed(ctx context.Context, k *series.Kind, tags []string) ([]candidate, error) {
	pos := positives(s.ms)
	if len(pos) == 0 {
		return s.all(ctx, k, tags, "")
	}
	found := map[string]candidate{}
	if err := s.postings(ctx, k, tags, pos, found); err != nil {
		return nil, err
	}
	if err := s.candidatesRead(ctx, k, tags, pos, found); err != nil {
		return nil, err
	}
	out := make([]candidate, 0, len(found))
	for _, c := range found {
		out = append(out, c)
	}
	return out, nil
}

// all returns the candidates among the series of kind k whose ids start
// with prefix, listing the directory.
func (s *selection) all(ctx context.Context, k *series.Kind, tags []string, prefix string) ([]candidate, error) {
	var out []candidate
	cursor := ""
	for {
		ids, next, err := k.Series(ctx, prefix, seriesPage, cursor)
		if err != nil {
			return nil, err
		}
		n := len(out)
		for _, id := range ids {
			if c := newCandidate(id, tags); c.mayMatch(s.ms, tags) {
				out = append(out, c)
			}
		}
		if err := s.count(len(out) - n); err != nil {
			return nil, err
		}
		if next == "" {
			return out, nil
		}
		cursor = next
	}
}

// scanKind returns the candidates of a kind whose label index is not
// complete: its whole directory, as long as it holds at most the limit.
func (s *selection) scanKind(ctx context.Context, k *series.Kind, tags []string) ([]candidate, error) {
	var out []candidate
	listed := 0
	cursor := ""
	for {
		ids, next, err := k.Series(ctx, "", seriesPage, cursor)
		if err != nil {
			return nil, err
		}
		if listed += len(ids); listed > s.limit {
			return nil, fmt.Errorf("%w: kind %s has more than %d series (MaxSeries), the most a selection lists while the kind's label index is being built", ErrTooManySeries, k.Name(), s.limit)
		}
		for _, id := range ids {
			if c := newCandidate(id, tags); c.mayMatch(s.ms, tags) {
				out = append(out, c)
			}
		}
		if next == "" {
			break
		}
		cursor = next
	}
	return out, s.count(len(out))
}

// values returns the values of m's label in kind k that m matches: its
// value, the values of a regular expression that lists them, or those of
// the label's values (from its prefix, for a regular expression that has
// one) that it matches.
func values(ctx context.Context, k *series.Kind, m *labels.Matcher) ([]string, error) {
	if m.Type == labels.MatchEqual {
		return []string{m.Value}, nil
	}
	if m.Type == labels.MatchRegexp {
		if set := m.SetMatches(); len(set) > 0 {
			return slices.DeleteFunc(slices.Clone(set), func(v string) bool { return !m.Matches(v) }), nil
		}
	}
	r := series.IndexRange{Limit: seriesPage}
	if m.Type == labels.MatchRegexp {
		r.Prefix = m.Prefix()
	}
	var out []string
	for {
		vs, more, err := k.LabelValues(ctx, m.Name, r)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if m.Matches(v) {
				out = append(out, v)
			}
		}
		if !more {
			return out, nil
		}
		r.After = vs[len(vs)-1]
	}
}

// driver is the postings of one positive matcher: a reader per value.
type driver struct {
	values []*postingsReader
}

// postingsReader reads the postings of one label value, a page at a time.
type postingsReader struct {
	l     series.Label
	after string
	page  int
	done  bool
	ids   []string // of the last page
}

func (p *postingsReader) read(ctx context.Context, k *series.Kind) error {
	ids, more, err := k.LabelSeries(ctx, p.l, series.IndexRange{After: p.after, Limit: p.page})
	if err != nil {
		return err
	}
	p.ids, p.done = ids, !more
	if len(ids) > 0 {
		p.after = ids[len(ids)-1]
	}
	p.page = min(2*p.page, maxPostingsPage)
	return nil
}

func (d *driver) done() bool {
	for _, v := range d.values {
		if !v.done {
			return false
		}
	}
	return true
}

// postings adds to found the candidates of kind k that the postings of
// the positive matchers pos give (see the top of the file).
func (s *selection) postings(ctx context.Context, k *series.Kind, tags []string, pos []*labels.Matcher, found map[string]candidate) error {
	var ds []*driver
	fewest := -1
	var fewestValues []string
	for i, m := range pos {
		vs, err := values(ctx, k, m)
		if err != nil {
			return err
		}
		if len(vs) == 0 {
			return nil // no id has the label
		}
		if s.q.q.plant == firstValueOnly {
			vs = vs[:1]
		}
		if len(vs) <= maxDriverValues {
			ds = append(ds, newDriver(m.Name, vs))
		} else if fewest < 0 || len(vs) < len(fewestValues) {
			fewest, fewestValues = i, vs
		}
	}
	if len(ds) == 0 {
		ds = append(ds, newDriver(pos[fewest].Name, fewestValues))
	}
	for {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(postingsConcurrency)
		for _, d := range ds {
			for _, p := range d.values {
				if !p.done {
					g.Go(func() error { return p.read(gctx, k) })
				}
			}
		}
		if err := g.Wait(); err != nil {
			return err
		}
		n := len(found)
		for _, d := range ds {
			for _, p := range d.values {
				s.add(found, p.ids, tags, nil)
				p.ids = nil
			}
		}
		if err := s.count(len(found) - n); err != nil {
			return err
		}
		for _, d := range ds {
			if d.done() {
				return nil
			}
		}
	}
}

func newDriver(name string, vs []string) *driver {
	d := &driver{}
	for _, v := range vs {
		d.values = append(d.values, &postingsReader{l: series.Label{Name: name, Value: v}, page: firstPostingsPage})
	}
	return d
}

// add adds to found the candidates of ids that may match the selection's
// matchers and that keep (nil: all) keeps.
func (s *selection) add(found map[string]candidate, ids []string, tags []string, keep func(*candidate) bool) {
	for _, id := range ids {
		if _, ok := found[id]; ok {
			continue
		}
		c := newCandidate(id, tags)
		if (keep == nil || keep(&c)) && c.mayMatch(s.ms, tags) {
			found[id] = c
		}
	}
}

// readLabels returns the labels that the readings' tags of kind k (of
// tags) may give.
func readLabels(tags []string) map[string]bool {
	read := map[string]bool{}
	for _, t := range tags {
		if l := ingest.LabelOfTag(t); l != model.MetricNameLabel {
			read[l] = true
		}
	}
	return read
}

// candidatesRead adds to found the candidates of kind k whose readings'
// tags may give the labels that the positive matchers pos need, which no
// posting names: those of its plain series (series.Kind.PlainSeries, ids
// that are not label sets) that take labels from their readings, unless
// a positive matcher needs a label their readings cannot give. Of an id
// that names its series (the label series=<id>), a positive matcher on
// series of few values gives the ids; hashed label sets start with
// series.HashedIDPrefix.
func (s *selection) candidatesRead(ctx context.Context, k *series.Kind, tags []string, pos []*labels.Matcher, found map[string]candidate) error {
	read := readLabels(tags)
	if len(read) == 0 {
		return nil
	}
	plain := len(read) > 1 || !read[series.SeriesLabel]
	hashed := true
	var onSeries *labels.Matcher
	for _, m := range pos {
		hashed = hashed && read[m.Name]
		if m.Name == series.SeriesLabel {
			if onSeries == nil {
				onSeries = m
			}
			continue
		}
		plain = plain && read[m.Name]
	}
	keep := func(c *candidate) bool {
		if len(c.extra) == 0 {
			return false // its id gives every label: found through the postings
		}
		if strings.HasPrefix(c.id, series.HashedIDPrefix) {
			return hashed
		}
		return plain
	}
	r := series.IndexRange{Limit: seriesPage}
	switch {
	case plain && onSeries != nil:
		ids, err := values(ctx, k, onSeries)
		if err != nil {
			return err
		}
		if len(ids) > maxDriverValues {
			break
		}
		n := len(found)
		s.add(found, ids, tags, keep)
		if err := s.count(len(found) - n); err != nil {
			return err
		}
		plain = false
		fallthrough
	case !plain:
		if !hashed {
			return nil
		}
		r.Prefix = series.HashedIDPrefix
	}
	for {
		ids, more, err := k.PlainSeries(ctx, r)
		if err != nil {
			return err
		}
		n := len(found)
		s.add(found, ids, tags, keep)
		if err := s.count(len(found) - n); err != nil {
			return err
		}
		if !more {
			return nil
		}
		r.After = ids[len(ids)-1]
	}
}
