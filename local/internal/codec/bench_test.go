package codec

import (
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/conformance"
)

// benchItem is shaped like a time-series point: keys, a few scalars, a
// small map.
func benchItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":    &types.AttributeValueMemberS{Value: "series#cpu#host-0042"},
		"sk":    &types.AttributeValueMemberN{Value: "1767225600123"},
		"value": &types.AttributeValueMemberN{Value: "0.734"},
		"unit":  &types.AttributeValueMemberS{Value: "percent"},
		"ok":    &types.AttributeValueMemberBOOL{Value: true},
		"ttl":   &types.AttributeValueMemberN{Value: "1769817600"},
		"labels": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"region": &types.AttributeValueMemberS{Value: "eu-west-1"},
			"az":     &types.AttributeValueMemberS{Value: "eu-west-1a"},
		}},
		"tags": &types.AttributeValueMemberSS{Value: []string{"prod", "web"}},
	}
}

func BenchmarkAppendItem(b *testing.B) {
	item := benchItem()
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = AppendItem(buf[:0], item); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkDecodeItem(b *testing.B) {
	enc := mustItem(b, benchItem())
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeItem(enc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeItem_Page decodes a page of 20 items as a Query does,
// each allocating its values (DecodeItem) or with one Decoder per page.
func BenchmarkDecodeItem_Page(b *testing.B) {
	enc := mustItem(b, benchItem())
	const page = 20
	b.Run("DecodeItem", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for range page {
				if _, err := DecodeItem(enc); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("Decoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var dec Decoder
			for range page {
				if _, err := dec.DecodeItem(enc); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func BenchmarkItemSize(b *testing.B) {
	item := benchItem()
	b.ReportAllocs()
	for b.Loop() {
		ItemSize(item)
	}
}

func BenchmarkAppendKey(b *testing.B) {
	for _, av := range []types.AttributeValue{
		&types.AttributeValueMemberS{Value: "series#cpu#host-0042"},
		&types.AttributeValueMemberN{Value: "1767225600123"},
		&types.AttributeValueMemberB{Value: []byte("0123456789abcdef")},
	} {
		name := conformance.Format(av)[:1]
		b.Run(name, func(b *testing.B) {
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if buf, err = AppendKey(buf[:0], av); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeKey(b *testing.B) {
	for i, av := range []types.AttributeValue{
		&types.AttributeValueMemberS{Value: "series#cpu#host-0042"},
		&types.AttributeValueMemberN{Value: "1767225600123"},
	} {
		enc := mustKey(b, av)
		b.Run(strconv.Itoa(i), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := DecodeKey(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
