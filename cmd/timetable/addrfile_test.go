package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// waitForAddr waits until serve, started with --addr-file addrFile, has
// written its address there ("host:port" and a newline), and returns it.
// It fails if serve ends first, reporting what it returned on done (and
// putting that back on done, for whoever waits on it next; done must have
// room for one), or after wait.
func waitForAddr(addrFile string, done chan error, wait time.Duration) (string, error) {
	for deadline := time.Now().Add(wait); ; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(addrFile); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b)), nil
		}
		select {
		case err := <-done:
			done <- err
			return "", fmt.Errorf("serve ended early: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no address after %v", wait)
		}
	}
}
