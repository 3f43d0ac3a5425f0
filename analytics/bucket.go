package analytics

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cespare/xxhash/v2"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/table"
)

// A site's hits of a UTC day are kept, once the day is over, in a hit
// bucket: the HitBucket item SITE#{siteId}/HITS#{date} names the parts
// that hold them, HitBucketPart items HITPART#{date}#{written}#{part},
// each a block of compressed columns (hitblock.go). The parts of a new
// bucket are written first, under keys no reader knows of, then the
// HitBucket item is switched to them (a conditional put: never to an
// older bucket), then the old parts are deleted; so a reader, which
// reads the parts its HitBucket names, never mixes two buckets, and a
// writer that dies mid-way leaves the old bucket whole.

// maxPartBytes bounds the block of one HitBucketPart, under DynamoDB's
// 400 KB item limit with room for the item's other attributes.
const maxPartBytes = 350 << 10

// bucket is what a HitBucket item says of its day's hits.
type bucket struct {
	written string // the set of parts: see the design's HitBucket
	parts   int
	hits    int
	sum     string // xxhash64 of the parts' blocks, to tell an unchanged day
	// hasVisits: the set has visit parts (HitBucketVisits), visitParts of
	// them, formed with the session timeout visitTimeout (ms). A bucket
	// written before visits were kept has none.
	hasVisits    bool
	visitParts   int
	visitTimeout int64
}

func bucketFrom(it table.Item) bucket {
	_, hasVisits := it["visitParts"]
	return bucket{written: getS(it, "written"), parts: int(getN(it, "parts")), hits: int(getN(it, "hits")), sum: getS(it, "sum"),
		hasVisits: hasVisits, visitParts: int(getN(it, "visitParts")), visitTimeout: getN(it, "visitTimeout")}
}

// bucketKey returns the key of the HitBucket item of site's day.
func bucketKey(site string, day time.Time) (table.Key, error) {
	return primaryKey(entHitBucket, map[string]string{"siteId": site, "date": dayOf(day)})
}

// partKey returns the key of part i of the set written of site's day.
func partKey(site string, day time.Time, written string, i int) (table.Key, error) {
	return primaryKey(entHitBucketPart, map[string]string{"siteId": site, "date": dayOf(day), "written": written, "part": fmt.Sprintf("%03d", i)})
}

// visitPartKey returns the key of visit part i of the set written of
// site's day.
func visitPartKey(site string, day time.Time, written string, i int) (table.Key, error) {
	return primaryKey(entHitVisits, map[string]string{"siteId": site, "date": dayOf(day), "written": written, "part": fmt.Sprintf("%03d", i)})
}

// encodeParts returns hits (sorted by hitCmp) as blocks of at most max
// bytes and maxBlockRows hits each, in order: halved, at the visitor
// boundary nearest the middle when there is one, until each fits.
func encodeParts(hits []hit, max int) ([][]byte, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	if len(hits) <= maxBlockRows {
		b, err := encodeBlock(hits)
		if err != nil || len(b) <= max {
			return [][]byte{b}, err
		}
	}
	if len(hits) == 1 {
		return nil, fmt.Errorf("analytics: one hit makes a block of more than %d bytes", max)
	}
	mid := splitPoint(hits)
	a, err := encodeParts(hits[:mid], max)
	if err != nil {
		return nil, err
	}
	b, err := encodeParts(hits[mid:], max)
	return append(a, b...), err
}

// splitPoint returns the index nearest the middle of hits (2 or more) at
// which a new visitor starts, or the middle if they have one visitor.
func splitPoint(hits []hit) int {
	mid := len(hits) / 2
	for d := 0; d < len(hits); d++ {
		for _, i := range []int{mid - d, mid + d} {
			if i > 0 && i < len(hits) && hits[i].visitor != hits[i-1].visitor {
				return i
			}
		}
	}
	return mid
}

