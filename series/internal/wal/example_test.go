package wal_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/timetable-db/timetable/series/internal/wal"
)

func Example() {
	dir, err := os.MkdirTemp("", "wal")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	l, err := wal.Open(dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	// Acknowledge three readings once they are durable.
	lsn, err := l.Append(ctx, []byte("cpu 0.5"), []byte("cpu 0.7"), []byte("cpu 0.6"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("acknowledged up to", lsn)
	// The first two were written to the table: they are no longer needed.
	if err := l.Release(lsn - 1); err != nil {
		log.Fatal(err)
	}
	if err := l.Close(); err != nil { // a crash here would do, too
		log.Fatal(err)
	}

	l, err = wal.Open(dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	err = l.Replay(func(lsn uint64, rec []byte) error {
		fmt.Printf("replay %d: %s\n", lsn, rec)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// acknowledged up to 3
	// replay 3: cpu 0.6
}
