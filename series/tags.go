package series

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// A chunk's tags are stored beside its compressed fields, as a tag column:
//
//	version byte (1) | uvarint readings | uvarint tags
//	per tag: uvarint distinct values | each value: uvarint length, bytes |
//	         per reading: uvarint index into the tag's values
//
// A tag absent from a reading is the empty string, always value 0.

var errTagColumn = errors.New("series: corrupt tag column")

// encodeTags encodes the tags of n readings; tags(i, j) is tag j of
// reading i.
func encodeTags(n, ntags int, tags func(i, j int) string) []byte {
	b := []byte{1}
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, uint64(ntags))
	idx := make([]uint64, n)
	for j := 0; j < ntags; j++ {
		dict := map[string]uint64{"": 0}
		vals := []string{""}
		for i := 0; i < n; i++ {
			s := tags(i, j)
			v, ok := dict[s]
			if !ok {
				v = uint64(len(vals))
				dict[s] = v
				vals = append(vals, s)
			}
			idx[i] = v
		}
		b = binary.AppendUvarint(b, uint64(len(vals)))
		for _, s := range vals {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		for _, v := range idx {
			b = binary.AppendUvarint(b, v)
		}
	}
	return b
}

// decodeTags decodes a tag column of n readings and ntags tags into
// out[i][j]. It returns an error, never panics, for bad input.
func decodeTags(b []byte, n, ntags int) ([][]string, error) {
	if len(b) < 1 || b[0] != 1 {
		return nil, fmt.Errorf("%w: bad version", errTagColumn)
	}
	b = b[1:]
	uv := func() (uint64, error) {
		v, ok := readUvarint(&b)
		if !ok {
			return 0, fmt.Errorf("%w: truncated", errTagColumn)
		}
		return v, nil
	}
	rn, err := uv()
	if err != nil {
		return nil, err
	}
	rt, err := uv()
	if err != nil {
		return nil, err
	}
	if rn != uint64(n) || rt > 1<<16 {
		return nil, fmt.Errorf("%w: %d readings, want %d", errTagColumn, rn, n)
	}
	out := make([][]string, n)
	flat := make([]string, n*ntags)
	for i := range out {
		out[i] = flat[i*ntags : (i+1)*ntags : (i+1)*ntags]
	}
	for j := 0; j < int(rt); j++ {
		nv, err := uv()
		if err != nil {
			return nil, err
		}
		if nv == 0 || nv > uint64(len(b))+1 {
			return nil, fmt.Errorf("%w: %d values", errTagColumn, nv)
		}
		vals := make([]string, nv)
		for v := range vals {
			l, err := uv()
			if err != nil {
				return nil, err
			}
			if l > uint64(len(b)) {
				return nil, fmt.Errorf("%w: value past the end", errTagColumn)
			}
			vals[v] = string(b[:l])
			b = b[l:]
			if !utf8.ValidString(vals[v]) {
				return nil, fmt.Errorf("%w: value not UTF-8", errTagColumn)
			}
		}
		for i := 0; i < n; i++ {
			v, err := uv()
			if err != nil {
				return nil, err
			}
			if v >= nv {
				return nil, fmt.Errorf("%w: index %d of %d values", errTagColumn, v, nv)
			}
			if j < ntags {
				out[i][j] = vals[v]
			}
		}
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", errTagColumn, len(b))
	}
	return out, nil
}
