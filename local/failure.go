package local

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/aws/smithy-go"
	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable"
)

// A failed write of Pebble's log or manifest (ENOSPC on a full disk, EIO)
// is fatal to a Pebble DB: Batch.Commit and DB.Apply call
// Options.Logger.Fatalf ("pebble: fatal commit error"), and so do a
// flush's or compaction's failed manifest write; Pebble has no option to
// get the error back instead. The commit pipeline is then broken: a batch
// whose log write failed stays in its queue, and later commits wait
// behind it forever. Pebble's own logger exits the process there.
//
// The engine records the failure instead (failure), then:
//
//   - on a goroutine of its own (an operation, the sweeper), Fatalf
//     panics with a fatalPanic, which the operation recovers and returns
//     as a *storageError: the write is not acknowledged;
//   - on a goroutine of Pebble's own (a flush, a compaction), nothing may
//     run after Fatalf and a panic would end the process, so the goroutine
//     is parked for good.
//
// From then on every write is refused with the *storageError before it
// reaches Pebble (reads go on), Close returns it without closing Pebble
// (which could wait forever for the parked or queued work), and the
// process must exit to release the data folder. Every write acknowledged
// before the failure was synced to Pebble's log, so the next Open recovers
// it.

// storageError is the error of a write refused or failed because the
// engine's storage failed. It is a smithy.APIError (ServiceUnavailable,
// with the reason: the DynamoDB endpoint answers it 503) and matches
// timetable.ErrStorageFailed, and timetable.ErrDiskFull when full.
type storageError struct {
	full  bool   // the cause was a full disk
	cause string // Pebble's message
}

// Error is the message with Pebble's, for the log.
func (e *storageError) Error() string { return e.ErrorMessage() + " (" + e.cause + ")" }

// ErrorMessage is the message a client gets: without Pebble's, which
// names files.
func (e *storageError) ErrorMessage() string {
	if e.full {
		return "no space left on the data folder's disk; the engine stopped taking writes: free space and restart the server"
	}
	return "the storage engine failed and stopped taking writes: restart the server"
}

func (e *storageError) ErrorCode() string             { return "ServiceUnavailable" }
func (e *storageError) ErrorFault() smithy.ErrorFault { return smithy.FaultServer }

func (e *storageError) Is(target error) bool {
	return target == timetable.ErrStorageFailed || e.full && target == timetable.ErrDiskFull
}

// fatalPanic is what Fatalf panics with on a goroutine of the engine.
type fatalPanic struct{ err *storageError }

// failure records the first fatal failure of the engine's storage. The
// zero value is ready to use.
type failure struct {
	once sync.Once
	err  *storageError
	done chan struct{} // closed once err is set
}

func newFailure() *failure { return &failure{done: make(chan struct{})} }

// set records e unless a failure is recorded already, and returns the one
// recorded.
func (f *failure) set(e *storageError) *storageError {
	f.once.Do(func() {
		f.err = e
		close(f.done)
	})
	<-f.done
	return f.err
}

// get returns the recorded failure, or nil.
func (f *failure) get() error {
	select {
	case <-f.done:
		return f.err
	default:
		return nil
	}
}

// fatal handles Pebble's Fatalf (see above): it records the failure and
// never returns.
func (f *failure) fatal(msg string, args []any) {
	e := f.set(&storageError{full: anyDiskFull(msg, args), cause: msg})
	if onEngineGoroutine() {
		panic(fatalPanic{e})
	}
	select {} // a goroutine of Pebble's: park it (see above)
}

// anyDiskFull reports whether one of Fatalf's arguments is a full disk's
// error, or its message says so (Pebble's errors may be flattened).
func anyDiskFull(msg string, args []any) bool {
	for _, a := range args {
		if err, ok := a.(error); ok && errors.Is(err, syscall.ENOSPC) {
			return true
		}
	}
	return strings.Contains(msg, syscall.ENOSPC.Error())
}

// enginePrefix is the prefix of the functions of this package.
var enginePrefix = func() string {
	pc, _, _, _ := runtime.Caller(0)
	name := runtime.FuncForPC(pc).Name() // .../local.init.func1
	return name[:strings.LastIndex(name, "/")+len("/local.")]
}()

// onEngineGoroutine reports whether a function of this package is on the
// calling goroutine's stack below Pebble (other than the logger itself):
// then the goroutine runs an operation, or the sweeper, which recovers a
// fatalPanic.
func onEngineGoroutine() bool {
	var pcs [64]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		fr, more := frames.Next()
		if strings.HasPrefix(fr.Function, enginePrefix) && !strings.Contains(fr.Function, "pebbleLogger") &&
			!strings.Contains(fr.Function, "(*failure)") {
			return true
		}
		if !more {
			return false
		}
	}
}

// recoverFatal, deferred by an operation, turns a fatalPanic into its
// error in *err; other panics go on.
func recoverFatal(err *error) {
	if p := recover(); p != nil {
		fp, ok := p.(fatalPanic)
		if !ok {
			panic(p)
		}
		*err = fp.err
	}
}

// writable returns the engine's storage failure, if any, after which a
// write must not reach Pebble, or the refusal of the space guard.
func (db *DB) writable() error {
	if err := db.failure.get(); err != nil {
		return err
	}
	return db.space.check()
}

// committer is a batch to commit: a *pebble.Batch or a *writeBatch.
type committer interface {
	Commit(*pebble.WriteOptions) error
}

// commit commits b with wo, unless the storage has failed.
func (db *DB) commit(b committer, wo *pebble.WriteOptions) error {
	if err := db.writable(); err != nil {
		return err
	}
	return b.Commit(wo)
}

// syncLog syncs Pebble's log, unless the storage has failed.
func (db *DB) syncLog() error {
	if err := db.writable(); err != nil {
		return err
	}
	return db.pdb.LogData(nil, pebble.Sync)
}

// Writable returns nil when the engine takes writes, else the error every
// write is refused with, which matches timetable.ErrDiskFull when the disk
// is full:
//
//   - while the data folder's disk has less than Options.MinFreeBytes
//     available (writes resume once space is freed);
//   - after a failed write of Pebble's log or manifest (a full disk, an
//     I/O error), until the process restarts: the error then also matches
//     timetable.ErrStorageFailed.
//
// A server fails its readiness with it.
func (db *DB) Writable() error { return db.writable() }
