package table

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestLease_OneHolderAtATime(t *testing.T) {
	eachTable(t, pkSk, func(t *testing.T, ctx context.Context, tbl *Table) {
		k := K("~LEASE", "rollup")
		t0 := time.UnixMilli(1_700_000_000_000)
		got, err := tbl.TakeLease(ctx, k, "a", t0, time.Minute, &LeaseOptions{TTLAttr: "ttl"})
		if err != nil || !got {
			t.Fatalf("first take: %v, %v", got, err)
		}
		// Another owner is refused while the claim lasts, the holder renews.
		if got, err := tbl.TakeLease(ctx, k, "b", t0.Add(59*time.Second), time.Minute, nil); err != nil || got {
			t.Fatalf("b during a's claim: %v, %v", got, err)
		}
		if got, err := tbl.TakeLease(ctx, k, "a", t0.Add(59*time.Second), time.Minute, nil); err != nil || !got {
			t.Fatalf("a renews: %v, %v", got, err)
		}
		// a died: once the renewed claim ends, b takes it over.
		if got, err := tbl.TakeLease(ctx, k, "b", t0.Add(119*time.Second), time.Minute, nil); err != nil || got {
			t.Fatalf("b before the renewed claim ends: %v, %v", got, err)
		}
		if got, err := tbl.TakeLease(ctx, k, "b", t0.Add(120*time.Second), time.Minute, nil); err != nil || !got {
			t.Fatalf("b after the claim ended: %v, %v", got, err)
		}
		owner, until, err := tbl.LeaseHolder(ctx, k)
		if err != nil || owner != "b" || !until.Equal(t0.Add(180*time.Second)) {
			t.Fatalf("holder: %q until %v, %v", owner, until, err)
		}
		// a's release of a lease it lost does nothing; b's frees it.
		if err := tbl.ReleaseLease(ctx, k, "a"); err != nil {
			t.Fatal(err)
		}
		if got, _ := tbl.TakeLease(ctx, k, "c", t0.Add(121*time.Second), time.Minute, nil); got {
			t.Fatal("a's release freed b's lease")
		}
		if err := tbl.ReleaseLease(ctx, k, "b"); err != nil {
			t.Fatal(err)
		}
		if got, err := tbl.TakeLease(ctx, k, "c", t0.Add(121*time.Second), time.Minute, nil); err != nil || !got {
			t.Fatalf("c after b released: %v, %v", got, err)
		}
	})
}

// Of many owners asking at one instant, exactly one holds the lease.
func TestLease_RaceHasOneWinner(t *testing.T) {
	eachTable(t, pkSk, func(t *testing.T, ctx context.Context, tbl *Table) {
		now := time.Now()
		for round := range 5 {
			k := K("~LEASE", string(rune('a'+round)))
			var mu sync.Mutex
			var winners []string
			var wg sync.WaitGroup
			for i := range 8 {
				owner := NewOwner("p")
				wg.Add(1)
				go func() {
					defer wg.Done()
					got, err := tbl.TakeLease(ctx, k, owner, now, time.Minute, nil)
					if err != nil {
						t.Errorf("owner %d: %v", i, err)
					}
					if got {
						mu.Lock()
						winners = append(winners, owner)
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			if len(winners) != 1 {
				t.Fatalf("round %d: %d winners %v", round, len(winners), winners)
			}
			if owner, _, _ := tbl.LeaseHolder(ctx, k); owner != winners[0] {
				t.Fatalf("round %d: holder %q, winner %q", round, owner, winners[0])
			}
		}
	})
}

func TestLease_Errors(t *testing.T) {
	tbl := newTable(t, engine(t), pkSk, nil)
	if _, err := tbl.TakeLease(ctxT(t), K("x", "y"), "", time.Now(), time.Minute, nil); err == nil {
		t.Fatal("no owner: no error")
	}
	if _, err := tbl.TakeLease(ctxT(t), K("x", "y"), "a", time.Now(), 0, nil); err == nil {
		t.Fatal("no duration: no error")
	}
}
