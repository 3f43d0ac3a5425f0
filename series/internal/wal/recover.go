package wal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// recover reads the segments in l.dir, truncates a torn final write,
// finds the durable release and opens (or creates) the active segment.
func (l *Log) recover() error {
	names, err := l.fs.ReadDir(l.dir)
	if err != nil {
		return fmt.Errorf("wal: cannot list directory: %w", err)
	}
	var bases []uint64
	for _, n := range names {
		if base, ok := parseSegName(n); ok && base > 0 {
			bases = append(bases, base)
		}
	}
	slices.Sort(bases)

	var (
		next    uint64 = 1 // next LSN after the segments scanned so far
		release uint64
		end     int64 // size of the last kept segment after recovery
	)
	if len(bases) > 0 {
		next = bases[0]
	}
	for i := 0; i < len(bases); i++ {
		base, last := bases[i], i == len(bases)-1
		if i > 0 && base != next {
			cerr := &CorruptError{Segment: segName(base), Offset: 0, LSN: next,
				Reason: fmt.Sprintf("segment starts at lsn %d but the previous one ends at lsn %d", base, next-1)}
			if err := l.repair(cerr, bases[i-1], end, bases[i:]); err != nil {
				return err
			}
			bases = bases[:i]
			break
		}
		res, dropped, err := l.recoverSegment(base, last, bases[i+1:])
		if err != nil {
			return err
		}
		if dropped {
			// The last segment had a torn header: it never held a record.
			bases = bases[:i]
			break
		}
		release = max(release, res.maxRelease)
		l.lastData = max(l.lastData, res.lastData)
		next, end = res.last+1, res.end
		if res.dmg != nil {
			bases = bases[:i+1] // repaired: later segments were removed
			break
		}
	}

	if len(bases) > 0 {
		release = max(release, bases[0]-1)
	} else if next > 1 {
		release = max(release, next-1)
	}
	release = min(release, next-1)
	l.next, l.durable = next, next-1
	l.released, l.releaseReq, l.marked = release, release, release

	if len(bases) == 0 {
		f, err := l.createSegment(next)
		if err != nil {
			return err
		}
		l.f, l.fsize, l.segs = f, segHeaderSize, []uint64{next}
		return nil
	}
	l.segs = bases
	f, err := l.fs.OpenFile(l.path(bases[len(bases)-1]), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("wal: cannot open segment: %w", err)
	}
	l.f, l.fsize = f, end
	// Segments released before a crash but not yet deleted.
	l.remove(l.releasable())
	return nil
}

// recoverSegment scans one segment. For the last segment, a torn final
// write is truncated and a torn header (a crash while the segment was being
// created) removes the file (dropped true). Other damage is an error, or
// with RepairCorruption is truncated along with the segments in later.
func (l *Log) recoverSegment(base uint64, last bool, later []uint64) (res scanResult, dropped bool, err error) {
	name := segName(base)
	f, err := l.fs.OpenFile(l.path(base), os.O_RDONLY, 0)
	if err != nil {
		return res, false, fmt.Errorf("wal: cannot open segment: %w", err)
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return res, false, fmt.Errorf("wal: cannot stat segment %s: %w", name, err)
	}
	var hdr [segHeaderSize]byte
	n, err := f.ReadAt(hdr[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return res, false, fmt.Errorf("wal: cannot read segment %s: %w", name, err)
	}
	hbase, herr := checkSegHeader(hdr[:n])
	if herr == nil && hbase != base {
		herr = fmt.Errorf("header says the segment starts at lsn %d", hbase)
	}
	if herr != nil {
		if last && size <= segHeaderSize {
			l.log.Warn("wal: removing segment with a torn header", "segment", name, "size", size)
			if err := l.fs.Remove(l.path(base)); err != nil {
				return res, false, fmt.Errorf("wal: cannot remove segment %s: %w", name, err)
			}
			return res, true, nil
		}
		cerr := &CorruptError{Segment: name, Offset: 0, LSN: base, Reason: herr.Error()}
		if !l.opts.RepairCorruption {
			return res, false, cerr
		}
		// Nothing of this segment can be trusted: remove it and the rest.
		l.log.Error("wal: repairing corrupt log: dropping the segment and all later ones", "err", cerr)
		if err := l.removeAll(append([]uint64{base}, later...)); err != nil {
			return res, false, err
		}
		return res, true, nil
	}

	res, err = scanSegment(f, size, base, nil)
	if err != nil {
		return res, false, fmt.Errorf("wal: cannot read segment %s: %w", name, err)
	}
	if res.dmg == nil {
		return res, false, nil
	}
	cerr := &CorruptError{Segment: name, Offset: res.dmg.off, LSN: res.dmg.lsn, Reason: res.dmg.reason}
	if last {
		off, lsn, found, err := laterWrite(f, size, res.dmg.off, base, res.dmg.lsn)
		if err != nil {
			return res, false, fmt.Errorf("wal: cannot read segment %s: %w", name, err)
		}
		if !found {
			l.log.Warn("wal: truncating torn final write", "segment", name, "offset", res.end,
				"bytes", size-res.end, "reason", res.dmg.reason)
			return res, false, l.truncate(base, res.end)
		}
		cerr.Reason += fmt.Sprintf("; acknowledged records follow (lsn %d at offset %d)", lsn, off)
	}
	if !l.opts.RepairCorruption {
		return res, false, cerr
	}
	return res, false, l.repair(cerr, base, res.end, later)
}

// repair truncates segment base at end and removes the segments in later,
// after logging the corruption it repairs.
func (l *Log) repair(cerr *CorruptError, base uint64, end int64, later []uint64) error {
	if !l.opts.RepairCorruption {
		return cerr
	}
	l.log.Error("wal: repairing corrupt log: dropping everything from the damage on",
		"err", cerr, "segments_removed", len(later))
	if err := l.removeAll(later); err != nil {
		return err
	}
	return l.truncate(base, end)
}

func (l *Log) removeAll(bases []uint64) error {
	for _, b := range bases {
		if err := l.fs.Remove(l.path(b)); err != nil {
			return fmt.Errorf("wal: cannot remove segment %s: %w", segName(b), err)
		}
	}
	if len(bases) > 0 && !l.opts.NoSync {
		if err := l.fs.SyncDir(l.dir); err != nil {
			return fmt.Errorf("wal: cannot sync directory: %w", err)
		}
	}
	return nil
}

func (l *Log) truncate(base uint64, end int64) error {
	f, err := l.fs.OpenFile(l.path(base), os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("wal: cannot open segment: %w", err)
	}
	err = f.Truncate(end)
	if err == nil && !l.opts.NoSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("wal: cannot truncate segment %s: %w", segName(base), err)
	}
	return nil
}
