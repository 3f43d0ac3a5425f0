package analytics

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/table"
)

// saltTTL is the safety-net lifetime of a salt item from its day's start;
// the salt is deleted when the next day's salt is made.
const saltTTL = 48 * time.Hour

type daySalt struct {
	day  string
	salt []byte
}

// VisitorID returns the visitor id of a hit on site from ip with
// userAgent: the first 16 hex digits of SHA-256 over today's (UTC) salt,
// the site, the IP and the user agent. The salt is 32 random bytes kept in
// the table, made by the first call of a day (in any process sharing the
// table), when the previous days' salts are deleted; so ids change every
// day and cannot be recomputed once the day is over. The IP is not stored.
func (s *Store) VisitorID(ctx context.Context, site, ip, userAgent string) (string, error) {
	salt, err := s.saltOf(ctx, dayOf(s.now()))
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(salt)
	for _, p := range []string{site, ip, userAgent} {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}

// saltOf returns the salt of day, from the cache, the table, or made
// (with a conditional put, so that concurrent processes agree on one).
func (s *Store) saltOf(ctx context.Context, day string) ([]byte, error) {
	s.mu.Lock()
	c := s.salt
	s.mu.Unlock()
	if c.day == day {
		return c.salt, nil
	}
	k, err := primaryKey(entSalt, map[string]string{"date": day})
	if err != nil {
		return nil, err
	}
	it, err := s.t.Get(ctx, k, &table.GetOptions{Consistent: true})
	if errors.Is(err, timetable.ErrNotFound) {
		it, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("analytics: cannot read the salt of %s: %w", day, err)
	}
	salt := getB(it, "salt")
	if salt == nil {
		if salt, err = s.newSalt(ctx, day); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	s.salt = daySalt{day: day, salt: salt}
	s.mu.Unlock()
	return salt, nil
}

func (s *Store) newSalt(ctx context.Context, day string) ([]byte, error) {
	salt := make([]byte, 32)
	if _, err := io.ReadFull(s.o.Rand, salt); err != nil {
		return nil, fmt.Errorf("analytics: cannot make a salt: %w", err)
	}
	start, err := time.Parse(layoutDay, day)
	if err != nil {
		return nil, err
	}
	it, err := keyItem(entSalt, map[string]string{"date": day})
	if err != nil {
		return nil, err
	}
	it["date"] = sAttr(day)
	it["salt"] = &types.AttributeValueMemberB{Value: salt}
	it[attrTTL] = nAttr(start.Add(saltTTL).Unix())
	_, err = s.t.Put(ctx, it, &table.PutOptions{If: table.Attr(attrPK).NotExists()})
	if table.IsConditionFailed(err) { // another process made it first
		got, err := s.t.Get(ctx, table.K(getS(it, attrPK), getS(it, attrSK)), &table.GetOptions{Consistent: true})
		if err != nil || getB(got, "salt") == nil {
			return nil, fmt.Errorf("analytics: cannot read the salt of %s: %v", day, err)
		}
		return getB(got, "salt"), nil
	}
	if err != nil {
		return nil, fmt.Errorf("analytics: cannot store the salt of %s: %w", day, err)
	}
	// Delete the salts of the days before.
	pk := getS(it, attrPK)
	var old []table.Key
	for o, err := range s.t.QueryAll(ctx, &table.Query{Hash: pk, Range: table.Lt(getS(it, attrSK)), Consistent: true}) {
		if err != nil {
			return nil, fmt.Errorf("analytics: cannot list old salts: %w", err)
		}
		old = append(old, table.K(pk, getS(o, attrSK)))
	}
	if err := s.t.BatchDelete(ctx, old); err != nil {
		return nil, fmt.Errorf("analytics: cannot delete old salts: %w", err)
	}
	return salt, nil
}
