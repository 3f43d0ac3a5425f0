package analytics

import (
	"context"
	"fmt"
	"slices"

	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/table"
)

// Funnel is an ordered list of goals of a site: a visit reaches a step
// when, after reaching the steps before, one of its hits matches the
// step's goal.
type Funnel struct {
	// ID identifies the funnel within its site, as a site id does.
	ID string
	// Name is its display name.
	Name string
	// Steps are the ids of existing goals of the site, 2 to 8, in order.
	Steps []string
}

// Bounds on a funnel's steps.
const (
	minFunnelSteps = 2
	maxFunnelSteps = 8
)

// PutFunnel creates or replaces the funnel f of the existing site site.
// Its steps must name goals of the site; it fails with ErrInvalid
// otherwise.
func (s *Store) PutFunnel(ctx context.Context, site string, f Funnel) error {
	if !validID(f.ID) {
		return invalidField("ID", "%w funnel id %q: "+idRule, ErrInvalid, f.ID)
	}
	if len(f.Name) > 200 || !printable(f.Name) {
		return invalidField("Name", "%w funnel %q: a name has at most 200 printable bytes", ErrInvalid, f.ID)
	}
	if len(f.Steps) < minFunnelSteps || len(f.Steps) > maxFunnelSteps {
		return invalidField("Steps", "%w funnel %q: %d steps, want %d to %d", ErrInvalid, f.ID, len(f.Steps), minFunnelSteps, maxFunnelSteps)
	}
	if _, err := s.Site(ctx, site); err != nil {
		return err
	}
	goals, err := s.Goals(ctx, site)
	if err != nil {
		return err
	}
	steps := make([]types.AttributeValue, len(f.Steps))
	for i, g := range f.Steps {
		if !slices.ContainsFunc(goals, func(x Goal) bool { return x.ID == g }) {
			return invalidField("Steps", "%w funnel %q: step %d names goal %q, which site %q lacks", ErrInvalid, f.ID, i+1, g, site)
		}
		steps[i] = sAttr(g)
	}
	it, err := keyItem(entFunnel, map[string]string{"siteId": site, "funnelId": f.ID})
	if err != nil {
		return err
	}
	it["siteId"] = sAttr(site)
	it["funnelId"] = sAttr(f.ID)
	it["name"] = sAttr(f.Name)
	it["steps"] = &types.AttributeValueMemberL{Value: steps}
	if _, err := s.t.Put(ctx, it, nil); err != nil {
		return fmt.Errorf("analytics: cannot write funnel %q of site %q: %w", f.ID, site, err)
	}
	return nil
}

func funnelFrom(it table.Item) Funnel {
	f := Funnel{ID: getS(it, "funnelId"), Name: getS(it, "name")}
	if l, ok := it["steps"].(*types.AttributeValueMemberL); ok {
		for _, v := range l.Value {
			if s, ok := v.(*types.AttributeValueMemberS); ok {
				f.Steps = append(f.Steps, s.Value)
			}
		}
	}
	return f
}

// Funnels returns the funnels of site, ordered by id (none for an unknown
// site).
func (s *Store) Funnels(ctx context.Context, site string) ([]Funnel, error) {
	return siteItems(ctx, s, site, entFunnel, "funnels", funnelFrom)
}

// Funnel returns the funnel id of site, or an error matching
// timetable.ErrNotFound.
func (s *Store) Funnel(ctx context.Context, site, id string) (*Funnel, error) {
	k, err := primaryKey(entFunnel, map[string]string{"siteId": site, "funnelId": id})
	if err != nil {
		return nil, err
	}
	it, err := s.t.Get(ctx, k, &table.GetOptions{Consistent: true})
	if err != nil {
		return nil, fmt.Errorf("analytics: funnel %q of site %q: %w", id, site, err)
	}
	f := funnelFrom(it)
	return &f, nil
}

// DeleteFunnel deletes the funnel id of site; timetable.ErrNotFound if
// absent.
func (s *Store) DeleteFunnel(ctx context.Context, site, id string) error {
	return s.deleteItem(ctx, entFunnel, site, "funnelId", id, "funnel")
}

// FunnelStep is the figures of one step of a funnel over a range.
type FunnelStep struct {
	// Goal is the step's goal id.
	Goal string
	// Visitors are the distinct visitors with a visit that reached the
	// step (and every step before it, in order).
	Visitors int64
	// DropOff is the visitors of the step before minus these (0 for the
	// first step).
	DropOff int64
	// ConversionRate is Visitors over the first step's; StepConversionRate
	// over the step before's (1 for the first step). 0 when the divisor
	// is.
	ConversionRate, StepConversionRate float64
}

// FunnelSteps computes the funnel id of site over the visits that start in
// [from, to), from the raw hits (RawVisits): a visit reaches step i when
// one of its hits matches step i's goal after it reached step i-1. It
// fails with ErrExpired for a range beyond the raw retention and
// timetable.ErrNotFound for an unknown funnel.
func (s *Store) FunnelSteps(ctx context.Context, site, id string, from, to time.Time) ([]FunnelStep, error) {
	f, err := s.Funnel(ctx, site, id)
	if err != nil {
		return nil, err
	}
	visits, err := s.RawVisits(ctx, site, from, to)
	if err != nil {
		return nil, err
	}
	reached := make([]map[string]bool, len(f.Steps))
	for i := range reached {
		reached[i] = map[string]bool{}
	}
	for _, v := range visits {
		if v.Start.Before(from) || !v.Start.Before(to) {
			continue
		}
		step := 0
		for _, h := range v.Hits {
			if step < len(f.Steps) && slices.Contains(h.Goals, f.Steps[step]) {
				reached[step][v.VisitorID] = true
				step++
			}
		}
	}
	out := make([]FunnelStep, len(f.Steps))
	rate := func(a, b int64) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	for i, g := range f.Steps {
		st := FunnelStep{Goal: g, Visitors: int64(len(reached[i])), StepConversionRate: 1}
		st.ConversionRate = rate(st.Visitors, int64(len(reached[0])))
		if i > 0 {
			st.DropOff = out[i-1].Visitors - st.Visitors
			st.StepConversionRate = rate(st.Visitors, out[i-1].Visitors)
		}
		out[i] = st
	}
	return out, nil
}
