package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/timetable-db/timetable/bench/internal/peers"
)

// env holds what the parts of a run share: the configuration, a work
// folder, and the servers, each started on first use and stopped by close.
type env struct {
	cfg    config
	work   string
	stderr io.Writer

	ddbLocal, dynalite *peers.Server
	serves             map[string]*peers.Server // by arguments
	servers            []*peers.Server
	bin                string
}

func newEnv(ctx context.Context, cfg config, work string, stderr io.Writer) (*env, error) {
	tools, err := filepath.Abs(cfg.tools)
	if err != nil {
		return nil, err
	}
	cfg.tools = tools
	if cfg.seriesHTTP.vmBin, err = filepath.Abs(cfg.seriesHTTP.vmBin); err != nil {
		return nil, err
	}
	return &env{cfg: cfg, work: work, stderr: stderr}, nil
}

func (e *env) logf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func (e *env) track(s *peers.Server) *peers.Server {
	e.servers = append(e.servers, s)
	e.logf("%s is up at %s", s.Name, s.Endpoint)
	return s
}

// stopServer stops s now (to free the machine for the next measurement).
func (e *env) stopServer(s *peers.Server) {
	for i, t := range e.servers {
		if t == s {
			e.servers = append(e.servers[:i], e.servers[i+1:]...)
			s.Stop()
			return
		}
	}
}

func (e *env) close() {
	for i := len(e.servers) - 1; i >= 0; i-- {
		e.servers[i].Stop()
	}
	e.servers = nil
}

// DynamoDBLocal returns the running DynamoDB Local, starting it if needed.
func (e *env) DynamoDBLocal(ctx context.Context) (*peers.Server, error) {
	return e.toolPeer(ctx, &e.ddbLocal, "DynamoDB Local", peers.StartDynamoDBLocal)
}

// Dynalite returns the running dynalite, starting it if needed.
func (e *env) Dynalite(ctx context.Context) (*peers.Server, error) {
	return e.toolPeer(ctx, &e.dynalite, "dynalite", peers.StartDynalite)
}

// toolPeer returns *s if it is running; otherwise it starts the peer
// named name with start, from the -tools folder, and keeps it in *s.
func (e *env) toolPeer(ctx context.Context, s **peers.Server, name string, start func(ctx context.Context, toolsDir, logDir string) (*peers.Server, error)) (*peers.Server, error) {
	if *s == nil || !(*s).Alive() {
		e.logf("starting %s", name)
		started, err := start(ctx, e.cfg.tools, e.work)
		if err != nil {
			return nil, err
		}
		*s = e.track(started)
	}
	return *s, nil
}

// Serve returns the running timetable serve started with the -serve-args
// flag's arguments, building and starting it if needed, with its data in a
// fresh folder.
func (e *env) Serve(ctx context.Context) (*peers.Server, error) {
	return e.ServeWith(ctx, e.cfg.serveArgs...)
}

// timetableBin returns the timetable command of the module in -root,
// building it on first use.
func (e *env) timetableBin(ctx context.Context) (string, error) {
	if e.bin == "" {
		e.logf("building cmd/timetable")
		bin, err := peers.BuildTimetable(ctx, e.cfg.root, e.work)
		if err != nil {
			return "", err
		}
		e.bin = bin
	}
	return e.bin, nil
}

// ServeWith is Serve with the given extra arguments for timetable serve
// (such as --in-memory); each distinct set of arguments is its own server.
func (e *env) ServeWith(ctx context.Context, args ...string) (*peers.Server, error) {
	key := strings.Join(args, " ")
	if s := e.serves[key]; s != nil && s.Alive() {
		return s, nil
	}
	if _, err := e.timetableBin(ctx); err != nil {
		return nil, err
	}
	data, err := os.MkdirTemp(e.work, "serve-data-")
	if err != nil {
		return nil, err
	}
	e.logf("starting timetable serve %s", key)
	s, err := peers.StartTimetable(ctx, e.bin, data, e.work, args...)
	if err != nil {
		return nil, err
	}
	if e.serves == nil {
		e.serves = map[string]*peers.Server{}
	}
	e.serves[key] = e.track(s)
	return s, nil
}
