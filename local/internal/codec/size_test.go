package codec

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestNumberSize(t *testing.T) {
	for s, want := range map[string]int{
		"0": 1, "-0": 1, "0.000": 1, "0e5": 1,
		"1": 2, "12": 2, "123": 3, "1234": 3, "12345": 4, "100": 2, "1000": 2, "1e100": 2, "1.5E+3": 2,
		"-1": 3, "-12": 3, "-123": 4, "-0.5": 3, "-1e-130": 3,
		"1.1": 3, "10.1": 3, "1.01": 3, "0.1": 2, "0.01": 2, "0.001": 2, "1.5e-100": 3, "00012.3400": 3,
		"12345678901234567890123456789012345678":       20,
		"-12345678901234567890123456789012345678":      21,
		"1.2345678901234567890123456789012345678":      21,
		"-1.2345678901234567890123456789012345678":     21,
		"-1234567890123456789012345678901234567.8":     21,
		"9.9999999999999999999999999999999999999e125":  20,
		"-9.9999999999999999999999999999999999999e125": 21,
	} {
		if got := NumberSize(s); got != want {
			t.Errorf("NumberSize(%q) = %d, want %d", s, got, want)
		}
	}
	for _, s := range []string{"", "-", "abc", "1e99999999999999999999", ".", "1e"} {
		if got := NumberSize(s); got < 1 {
			t.Errorf("NumberSize(%q) = %d", s, got)
		}
	}
}

func TestItemSize(t *testing.T) {
	for name, c := range map[string]struct {
		item map[string]types.AttributeValue
		want int
	}{
		"empty":   {map[string]types.AttributeValue{}, 0},
		"S":       {map[string]types.AttributeValue{"a": &types.AttributeValueMemberS{Value: "héllo€"}}, 1 + 9},
		"B":       {map[string]types.AttributeValue{"ab": &types.AttributeValueMemberB{Value: []byte{0, 1, 2}}}, 2 + 3},
		"BOOL":    {map[string]types.AttributeValue{"flag": &types.AttributeValueMemberBOOL{}}, 4 + 1},
		"NULL":    {map[string]types.AttributeValue{"n": &types.AttributeValueMemberNULL{Value: true}}, 1 + 1},
		"L empty": {map[string]types.AttributeValue{"l": &types.AttributeValueMemberL{}}, 1 + 3},
		"L": {map[string]types.AttributeValue{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberS{Value: "xy"}, &types.AttributeValueMemberN{Value: "7"},
		}}}, 1 + 3 + (1 + 2) + (1 + 2)},
		"M": {map[string]types.AttributeValue{"a": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"name": &types.AttributeValueMemberS{Value: "xy"},
			"deep": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"z": &types.AttributeValueMemberNULL{Value: true}}},
		}}}, 21 + 1},
		"sets": {map[string]types.AttributeValue{
			"ss": &types.AttributeValueMemberSS{Value: []string{"a", "bc", "def"}},
			"ns": &types.AttributeValueMemberNS{Value: []string{"1", "23", "-4.5"}},
			"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		}, 2 + 6 + 2 + 8 + 2 + 3},
	} {
		if got := ItemSize(c.item); got != c.want {
			t.Errorf("%s: ItemSize = %d, want %d", name, got, c.want)
		}
	}
	if got := AttrSize("abc", &types.AttributeValueMemberN{Value: "-1"}); got != 6 {
		t.Errorf("AttrSize = %d, want 6", got)
	}
}
