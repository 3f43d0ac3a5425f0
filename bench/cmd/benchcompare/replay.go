package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/timetable-db/timetable/bench/internal/peers"
)

// The replay server is the suite workload's floor: a child process (this
// executable, flagged by replayEnv) that answers the i-th request with the
// i-th answer recorded from a real server running the same workload, over
// the ceiling's minimal HTTP loop, doing no other work. A client that runs
// the workload against it spends only its own time and HTTP's, so its time
// is the lowest any server can show on this machine, and DynamoDB Local's
// time over it the highest ratio.
const replayEnv = "BENCHCOMPARE_REPLAY_ANSWERS"

// replay answers requests with recorded answers, in order, starting over
// after the last: the workload it replays must ask the same operations in
// the same order on every run.
type replay struct {
	mu      sync.Mutex
	answers []replayAnswer
	next    int
}

type replayAnswer struct {
	op     string
	status int
	header []byte // the header lines but Content-Length
	body   []byte
}

// writeReplay writes answers into a file in dir for loadReplay and returns
// its name.
func writeReplay(dir string, answers []peers.Answer) (string, error) {
	if len(answers) == 0 {
		return "", fmt.Errorf("no answers to replay")
	}
	b, err := json.Marshal(answers)
	if err != nil {
		return "", err
	}
	name := filepath.Join(dir, "replay-answers.json")
	return name, os.WriteFile(name, b, 0o644)
}

// loadReplay reads the answers that writeReplay wrote.
func loadReplay(file string) (*replay, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var answers []peers.Answer
	if err := json.Unmarshal(b, &answers); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(answers) == 0 {
		return nil, fmt.Errorf("%s: no answers", file)
	}
	r := &replay{}
	for _, a := range answers {
		var header []byte
		for name, values := range a.Header {
			switch http.CanonicalHeaderKey(name) {
			case "Content-Length", "Connection", "Date", "Transfer-Encoding":
				continue
			}
			for _, v := range values {
				header = fmt.Appendf(header, "%s: %s\r\n", name, v)
			}
		}
		r.answers = append(r.answers, replayAnswer{op: a.Op, status: a.Status, header: header, body: a.Body})
	}
	return r, nil
}

// answer is an answerFunc. ListTables, which the workload does not call,
// answers an empty list without taking a turn (it is how a new server is
// known to be up). A request for another operation than the recorded
// answer's gets a 400 that names both, so that a workload out of step with
// the recording fails instead of measuring the wrong thing.
func (r *replay) answer(op string, _ []byte) (int, []byte, []byte) {
	if op == "ListTables" {
		return http.StatusOK, jsonHeader, []byte(`{"TableNames":[]}`)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.answers[r.next]
	if a.op != op {
		msg, _ := json.Marshal(fmt.Sprintf("replay out of step at answer %d: asked for %s, recorded %s", r.next, op, a.op))
		return http.StatusBadRequest, jsonHeader, fmt.Appendf(nil, `{"__type":"com.amazon.coral.validate#ValidationException","message":%s}`, msg)
	}
	r.next = (r.next + 1) % len(r.answers)
	return a.status, a.header, a.body
}

// startReplay starts the replay child with the answers in file.
func startReplay(ctx context.Context, file, logDir string) (*peers.Server, error) {
	return startChild(ctx, "replay server", logDir, replayEnv+"="+file)
}
