package collect

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/analytics"
)

// MaxBatch is the most events a batch may hold.
const MaxBatch = 10_000

// ServerEvent is an event of a batch that a server sends (Batch): a hit it
// saw itself, with the visitor's address and user agent, or a visitor id
// of its own.
type ServerEvent struct {
	// Time is when it happened (RFC 3339); default the time of the batch.
	Time time.Time `json:"time"`
	// Name is "pageview", "engagement" or a custom event's name. Required.
	Name string `json:"name"`
	// URL is the page's URL, or its path (starting with '/'), with UTM
	// parameters and click ids in its query string. Required.
	URL string `json:"url"`
	// Hash makes the URL's fragment part of the path.
	Hash bool `json:"hash,omitempty"`
	// Referrer is the referring URL.
	Referrer string `json:"referrer,omitempty"`
	// Props are the custom properties, an object of scalars.
	Props json.RawMessage `json:"props,omitempty"`
	// IP and UserAgent are the visitor's; the IP is not stored. Both are
	// required unless VisitorID is set; UserAgent also gives browser, OS
	// and device, and IP the country (with a GeoIP database).
	IP        string `json:"ip,omitempty"`
	UserAgent string `json:"user_agent,omitempty"`
	// VisitorID, if set, is the visitor's id, used as it is.
	VisitorID string `json:"visitor_id,omitempty"`
	// Country is the visitor's ISO 3166-1 alpha-2 code; default from IP.
	Country string `json:"country,omitempty"`
	// Interactive false makes a custom event not end a bounce; default
	// true.
	Interactive *bool `json:"interactive,omitempty"`
	// EngagementMs and ScrollDepth are an engagement event's.
	EngagementMs int64 `json:"engagement_ms,omitempty"`
	ScrollDepth  int   `json:"scroll_depth,omitempty"`
}

// BatchError reports the event of a batch that was refused.
type BatchError struct {
	// Index is the event's position in the batch, from 0.
	Index int
	Err   error
}

func (e *BatchError) Error() string { return fmt.Sprintf("event %d: %v", e.Index, e.Err) }
func (e *BatchError) Unwrap() error { return e.Err }

// DecodeBatch reads a batch: a JSON array of ServerEvents or JSON lines
// (one per line), at most MaxBatch of them (ErrTooLarge beyond). Unknown
// members are refused. A bad event fails with a *BatchError (wrapping
// ErrInvalid) naming it; an error reading r is returned wrapped as it is.
func DecodeBatch(r io.Reader) ([]ServerEvent, error) {
	src := &errReader{r: r}
	br := bufio.NewReader(src)
	first, err := peekNonSpace(br)
	if err == io.EOF {
		return nil, fmt.Errorf("%w batch: empty", ErrInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("collect: cannot read the batch: %w", err)
	}
	dec := json.NewDecoder(br)
	dec.DisallowUnknownFields()
	array := first == '['
	if array {
		if _, err := dec.Token(); err != nil {
			return nil, src.fail(err, -1)
		}
	}
	var evs []ServerEvent
	for i := 0; ; i++ {
		if array && !dec.More() {
			if _, err := dec.Token(); err != nil {
				return nil, src.fail(err, -1)
			}
			break
		}
		var ev ServerEvent
		if err := dec.Decode(&ev); err != nil {
			if !array && err == io.EOF {
				break
			}
			return nil, src.fail(err, i)
		}
		if len(evs) == MaxBatch {
			return nil, fmt.Errorf("%w: a batch holds at most %d events", ErrTooLarge, MaxBatch)
		}
		evs = append(evs, ev)
	}
	if array {
		if _, err := dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("%w batch: more after the array", ErrInvalid)
		}
	}
	if len(evs) == 0 {
		return nil, fmt.Errorf("%w batch: no events", ErrInvalid)
	}
	return evs, nil
}

// errReader remembers the error of reading its source, so that a decoding
// error can be told from a reading one.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// fail turns a decoding error of event i (-1: the array itself) into an
// ErrInvalid, or returns the reading error behind it.
func (e *errReader) fail(err error, i int) error {
	if e.err != nil {
		return fmt.Errorf("collect: cannot read the batch: %w", e.err)
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = errors.New("the body ends in the middle of the batch")
	}
	if i < 0 {
		return fmt.Errorf("%w batch: %v", ErrInvalid, err)
	}
	return &BatchError{Index: i, Err: fmt.Errorf("%w: %v", ErrInvalid, err)}
}

