package peers

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The time-series servers (VictoriaMetrics, and timetable serve's series
// API) answer plain HTTP, not DynamoDB's API: they are ready once a GET of
// a readiness path answers 200.

// answersGet returns ready for startReady: GET path answers 200.
func answersGet(path string) func(*Server, context.Context) error {
	return func(s *Server, ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.Endpoint+path, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", path, resp.Status)
		}
		return nil
	}
}

// StartVictoriaMetrics starts the VictoriaMetrics single-node binary bin
// with its data in dataDir (new or left by an earlier run), listening on
// a free port of 127.0.0.1, and waits until GET /health answers.
func StartVictoriaMetrics(ctx context.Context, bin, dataDir, logDir string) (*Server, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-storageDataPath", dataDir, "-httpListenAddr", "127.0.0.1:"+strconv.Itoa(port))
	return startReady(ctx, "VictoriaMetrics", cmd, port, "", logDir, answersGet("/health"))
}

// StartTimetableHTTP starts `bin serve --data dataDir --addr-file F` plus
// args (which must make it listen on a port of 127.0.0.1 it picks itself
// and report it through --addr-file, e.g. "--no-auth --dynamodb-addr
// 127.0.0.1:0"), and waits until GET /readyz answers.
func StartTimetableHTTP(ctx context.Context, bin, dataDir, logDir string, args ...string) (*Server, error) {
	addrFile, err := AddrFile(logDir, "serve-addr-")
	if err != nil {
		return nil, err
	}
	all := append([]string{"serve", "--data", dataDir, "--addr-file", addrFile}, args...)
	return startReady(ctx, "timetable serve", exec.Command(bin, all...), 0, addrFile, logDir, answersGet("/readyz"))
}

// PID returns the server's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// RSS returns the server process's resident set size in bytes, from
// VmRSS in /proc/PID/status (Linux only).
func (s *Server) RSS() (int64, error) { return ProcessMemory(s.PID(), "VmRSS") }

// PeakRSS returns the largest resident set size the server process has
// had so far in bytes, from VmHWM in /proc/PID/status (Linux only).
func (s *Server) PeakRSS() (int64, error) { return ProcessMemory(s.PID(), "VmHWM") }

// ProcessMemory returns the size in bytes of field (such as VmRSS or
// VmHWM, given in kB) of /proc/PID/status of process pid (Linux only).
func ProcessMemory(pid int, field string) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			fs := strings.Fields(rest)
			if len(fs) == 2 && fs[1] == "kB" {
				if kb, err := strconv.ParseInt(fs[0], 10, 64); err == nil {
					return kb << 10, nil
				}
			}
			return 0, fmt.Errorf("cannot parse %s in /proc/%d/status: %q", field, pid, rest)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// Shutdown asks the server to stop cleanly (SIGTERM to its process
// group) and waits up to timeout for it to exit. It returns an error if
// the server had to be killed or exited with a non-zero status; the
// server is stopped either way. It removes the log file on success and
// keeps it otherwise (its tail is in the error).
func (s *Server) Shutdown(timeout time.Duration) error {
	pgid := s.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(timeout):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-s.done
		return fmt.Errorf("%s did not exit within %v of SIGTERM and was killed\n%s", s.Name, timeout, s.LogTail())
	}
	if st := s.cmd.ProcessState; st != nil && !st.Success() {
		return fmt.Errorf("%s exited with %v after SIGTERM\n%s", s.Name, st, s.LogTail())
	}
	s.log.Close()
	os.Remove(s.log.Name())
	return nil
}

// ExitCPU returns the CPU time (user and system) the server's process
// used over its whole life, once it has exited (after Stop or Shutdown);
// 0 before.
func (s *Server) ExitCPU() time.Duration {
	if s.Alive() || s.cmd.ProcessState == nil {
		return 0
	}
	return s.cmd.ProcessState.UserTime() + s.cmd.ProcessState.SystemTime()
}
