package peers

import (
	"context"
	"os"
	"os/exec"
	"strconv"
)

// prometheusConfig is the configuration file StartPrometheus gives the
// server: no scrapes, no rules, and an out-of-order window of two days,
// so that remote-written samples up to two days old are taken whatever
// order concurrent senders bring them in.
const prometheusConfig = `global: {}
storage:
  tsdb:
    out_of_order_time_window: 2d
`

// StartPrometheus starts the Prometheus server binary bin (2.39 or later:
// the out-of-order window) with its TSDB in dataDir (new or left by an
// earlier run), listening on a free port of 127.0.0.1, taking remote
// write at /api/v1/write (--web.enable-remote-write-receiver) and keeping
// samples 30 days, and waits until GET /-/ready answers. Its
// configuration file goes in logDir.
func StartPrometheus(ctx context.Context, bin, dataDir, logDir string) (*Server, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(logDir, "prometheus-*.yml")
	if err != nil {
		return nil, err
	}
	_, err = f.WriteString(prometheusConfig)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--config.file", f.Name(), "--storage.tsdb.path", dataDir,
		"--storage.tsdb.retention.time", "30d", "--web.listen-address", "127.0.0.1:"+strconv.Itoa(port),
		"--web.enable-remote-write-receiver")
	return startReady(ctx, "Prometheus", cmd, port, "", logDir, answersGet("/-/ready"))
}
