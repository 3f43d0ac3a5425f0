package wal

import (
	"errors"
	"fmt"
	"io"
	"os"
)

var errStop = errors.New("stop")

// Replay calls fn, in LSN order, for every durable record after the last
// Release (or, after Open, the last durable release), up to the last record durable when Replay began. rec is valid
// only during the call; fn must copy what it keeps. An error from fn stops
// the replay and is returned as is.
//
// Replay is meant to run after Open and before new Appends, but it is safe
// to call at any time. Segments are not deleted while a Replay runs.
func (l *Log) Replay(fn func(lsn uint64, rec []byte) error) error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	segs := append([]uint64(nil), l.segs...)
	upto, from := l.durable, l.releaseReq
	l.replaying++
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.replaying--
		drop := l.releasable()
		l.mu.Unlock()
		l.remove(drop)
	}()

	for i, base := range segs {
		if base > upto {
			break
		}
		if i+1 < len(segs) && segs[i+1]-1 <= from {
			continue // all released
		}
		if err := l.replaySegment(base, from, upto, fn); err != nil {
			return err
		}
	}
	return nil
}

func (l *Log) replaySegment(base, from, upto uint64, fn func(uint64, []byte) error) error {
	name := segName(base)
	f, err := l.fs.OpenFile(l.path(base), os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("wal: cannot open segment: %w", err)
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return fmt.Errorf("wal: cannot stat segment %s: %w", name, err)
	}
	var hdr [segHeaderSize]byte
	n, err := f.ReadAt(hdr[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("wal: cannot read segment %s: %w", name, err)
	}
	if _, err := checkSegHeader(hdr[:n]); err != nil {
		return &CorruptError{Segment: name, LSN: base, Reason: err.Error()}
	}
	res, err := scanSegment(f, size, base, func(h frameHdr, p []byte) error {
		if h.lsn > upto {
			return errStop
		}
		if h.release || h.lsn <= from {
			return nil
		}
		return fn(h.lsn, p)
	})
	if errors.Is(err, errStop) {
		return nil
	}
	if err != nil {
		return err
	}
	if res.dmg != nil && res.dmg.lsn <= upto {
		return &CorruptError{Segment: name, Offset: res.dmg.off, LSN: res.dmg.lsn,
			Reason: res.dmg.reason + " (the segment changed after Open)"}
	}
	return nil
}
