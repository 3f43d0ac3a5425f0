package analytics

import (
	"context"
	"fmt"
	"strings"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/table"
)

// GoalKind says what a goal matches.
type GoalKind string

// The kinds of goal.
const (
	// GoalPage matches page views whose path fits the goal's pattern.
	GoalPage GoalKind = "pageview"
	// GoalEvent matches custom events of the goal's name.
	GoalEvent GoalKind = "event"
)

// Goal is a conversion goal of a site. A visit converts when one of its
// hits matches the goal.
type Goal struct {
	// ID identifies the goal within its site, as a site id does.
	ID string
	// Name is its display name.
	Name string
	// Kind is GoalPage or GoalEvent.
	Kind GoalKind
	// Match is, for GoalPage, a path pattern: '*' matches any run of
	// characters but '/', "**" any run at all, everything else itself
	// ("/blog/*", "/docs/**"); for GoalEvent, the event name.
	Match string
}

func (g *Goal) check() error {
	if !validID(g.ID) {
		return invalidField("ID", "%w goal id %q: "+idRule, ErrInvalid, g.ID)
	}
	switch g.Kind {
	case GoalPage:
		if !strings.HasPrefix(g.Match, "/") || len(g.Match) > maxPath {
			return invalidField("Match", "%w goal %q: a page pattern starts with '/' and has at most %d bytes", ErrInvalid, g.ID, maxPath)
		}
	case GoalEvent:
		if err := checkName(g.Match); err != nil {
			return invalidField("Match", "goal %q: %w", g.ID, err)
		}
	default:
		return invalidField("Kind", "%w goal %q: kind %q, want pageview or event", ErrInvalid, g.ID, g.Kind)
	}
	return nil
}

// matches reports whether the hit h converts g.
func (g *Goal) matches(h *hit) bool {
	if g.Kind == GoalEvent {
		return h.name == g.Match
	}
	return h.name == PageView && MatchPath(g.Match, h.path)
}

// MatchPath reports whether path fits pattern: '*' matches any run of
// characters other than '/', "**" any run at all, and every other byte
// itself. It never fails; its time is O(len(pattern) * len(path)).
func MatchPath(pattern, path string) bool {
	// dp[j]: pattern[:i] matches path[:j].
	dp := make([]bool, len(path)+1)
	dp[0] = true
	for i := 0; i < len(pattern); i++ {
		next := make([]bool, len(path)+1)
		switch {
		case pattern[i] == '*' && i+1 < len(pattern) && pattern[i+1] == '*':
			i++
			for j := 0; j <= len(path); j++ {
				next[j] = dp[j] || j > 0 && next[j-1]
			}
		case pattern[i] == '*':
			for j := 0; j <= len(path); j++ {
				next[j] = dp[j] || j > 0 && next[j-1] && path[j-1] != '/'
			}
		default:
			for j := 1; j <= len(path); j++ {
				next[j] = dp[j-1] && path[j-1] == pattern[i]
			}
		}
		dp = next
	}
	return dp[len(path)]
}

// PutGoal creates or replaces the goal g of the existing site site.
func (s *Store) PutGoal(ctx context.Context, site string, g Goal) error {
	if err := g.check(); err != nil {
		return err
	}
	if _, err := s.Site(ctx, site); err != nil {
		return err
	}
	it, err := keyItem(entGoal, map[string]string{"siteId": site, "goalId": g.ID})
	if err != nil {
		return err
	}
	it["siteId"] = sAttr(site)
	it["goalId"] = sAttr(g.ID)
	it["name"] = sAttr(g.Name)
	it["kind"] = sAttr(string(g.Kind))
	it["match"] = sAttr(g.Match)
	if _, err := s.t.Put(ctx, it, nil); err != nil {
		return fmt.Errorf("analytics: cannot write goal %q of site %q: %w", g.ID, site, err)
	}
	return nil
}

// Goals returns the goals of site, ordered by id (none for an unknown
// site).
func (s *Store) Goals(ctx context.Context, site string) ([]Goal, error) {
	return siteItems(ctx, s, site, entGoal, "goals", func(it table.Item) Goal {
		return Goal{ID: getS(it, "goalId"), Name: getS(it, "name"), Kind: GoalKind(getS(it, "kind")), Match: getS(it, "match")}
	})
}

// siteItems returns the items of entity e of site, ordered by id, each
// as from makes it; what names them in an error.
func siteItems[T any](ctx context.Context, s *Store, site string, e *design.Entity, what string, from func(table.Item) T) ([]T, error) {
	var out []T
	q := &table.Query{Hash: sitePK(site), Range: table.BeginsWith(skPrefix(e)), Consistent: true}
	for it, err := range s.t.QueryAll(ctx, q) {
		if err != nil {
			return nil, fmt.Errorf("analytics: cannot read the %s of site %q: %w", what, site, err)
		}
		out = append(out, from(it))
	}
	return out, nil
}

// DeleteGoal deletes the goal id of site; timetable.ErrNotFound if absent.
func (s *Store) DeleteGoal(ctx context.Context, site, id string) error {
	return s.deleteItem(ctx, entGoal, site, "goalId", id, "goal")
}

// deleteItem deletes the item of e of site whose id placeholder is id;
// timetable.ErrNotFound if absent. what names it in errors.
func (s *Store) deleteItem(ctx context.Context, e *design.Entity, site, placeholder, id, what string) error {
	k, err := primaryKey(e, map[string]string{"siteId": site, placeholder: id})
	if err != nil {
		return err
	}
	old, err := s.t.Delete(ctx, k, nil)
	if err != nil {
		return fmt.Errorf("analytics: cannot delete %s %q of site %q: %w", what, id, site, err)
	}
	if old == nil {
		return fmt.Errorf("analytics: %s %q of site %q: %w", what, id, site, timetable.ErrNotFound)
	}
	return nil
}
