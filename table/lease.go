package table

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A lease is a claim on a unit of work (a rollup pass, an aggregation of
// a day) that processes sharing a table take in turn, so that the work is
// done once across them and taken over when its holder dies. It is one
// item of the table, at a key the caller chooses, with two attributes:
//
//	lease_owner  S  the holder, an id unique to the process (NewOwner)
//	lease_until  N  when the claim ends, Unix milliseconds of the holder's clock
//
// TakeLease puts the item with a condition (no holder, the claim ended,
// or the holder is the caller), so that of processes asking at once one
// wins; a holder renews by taking it again before it ends, and gives it
// up with ReleaseLease. A holder that dies keeps the lease until its
// claim ends: the unit of work waits at most the lease's duration. The
// processes' clocks must agree to well within that duration; a holder
// whose work may outlast it renews (a lapsed claim may be taken by
// another process while the work goes on, which the work must survive:
// leases make work happen once in the usual case, never correct it).
const (
	attrLeaseOwner = "lease_owner"
	attrLeaseUntil = "lease_until"
)

// LeaseOptions are the options of TakeLease. The zero value is valid.
type LeaseOptions struct {
	// TTLAttr, when set, is the table's TTL attribute: the lease item gets
	// it (epoch seconds, an hour after the claim ends) so that the items
	// of units of work that are never asked for again expire.
	TTLAttr string
	// Attrs are put on the lease item as they are (a unit's description).
	Attrs Item
}

// leaseCond: the item has no holder, its claim ended, or the caller holds it.
const leaseCond = "attribute_not_exists(#o) OR #u < :now OR #o = :me"

var leaseNames = map[string]string{"#o": attrLeaseOwner, "#u": attrLeaseUntil}

// TakeLease claims the lease at k for owner until now+d, or renews it if
// owner holds it. It reports whether owner holds it now; false, with a
// nil error, means another owner holds a claim that has not ended.
func (t *Table) TakeLease(ctx context.Context, k Key, owner string, now time.Time, d time.Duration, o *LeaseOptions) (bool, error) {
	if owner == "" || d <= 0 {
		return false, fmt.Errorf("table: a lease needs an owner and a positive duration")
	}
	item, err := t.keyItem(k)
	if err != nil {
		return false, err
	}
	until := now.Add(d)
	if o != nil {
		for n, v := range o.Attrs {
			if _, isKey := item[n]; !isKey {
				item[n] = v
			}
		}
		if o.TTLAttr != "" {
			item[o.TTLAttr] = numAV(until.Add(time.Hour).Unix())
		}
	}
	me := &types.AttributeValueMemberS{Value: owner}
	item[attrLeaseOwner] = me
	item[attrLeaseUntil] = numAV(until.UnixMilli())
	cond := Expr(leaseCond, leaseNames, map[string]types.AttributeValue{":now": numAV(now.UnixMilli()), ":me": me})
	if _, err := t.Put(ctx, item, &PutOptions{If: cond}); err != nil {
		if IsConditionFailed(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// ReleaseLease gives up owner's lease at k, so that another process may
// take it at once. Releasing a lease owner does not hold does nothing.
func (t *Table) ReleaseLease(ctx context.Context, k Key, owner string) error {
	cond := Expr("#o = :me", map[string]string{"#o": attrLeaseOwner}, map[string]types.AttributeValue{":me": &types.AttributeValueMemberS{Value: owner}})
	_, err := t.Delete(ctx, k, &DeleteOptions{If: cond})
	if IsConditionFailed(err) {
		return nil
	}
	return err
}

// LeaseHolder returns the holder of the lease at k and when its claim
// ends; "" if nobody ever took it or it was released.
func (t *Table) LeaseHolder(ctx context.Context, k Key) (owner string, until time.Time, err error) {
	it, err := t.Get(ctx, k, &GetOptions{Consistent: true})
	if errors.Is(err, ErrNotFound) {
		return "", time.Time{}, nil
	}
	if err != nil {
		return "", time.Time{}, err
	}
	if s, ok := it[attrLeaseOwner].(*types.AttributeValueMemberS); ok {
		owner = s.Value
	}
	if n, ok := it[attrLeaseUntil].(*types.AttributeValueMemberN); ok {
		ms, _ := strconv.ParseInt(n.Value, 10, 64)
		until = time.UnixMilli(ms)
	}
	return owner, until, nil
}

// NewOwner returns a random lease owner id, for a process to use as its
// own: prefix, a dash and 16 hex digits.
func NewOwner(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

func numAV(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}