func peekNonSpace(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		if !bytes.ContainsRune([]byte(" \t\r\n"), rune(b)) {
			return b, br.UnreadByte()
		}
	}
}

// Batch records the server-side events read from body (DecodeBatch) for
// site, all or none: every event is turned into an analytics.Event and
// checked (Store.Check) before the first is recorded, and the first bad
// one fails the batch with a *BatchError. It returns the number recorded.
// Events are trusted: no bot, spam, domain or rate checks. If the store
// fails part-way, the events before the failing one stay recorded and the
// *BatchError names it. An unknown site is ErrUnknownSite.
func (c *Collector) Batch(ctx context.Context, site string, body io.Reader) (int, error) {
	n, err := c.batch(ctx, site, body)
	c.stats.refuse(err)
	return n, err
}

func (c *Collector) batch(ctx context.Context, site string, body io.Reader) (int, error) {
	if _, err := c.store.Site(ctx, site); err != nil {
		if errors.Is(err, timetable.ErrNotFound) || errors.Is(err, analytics.ErrInvalid) {
			return 0, fmt.Errorf("%w %q", ErrUnknownSite, site)
		}
		return 0, err
	}
	evs, err := DecodeBatch(body)
	if err != nil {
		return 0, err
	}
	now := c.o.Now()
	out := make([]analytics.Event, len(evs))
	for i := range evs {
		e, err := c.serverEvent(ctx, site, &evs[i], now)
		if err == nil {
			err = c.store.Check(e)
		}
		if err != nil {
			return 0, &BatchError{Index: i, Err: err}
		}
		out[i] = e
	}
	n := 0
	err = c.durably(ctx, func(ctx context.Context) error {
		for i := range out {
			if err := c.store.Record(ctx, out[i]); err != nil {
				return &BatchError{Index: i, Err: fmt.Errorf("%d events before it are recorded; %w", i, err)}
			}
			n++
			c.stats.accepted.Add(1)
		}
		return nil
	})
	return n, err
}

// serverEvent turns ev into the Event of site.
func (c *Collector) serverEvent(ctx context.Context, site string, ev *ServerEvent, now time.Time) (analytics.Event, error) {
	e := analytics.Event{Site: site, Time: ev.Time, Name: ev.Name, VisitorID: ev.VisitorID, Referrer: cleanReferrer(ev.Referrer),
		NonInteractive: ev.Interactive != nil && !*ev.Interactive, Country: countryCode(ev.Country)}
	if e.Time.IsZero() {
		e.Time = now
	}
	if ev.Name == analytics.Engagement {
		e.EngagementMs, e.ScrollDepth = ev.EngagementMs, ev.ScrollDepth
	}
	if ev.Country != "" && e.Country == "" {
		return e, fmt.Errorf("%w country %q: want an ISO 3166-1 alpha-2 code", ErrInvalid, ev.Country)
	}
	u, err := url.Parse(ev.URL)
	if err != nil || ev.URL == "" || (u.Host == "" && !strings.HasPrefix(ev.URL, "/")) {
		return e, fmt.Errorf("%w url %q: want a URL or a path starting with '/'", ErrInvalid, ev.URL)
	}
	fromURL(&e, u, ev.Hash)
	if e.Props, err = decodeProps(ev.Props); err != nil {
		return e, err
	}
	ip, ipOK := parseAddr(ev.IP)
	if ev.IP != "" && !ipOK {
		return e, fmt.Errorf("%w ip %q", ErrInvalid, ev.IP)
	}
	if ev.UserAgent != "" {
		ag := c.ua.classify(ev.UserAgent)
		e.Browser, e.OS, e.Device = ag.browser, ag.os, ag.device
	}
	if e.Country == "" && ipOK && c.o.GeoIP != nil {
		e.Country = c.o.GeoIP.Country(ip)
	}
	if e.VisitorID == "" {
		if !ipOK || ev.UserAgent == "" {
			return e, fmt.Errorf("%w event: want ip and user_agent, or visitor_id", ErrInvalid)
		}
		if e.VisitorID, err = c.store.VisitorID(ctx, site, ip.String(), ev.UserAgent); err != nil {
			return e, err
		}
	}
	return e, nil
}
