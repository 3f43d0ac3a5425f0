package collect

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestDecodeBatch(t *testing.T) {
	array := `[{"time":"2026-01-02T03:04:05Z","name":"pageview","url":"https://shop.example/a","ip":"127.0.0.1","user_agent":"x"},
	 {"name":"Signup","url":"/b","visitor_id":"v1","props":{"plan":"pro"}}]`
	lines := "{\"name\":\"pageview\",\"url\":\"/a\",\"visitor_id\":\"v\"}\n\n{\"name\":\"Signup\",\"url\":\"/b\",\"visitor_id\":\"v\"}\n"
	for _, in := range []string{array, lines, "  " + array + "\n"} {
		evs, err := DecodeBatch(strings.NewReader(in))
		if err != nil {
			t.Fatalf("DecodeBatch(%.40q): %v", in, err)
		}
		if len(evs) != 2 || evs[0].Name != "pageview" || evs[1].Name != "Signup" {
			t.Fatalf("DecodeBatch(%.40q) = %+v", in, evs)
		}
	}
	evs, _ := DecodeBatch(strings.NewReader(array))
	if !evs[0].Time.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) || string(evs[1].Props) != `{"plan":"pro"}` {
		t.Errorf("decoded %+v", evs)
	}
}

func TestDecodeBatch_Errors(t *testing.T) {
	for _, c := range []struct {
		in    string
		want  error
		index int // -1: no *BatchError
	}{
		{"", ErrInvalid, -1},
		{"[]", ErrInvalid, -1},
		{`[{"name":"a","url":"/"},{"name":"b","url":"/","colour":"red"}]`, ErrInvalid, 1},
		{`[{"name":"a","url":"/"},{"name":"b","url":"/","time":"yesterday"}]`, ErrInvalid, 1},
		{"{\"name\":\"a\",\"url\":\"/\"}\n{\"name\":\"a\",\"url\":\"/\"}\n{\"name\":", ErrInvalid, 2},
		{`[{"name":"a","url":"/"}] {}`, ErrInvalid, -1},
		{`[{"name":"a","url":"/"}`, ErrInvalid, -1},
		{"[" + strings.Repeat(`{"name":"a","url":"/"},`, MaxBatch) + `{"name":"a","url":"/"}]`, ErrTooLarge, -1},
	} {
		_, err := DecodeBatch(strings.NewReader(c.in))
		var be *BatchError
		if !errors.Is(err, c.want) {
			t.Errorf("DecodeBatch(%.50q): %v, want %v", c.in, err, c.want)
			continue
		}
		if got := errors.As(err, &be); got != (c.index >= 0) || (got && be.Index != c.index) {
			t.Errorf("DecodeBatch(%.50q): %v, want index %d", c.in, err, c.index)
		}
	}
	// A reading error is not the client's fault: it is passed on.
	boom := errors.New("boom")
	_, err := DecodeBatch(io.MultiReader(strings.NewReader(`[{"name":"a",`), errReaderOf(boom)))
	if !errors.Is(err, boom) || errors.Is(err, ErrInvalid) {
		t.Errorf("a failing body: %v, want boom and not ErrInvalid", err)
	}
}

type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }

func errReaderOf(err error) io.Reader { return failing{err} }

func FuzzDecodeBatch(f *testing.F) {
	f.Add(`[{"name":"pageview","url":"/a","visitor_id":"v"}]`)
	f.Add("{\"name\":\"x\",\"url\":\"/\",\"ip\":\"127.0.0.1\",\"user_agent\":\"u\"}\n{}")
	f.Add(`[`)
	f.Add(`[1,2]`)
	f.Fuzz(func(t *testing.T, in string) {
		evs, err := DecodeBatch(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("error %v is neither ErrInvalid nor ErrTooLarge", err)
			}
			return
		}
		if len(evs) == 0 || len(evs) > MaxBatch {
			t.Fatalf("%d events", len(evs))
		}
	})
}
