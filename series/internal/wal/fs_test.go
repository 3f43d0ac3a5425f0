package wal

import (
	"io"
	"os"
	"path/filepath"
	"sync"
)

// hookFS is OSFS with a hook called before every file Sync, and one
// before every file Write; a hook's error, if any, is returned instead of
// syncing or writing (onWrite also says how many bytes to write first).
type hookFS struct {
	OSFS
	mu      sync.Mutex
	syncs   int
	onSync  func(n int) error                    // n counts syncs from 1
	onWrite func(p []byte) (keep int, err error) // writes p[:keep], then fails with err
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

func (f hookFile) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	hook := f.fs.onWrite
	f.fs.mu.Unlock()
	if hook != nil {
		if keep, err := hook(p); err != nil {
			n, _ := f.File.Write(p[:keep])
			return n, err
		}
	}
	return f.File.Write(p)
}

// memFS is an in-memory FS for fuzzing: no disk, no directories beyond
// names.
type memFS struct {
	mu    sync.Mutex
	files map[string]*memData
}

type memData struct{ b []byte }

type memFile struct {
	fs     *memFS
	d      *memData
	off    int64
	append bool
}

func newMemFS() *memFS { return &memFS{files: map[string]*memData{}} }

func (fs *memFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	d, ok := fs.files[name]
	switch {
	case ok && flag&os.O_EXCL != 0:
		return nil, &os.PathError{Op: "open", Path: name, Err: os.ErrExist}
	case !ok && flag&os.O_CREATE == 0:
		return nil, &os.PathError{Op: "open", Path: name, Err: os.ErrNotExist}
	case !ok:
		d = &memData{}
		fs.files[name] = d
	}
	if flag&os.O_TRUNC != 0 {
		d.b = nil
	}
	return &memFile{fs: fs, d: d, append: flag&os.O_APPEND != 0}, nil
}

func (fs *memFS) Remove(name string) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if _, ok := fs.files[name]; !ok {
		return &os.PathError{Op: "remove", Path: name, Err: os.ErrNotExist}
	}
	delete(fs.files, name)
	return nil
}

func (fs *memFS) ReadDir(dir string) ([]string, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var names []string
	for n := range fs.files {
		if filepath.Dir(n) == filepath.Clean(dir) {
			names = append(names, filepath.Base(n))
		}
	}
	return names, nil
}

func (fs *memFS) MkdirAll(string, os.FileMode) error { return nil }
func (fs *memFS) SyncDir(string) error               { return nil }

func (f *memFile) Read(p []byte) (int, error) {
	n, err := f.ReadAt(p, f.off)
	f.off += int64(n)
	return n, err
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if off >= int64(len(f.d.b)) {
		return 0, io.EOF
	}
	n := copy(p, f.d.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.append {
		f.off = int64(len(f.d.b))
	}
	if grow := f.off + int64(len(p)) - int64(len(f.d.b)); grow > 0 {
		f.d.b = append(f.d.b, make([]byte, grow)...)
	}
	copy(f.d.b[f.off:], p)
	f.off += int64(len(p))
	return len(p), nil
}

func (f *memFile) Truncate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if size <= int64(len(f.d.b)) {
		f.d.b = f.d.b[:size]
	} else {
		f.d.b = append(f.d.b, make([]byte, size-int64(len(f.d.b)))...)
	}
	return nil
}

func (f *memFile) Size() (int64, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	return int64(len(f.d.b)), nil
}

func (f *memFile) Sync() error  { return nil }
func (f *memFile) Close() error { return nil }
