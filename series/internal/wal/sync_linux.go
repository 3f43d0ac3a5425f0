package wal

import "syscall"

// Sync makes the file's contents and size durable with fdatasync, which
// skips the inode's timestamps: on Linux, the data and the metadata
// needed to read it back are durable when it returns.
func (f osFile) Sync() error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
