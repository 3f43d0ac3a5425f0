//go:build !linux

package wal

// Sync makes the file's contents durable (fsync).
func (f osFile) Sync() error { return f.File.Sync() }
