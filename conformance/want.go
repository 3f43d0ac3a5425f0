package conformance

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Assertions: errors, items, lists and sets of items, and pages.

// Must fails the case when err is not nil.
func (h *H) Must(err error) {
	h.t.Helper()
	if err != nil {
		h.t.Fatal(err)
	}
}

// ErrorCode returns the DynamoDB error code of err ("" for nil), such as
// "ValidationException" or "ConditionalCheckFailedException".
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	if ae := apiError(err); ae != nil {
		return ae.ErrorCode()
	}
	return "non-API error: " + err.Error()
}

// ErrorMessage returns DynamoDB's message of err ("" for nil).
func ErrorMessage(err error) string {
	if ae := apiError(err); ae != nil {
		return ae.ErrorMessage()
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

func apiError(err error) smithy.APIError {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae
	}
	return nil
}

// WantError fails the case unless err has DynamoDB error code code and, when
// msg is not empty, message msg. A msg that starts with "~" need only be a
// substring of the message.
func (h *H) WantError(err error, code, msg string) {
	h.t.Helper()
	if err == nil {
		h.t.Fatalf("got no error, want %s: %s", code, msg)
	}
	if got := ErrorCode(err); got != code {
		h.t.Fatalf("error code = %q, want %q (message %q)", got, code, ErrorMessage(err))
	}
	if msg == "" {
		return
	}
	got := ErrorMessage(err)
	if sub, ok := strings.CutPrefix(msg, "~"); ok {
		if !strings.Contains(got, sub) {
			h.t.Fatalf("error message = %q, want it to contain %q", got, sub)
		}
		return
	}
	if got != msg {
		h.t.Fatalf("error message = %q, want %q", got, msg)
	}
}

// WantItem fails the case unless got equals want (sets compared as sets; a
// nil want means "no item").
func (h *H) WantItem(got, want Item) {
	h.t.Helper()
	wantItem(h.t, got, want)
}

func wantItem(t testing.TB, got, want Item) {
	t.Helper()
	if (got == nil) != (want == nil) || FormatItem(got) != FormatItem(want) {
		t.Fatalf("item mismatch\n got: %s\nwant: %s", FormatItem(got), FormatItem(want))
	}
}

// WantItemNumeric is WantItem with numbers compared by value rather than by
// their text, for results of UpdateItem arithmetic: DynamoDB Local keeps the
// scale of decimal results ("3.00" for 1.50 + 1.50) where DynamoDB returns
// the canonical form ("3").
func (h *H) WantItemNumeric(got, want Item) {
	h.t.Helper()
	wantItem(h.t, canonItem(got), canonItem(want))
}

// WantItems fails the case unless got equals want, in order.
func (h *H) WantItems(got, want []Item) {
	h.t.Helper()
	g, w := formatItems(got), formatItems(want)
	if !slices.Equal(g, w) {
		h.t.Fatalf("items mismatch\n got (%d): %s\nwant (%d): %s", len(g), strings.Join(g, "\n     "), len(w), strings.Join(w, "\n     "))
	}
}

// WantItemSet fails the case unless got and want hold the same items, in any
// order (for scans and for index entries that share a key).
func (h *H) WantItemSet(got, want []Item) {
	h.t.Helper()
	g, w := formatItems(got), formatItems(want)
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		h.t.Fatalf("item sets differ\n got (%d): %s\nwant (%d): %s", len(g), strings.Join(g, "\n     "), len(w), strings.Join(w, "\n     "))
	}
}

// formatItems returns FormatItem of each item, in order.
func formatItems(items []Item) []string {
	s := make([]string, len(items))
	for i, it := range items {
		s[i] = FormatItem(it)
	}
	return s
}

// WantValues fails the case unless the attribute name of items, in order, has
// the values want.
func (h *H) WantValues(items []Item, name string, want ...types.AttributeValue) {
	h.t.Helper()
	g := make([]string, len(items))
	for i, it := range items {
		g[i] = Format(it[name])
	}
	w := make([]string, len(want))
	for i, v := range want {
		w[i] = Format(v)
	}
	if strings.Join(g, " ") != strings.Join(w, " ") {
		h.t.Fatalf("%s values\n got (%d): %s\nwant (%d): %s", name, len(g), strings.Join(g, " "), len(w), strings.Join(w, " "))
	}
}

// WantCounts fails the case unless Count and ScannedCount are as expected.
func (h *H) WantCounts(count, scanned int32, wantCount, wantScanned int32) {
	h.t.Helper()
	if count != wantCount || scanned != wantScanned {
		h.t.Fatalf("Count/ScannedCount = %d/%d, want %d/%d", count, scanned, wantCount, wantScanned)
	}
}

// WantNoLastKey fails the case when a page says there is more to read.
func (h *H) WantNoLastKey(lek Item) {
	h.t.Helper()
	if len(lek) != 0 {
		h.t.Fatalf("LastEvaluatedKey = %s, want none", FormatItem(lek))
	}
}

// WantLastKey fails the case unless the LastEvaluatedKey is want.
func (h *H) WantLastKey(lek, want Item) {
	h.t.Helper()
	if len(lek) == 0 {
		h.t.Fatalf("no LastEvaluatedKey, want %s", FormatItem(want))
	}
	wantItem(h.t, lek, want)
}
