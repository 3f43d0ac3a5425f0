package wal

import (
	"os"
	"sync"
)

// hookFS is OSFS with a hook called before every file Sync; the hook's
// error, if any, is returned instead of syncing.
type hookFS struct {
	OSFS
	mu     sync.Mutex
	syncs  int
	onSync func(n int) error // n counts syncs from 1
}

type hookFile struct {
	File
	fs *hookFS
}

func (fs *hookFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	f, err := fs.OSFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return hookFile{f, fs}, nil
}

func (f hookFile) Sync() error {
	f.fs.mu.Lock()
	f.fs.syncs++
	n, hook := f.fs.syncs, f.fs.onSync
	f.fs.mu.Unlock()
	if hook != nil {
		if err := hook(n); err != nil {
			return err
		}
	}
	return f.File.Sync()
}
