// Package browsertest drives headless Chromium for the browser tests
// (`make e2e`), through github.com/chromedp/chromedp, so that `go test
// ./...` needs no setup.
//
// The contract:
//
//   - [Start] finds Chromium ([ChromiumEnv], else chromium, chromium-browser,
//     google-chrome or google-chrome-stable on PATH). When there is none it
//     skips the test, or fails it when [RequireEnv] is "1" (as `make e2e`
//     sets it: a missing browser is then an error, never a skip). It
//     starts one headless browser per call, stopped at the test's cleanup.
//   - [Browser.Tab] opens a tab; [Browser.Do] runs actions in it and [Run]
//     one action that returns a value, each under a deadline, failing the
//     test with the error.
//   - [Browser.Screenshot] writes a PNG of a tab into [Dir]: the folder
//     named by [ScreenshotsEnv] (created when missing), else one
//     t.TempDir per test.
//   - [Need] is the same skip-or-fail rule for anything else a browser test
//     needs (an npm package, say).
//
// Chromium runs without its sandbox (it cannot start as root with it, nor
// in many containers), with a desktop Chrome user agent (a server's bot
// filter drops HeadlessChrome's) unless Options says otherwise, and with
// Options.Hosts resolved to 127.0.0.1, so that test pages can have real
// domain names while every request stays on the loopback.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Environment variables read by the package.
const (
	// RequireEnv set to "1" turns a skip for a missing browser (or what
	// Need is asked for) into a failure.
	RequireEnv = "TIMETABLE_REQUIRE_BROWSER"
	// ChromiumEnv names the browser binary to use.
	ChromiumEnv = "TIMETABLE_CHROMIUM"
	// ScreenshotsEnv names the folder screenshots are written to.
	ScreenshotsEnv = "TIMETABLE_SCREENSHOTS"
)

// DesktopUserAgent is the user agent the browser sends unless
// Options.UserAgent is set: Chrome on Linux, as a visitor's browser would
// send it.
const DesktopUserAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// DefaultTimeout bounds each Run unless Options.Timeout is set.
const DefaultTimeout = 30 * time.Second

// Options configure Start. A nil *Options is valid.
type Options struct {
	// Hosts are host-name patterns of Chromium's --host-resolver-rules
	// ("site.test", "*.test") that resolve to 127.0.0.1. Default none.
	Hosts []string
	// UserAgent replaces the browser's. Default DesktopUserAgent.
	UserAgent string
	// Timeout bounds each Run. Default DefaultTimeout.
	Timeout time.Duration
}

// Browser is a headless Chromium started for one test. Its methods may be
// called from the test's goroutine only.
type Browser struct {
	ctx     context.Context // the first tab's; others are derived from it
	first   bool            // the first tab is not handed out yet
	timeout time.Duration
}

// Need skips the test with the reason why (or fails it when RequireEnv is
// "1") unless ok.
func Need(t testing.TB, ok bool, format string, args ...any) {
	t.Helper()
	if ok {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s (%s=1: a browser test may not skip; make e2e installs what it needs)", msg, RequireEnv)
	}
	t.Skipf("%s (make e2e installs it)", msg)
}

// Chromium returns the path of the browser binary, or "" when there is
// none.
func Chromium() string {
	if p := os.Getenv(ChromiumEnv); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Start starts a headless browser for t, or skips or fails t when there
// is none (see Need). The browser is stopped at t's cleanup.
func Start(t testing.TB, o *Options) *Browser {
	t.Helper()
	path := Chromium()
	Need(t, path != "", "no Chromium: set %s or install Debian's chromium", ChromiumEnv)
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.UserAgent == "" {
		opts.UserAgent = DesktopUserAgent
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	flags := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.UserAgent(opts.UserAgent),
		chromedp.WindowSize(1280, 800),
		chromedp.UserDataDir(t.TempDir()),
	)
	if len(opts.Hosts) > 0 {
		rules := make([]string, len(opts.Hosts))
		for i, h := range opts.Hosts {
			rules[i] = "MAP " + h + " 127.0.0.1"
		}
		flags = append(flags, chromedp.Flag("host-resolver-rules", strings.Join(rules, ", ")))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), flags...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	// The first call on a context binds the browser's life to it: it has
	// no deadline, and a browser that cannot start fails here.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("cannot start %s: %v", path, err)
	}
	return &Browser{ctx: ctx, first: true, timeout: opts.Timeout}
}

// Tab returns a new tab's context for Do, Run and Screenshot; the first
// call returns the tab the browser opened with. The tab is closed at t's
// cleanup.
func (b *Browser) Tab(t testing.TB) context.Context {
	t.Helper()
	if b.first {
		b.first = false
		return b.ctx
	}
	ctx, cancel := chromedp.NewContext(b.ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // opens it, without a deadline
		t.Fatalf("browser: cannot open a tab: %v", err)
	}
	return ctx
}

// Do runs steps in tab, bounded by the Options' Timeout, and fails the
// test with what was being done when one fails.
func (b *Browser) Do(t testing.TB, tab context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	Run(t, b, tab, what, chromedp.Steps(steps...))
}

// Run runs one action in tab, bounded by b's Timeout, and returns its
// value; it fails the test with what was being done when the action
// fails.
func Run[T any](t testing.TB, b *Browser, tab context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, b.timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w (after %s)", err, b.timeout)
	}
	if err != nil {
		t.Fatalf("browser: %s: %v", what, err)
	}
	return v
}

var (
	dirsMu sync.Mutex
	dirs   = map[string]string{} // test name -> its folder, without ScreenshotsEnv
)

// Dir returns the folder t's screenshots go to: ScreenshotsEnv's (made if
// missing), else a t.TempDir kept for the test.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv(ScreenshotsEnv); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("screenshot folder: %v", err)
		}
		return d
	}
	dirsMu.Lock()
	defer dirsMu.Unlock()
	if d, ok := dirs[t.Name()]; ok {
		return d
	}
	d := t.TempDir()
	dirs[t.Name()] = d
	t.Cleanup(func() {
		dirsMu.Lock()
		delete(dirs, t.Name())
		dirsMu.Unlock()
	})
	return d
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Screenshot writes a PNG of what tab shows (the whole page) to Dir(t),
// named after the test and name, and returns its path.
func (b *Browser) Screenshot(t testing.TB, tab context.Context, name string) string {
	t.Helper()
	png := Run(t, b, tab, "screenshot "+name, chromedp.FullScreenshot(100))
	file := filepath.Join(Dir(t), unsafeName.ReplaceAllString(t.Name()+"-"+name, "_")+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	t.Logf("screenshot %s", file)
	return file
}
