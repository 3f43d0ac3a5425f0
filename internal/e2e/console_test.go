package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// console gathers what the pages of a tab log and throw.
type console struct {
	mu       sync.Mutex
	messages []string // "warning: text", "info: text", ...
	thrown   []string
}

// watch starts gathering the console messages and exceptions of tab.
func (e *env) watch(tab context.Context) *console {
	e.t.Helper()
	c := &console{}
	err := chromedp.Listen(tab, func(ev any) {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var parts []string
			for _, a := range ev.Args {
				var s string
				if json.Unmarshal(a.Value, &s) != nil {
					s = a.Description
				}
				parts = append(parts, s)
			}
			c.messages = append(c.messages, string(ev.Type)+": "+strings.Join(parts, " "))
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			c.thrown = append(c.thrown, msg)
		}
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// wait returns the first message holding every one of parts, waiting
// for it up to a deadline (a bound on the wait, not a timing check); it
// fails the test with the messages seen when none comes.
func (c *console) wait(t *testing.T, parts ...string) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		c.mu.Lock()
		for _, m := range c.messages {
			ok := true
			for _, p := range parts {
				ok = ok && strings.Contains(m, p)
			}
			if ok {
				c.mu.Unlock()
				return m
			}
		}
		seen := strings.Join(c.messages, "\n  ")
		c.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no console message with %q; seen:\n  %s", parts, seen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// errors returns the exceptions the pages threw.
func (c *console) errors() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.thrown...)
}