func blocksSum(blocks [][]byte) string {
	h := xxhash.New()
	for _, b := range blocks {
		h.Write(binary.AppendUvarint(nil, uint64(len(b))))
		h.Write(b)
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// writeBucket makes the hit bucket of site's day hold hits (the day's
// whole, sorted by hitCmp, read at readAt) and their visits (formed with
// the Store's session timeout): nothing is written when it holds them
// already; else a new set of parts and visit parts, then the HitBucket
// item, then the other sets' parts go. A day without hits has no bucket. A
// writer whose set is older than the one the HitBucket item names (a
// pass that stalled past its lease) leaves that one in place.
func (s *Store) writeBucket(ctx context.Context, site string, day time.Time, hits []hit, readAt time.Time) error {
	day = Day.start(day)
	max := maxPartBytes
	if s.o.partBytes > 0 {
		max = s.o.partBytes
	}
	blocks, err := encodeParts(hits, max)
	if err != nil {
		return fmt.Errorf("analytics: cannot encode the hits of %s of site %q: %w", dayOf(day), site, err)
	}
	sum := blocksSum(blocks)
	timeout := s.o.SessionTimeout.Milliseconds()
	vblocks, err := encodeVisitParts(visitsOfHits(hits, s.o.SessionTimeout), max)
	if err != nil {
		return fmt.Errorf("analytics: cannot encode the visits of %s of site %q: %w", dayOf(day), site, err)
	}
	hk, err := bucketKey(site, day)
	if err != nil {
		return err
	}
	old, err := s.t.Get(ctx, hk, &table.GetOptions{Consistent: true})
	if err != nil && !errors.Is(err, timetable.ErrNotFound) {
		return fmt.Errorf("analytics: cannot read the hit bucket of %s of site %q: %w", dayOf(day), site, err)
	}
	if old == nil && len(blocks) == 0 {
		return s.deleteParts(ctx, site, day, "")
	}
	if b := bucketFrom(old); old != nil && b.sum == sum && b.parts == len(blocks) && b.hits == len(hits) &&
		b.hasVisits && b.visitTimeout == timeout && b.visitParts == len(vblocks) {
		// The sets older than it: of a writer that died before deleting
		// them.
		return s.deleteParts(ctx, site, day, b.written)
	}
	suffix, err := s.randomID(2)
	if err != nil {
		return err
	}
	written := fmt.Sprintf("%013d%s", readAt.UnixMilli(), suffix)
	ttl := ttlAfter(Day.next(day), s.o.Retention.Buckets)
	common := func(it table.Item) {
		it["siteId"] = sAttr(site)
		it["date"] = sAttr(dayOf(day))
		it["written"] = sAttr(written)
		if ttl != 0 {
			it[attrTTL] = nAttr(ttl)
		}
	}
	ws := make([]table.WriteRequest, 0, len(blocks)+len(vblocks))
	for _, set := range []struct {
		blocks [][]byte
		key    func(string, time.Time, string, int) (table.Key, error)
	}{{blocks, partKey}, {vblocks, visitPartKey}} {
		for i, b := range set.blocks {
			k, err := set.key(site, day, written, i)
			if err != nil {
				return err
			}
			it := table.Item{attrPK: sAttr(k.Hash.(string)), attrSK: sAttr(k.Range.(string)), "part": nAttr(int64(i)),
				"block": &types.AttributeValueMemberB{Value: b}}
			common(it)
			ws = append(ws, table.PutRequest(it))
		}
	}
	if err := s.t.BatchWrite(ctx, ws); err != nil {
		return fmt.Errorf("analytics: cannot write the hit bucket of %s of site %q: %w", dayOf(day), site, err)
	}
	newer := table.Or(table.Attr(attrPK).NotExists(), table.Attr("written").Lt(written))
	if len(blocks) == 0 {
		_, err = s.t.Delete(ctx, hk, &table.DeleteOptions{If: newer})
	} else {
		it, kerr := keyItem(entHitBucket, map[string]string{"siteId": site, "date": dayOf(day)})
		if kerr != nil {
			return kerr
		}
		common(it)
		it["parts"] = nAttr(int64(len(blocks)))
		it["hits"] = nAttr(int64(len(hits)))
		it["sum"] = sAttr(sum)
		it["visitParts"] = nAttr(int64(len(vblocks)))
		it["visitTimeout"] = nAttr(timeout)
		_, err = s.t.Put(ctx, it, &table.PutOptions{If: newer})
	}
	switch {
	case table.IsConditionFailed(err):
		s.o.Logger.Warn("analytics: a newer hit bucket is in place; this pass's is dropped", "site", site, "day", dayOf(day))
		return s.deleteSet(ctx, site, day, written, len(blocks), len(vblocks))
	case err != nil:
		return fmt.Errorf("analytics: cannot switch the hit bucket of %s of site %q: %w", dayOf(day), site, err)
	}
	return s.deleteParts(ctx, site, day, written)
}

// deleteParts deletes the parts and visit parts of site's day of every
// set older than keep ("" for all): the sets that buckets since replaced
// and those that writers which died left behind. Newer sets, of a writer
// at work, stay.
func (s *Store) deleteParts(ctx context.Context, site string, day time.Time, keep string) error {
	pk := sitePK(site)
	var ks []table.Key
	for _, ent := range []*design.Entity{entHitBucketPart, entHitVisits} {
		prefix := partial(ent.Keys[attrSK], map[string]string{"date": dayOf(day)}, "written")
		q := &table.Query{Hash: pk, Range: table.BeginsWith(prefix), Consistent: true, Projection: []string{attrPK, attrSK, "written"}}
		for it, err := range s.t.QueryAll(ctx, q) {
			if err != nil {
				return fmt.Errorf("analytics: cannot list the hit bucket parts of %s of site %q: %w", dayOf(day), site, err)
			}
			if w := getS(it, "written"); keep == "" || w < keep {
				ks = append(ks, table.K(pk, getS(it, attrSK)))
			}
		}
	}
	if err := s.t.BatchDelete(ctx, ks); err != nil {
		return fmt.Errorf("analytics: cannot delete old hit bucket parts of %s of site %q: %w", dayOf(day), site, err)
	}
	return nil
}

// deleteSet deletes the n parts and nv visit parts of the set written
// of site's day.
func (s *Store) deleteSet(ctx context.Context, site string, day time.Time, written string, n, nv int) error {
	ks := make([]table.Key, 0, n+nv)
	for i := range n + nv {
		key := partKey
		j := i
		if i >= n {
			key, j = visitPartKey, i-n
		}
		k, err := key(site, day, written, j)
		if err != nil {
			return err
		}
		ks = append(ks, k)
	}
	if err := s.t.BatchDelete(ctx, ks); err != nil {
		return fmt.Errorf("analytics: cannot delete a dropped hit bucket of %s of site %q: %w", dayOf(day), site, err)
	}
	return nil
}

// readBuckets returns the HitBucket items of site's days first to last
// (both included), unexpired, by day.
func (s *Store) readBuckets(ctx context.Context, site string, first, last time.Time) (map[time.Time]bucket, error) {
	lo, err := bucketKey(site, first)
	if err != nil {
		return nil, err
	}
	hi, err := bucketKey(site, last)
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := map[time.Time]bucket{}
	q := &table.Query{Hash: lo.Hash, Range: table.Between(lo.Range, hi.Range), Consistent: true}
	for it, err := range s.t.QueryAll(ctx, q) {
		if err != nil {
			return nil, fmt.Errorf("analytics: cannot read the hit buckets of site %q: %w", site, err)
		}
		if expired(it, now) {
			continue
		}
		day, err := time.Parse(layoutDay, getS(it, "date"))
		if err != nil {
			return nil, fmt.Errorf("analytics: hit bucket %s: %w", getS(it, attrSK), err)
		}
		out[day] = bucketFrom(it)
	}
	return out, nil
}

// errPartsGone reports a bucket whose parts are not all there: replaced
// (and deleted) since its HitBucket item was read, or expired.
var errPartsGone = errors.New("analytics: hit bucket parts missing")

// readParts returns the blocks of the parts of b, site's bucket of day
// (its visit parts with visits), in order; errPartsGone if one is
// missing.
func (s *Store) readParts(ctx context.Context, site string, day time.Time, b bucket, visits, consistent bool) ([][]byte, error) {
	n, key := b.parts, partKey
	if visits {
		n, key = b.visitParts, visitPartKey
	}
	ks := make([]table.Key, n)
	for i := range ks {
		k, err := key(site, day, b.written, i)
		if err != nil {
			return nil, err
		}
		ks[i] = k
	}
	its, err := s.t.BatchGet(ctx, ks, &table.BatchGetOptions{Consistent: consistent, Projection: []string{"block", attrTTL}})
	if err != nil {
		return nil, fmt.Errorf("analytics: cannot read the hit bucket of %s of site %q: %w", dayOf(day), site, err)
	}
	now := s.now()
	out := make([][]byte, len(its))
	for i, it := range its {
		if it == nil || expired(it, now) {
			return nil, fmt.Errorf("%w: part %d of %s of site %q", errPartsGone, i, dayOf(day), site)
		}
		out[i] = getB(it, "block")
	}
	return out, nil
}

// bucketBlocks returns the blocks of site's bucket of day, b as read by
// the plan, with the columns cols decoded (the caller releases them): if
// its parts are gone (a newer
// bucket replaced it meanwhile), the HitBucket item is read again and its
// parts read strongly consistent. It returns nil blocks and no error if
// the day has no bucket any more.
func (s *Store) bucketBlocks(ctx context.Context, site string, day time.Time, b bucket, cols colSet) ([]*block, error) {
	raw, err := s.readParts(ctx, site, day, b, false, false)
	if errors.Is(err, errPartsGone) {
		k, kerr := bucketKey(site, day)
		if kerr != nil {
			return nil, kerr
		}
		it, gerr := s.t.Get(ctx, k, &table.GetOptions{Consistent: true})
		if errors.Is(gerr, timetable.ErrNotFound) || gerr == nil && expired(it, s.now()) {
			return nil, nil
		}
		if gerr != nil {
			return nil, fmt.Errorf("analytics: cannot read the hit bucket of %s of site %q: %w", dayOf(day), site, gerr)
		}
		raw, err = s.readParts(ctx, site, day, bucketFrom(it), false, true)
	}
	if err != nil {
		return nil, err
	}
	out := make([]*block, len(raw))
	for i, r := range raw {
		bl, err := decodeBlock(r, cols)
		if err != nil {
			releaseAll(out)
			return nil, fmt.Errorf("analytics: part %d of the hit bucket of %s of site %q: %w", i, dayOf(day), site, err)
		}
		out[i] = bl
	}
	return out, nil
}

// bucketVisitBlocks returns the visit blocks of site's bucket of day, b
// as read by the plan (which has visits), with the columns cols decoded;
// nil and no error when its parts are gone (a newer bucket replaced it
// meanwhile, or it expired): the caller forms the visits from the hits
// then, which reads the bucket again.
func (s *Store) bucketVisitBlocks(ctx context.Context, site string, day time.Time, b bucket, cols colSet) ([]*visitBlock, error) {
	raw, err := s.readParts(ctx, site, day, b, true, false)
	if errors.Is(err, errPartsGone) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]*visitBlock, len(raw))
	for i, r := range raw {
		if out[i], err = decodeVisitBlock(r, cols); err != nil {
			return nil, fmt.Errorf("analytics: visit part %d of the hit bucket of %s of site %q: %w", i, dayOf(day), site, err)
		}
	}
	return out, nil
}

// releaseAll releases the blocks of bs (nil ones skipped).
func releaseAll(bs []*block) {
	for _, b := range bs {
		if b != nil {
			b.release()
		}
	}
}
