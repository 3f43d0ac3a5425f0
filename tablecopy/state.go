package tablecopy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// stateVersion is the version of the state file's format.
const stateVersion = 1

// state is the progress of a copy, as the state file holds it:
//
//	{"version": 1, "source": "file:data", "destination": "dynamodb://eu-west-1",
//	 "tables": {"events": {"created": true, "segments": [
//	   {"done": true, "items": 1200},
//	   {"cursor": "W3sibiI6...", "items": 800}]}}}
//
// A segment's cursor is package table's scan cursor after the last item of
// the last page written; a segment with neither done nor cursor starts at
// the beginning.
type state struct {
	Version     int    `json:"version"`
	Source      string `json:"source,omitempty"`
	Destination string `json:"destination,omitempty"`
	// Names are the tables the copy was asked for, in order.
	Names  []string               `json:"names,omitempty"`
	Tables map[string]*tableState `json:"tables"`

	path string // "" for no file
}

// tableState is the progress of one table.
type tableState struct {
	// Created records that a copy created the destination table.
	Created  bool           `json:"created,omitempty"`
	Segments []segmentState `json:"segments"`
}

// segmentState is the progress of one scan segment.
type segmentState struct {
	Done   bool   `json:"done,omitempty"`
	Cursor string `json:"cursor,omitempty"`
	// Items counts the items of the pages written.
	Items int64 `json:"items"`
}

// copied returns the items the state records as written.
func (t *tableState) copied() int64 {
	var n int64
	for _, s := range t.Segments {
		n += s.Items
	}
	return n
}

// resumed returns the number of segments finished or started.
func (t *tableState) resumed() int {
	n := 0
	for _, s := range t.Segments {
		if s.Done || s.Cursor != "" || s.Items > 0 {
			n++
		}
	}
	return n
}

// loadState reads the state file at path to resume from it, or returns a
// new state if resume is false (or path is ""). A state file that exists
// without resume is ErrStateExists, one that does not exist with resume
// ErrNoState, and a state of other sides than source and destination is
// an error.
func loadState(path string, resume bool, source, destination string) (*state, error) {
	st := &state{Version: stateVersion, Source: source, Destination: destination, Tables: map[string]*tableState{}, path: path}
	if path == "" {
		if resume {
			return nil, fmt.Errorf("%w: no state file given", ErrNoState)
		}
		return st, nil
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && resume:
		return nil, fmt.Errorf("%w: %s does not exist", ErrNoState, path)
	case errors.Is(err, fs.ErrNotExist):
		return st, nil
	case err != nil:
		return nil, fmt.Errorf("tablecopy: cannot read state file: %w", err)
	case !resume:
		return nil, fmt.Errorf("%w: %s records an earlier copy that did not finish: resume it, or remove the file to start again", ErrStateExists, path)
	}
	old, err := decodeState(data)
	if err != nil {
		return nil, fmt.Errorf("tablecopy: state file %s: %w", path, err)
	}
	if source != "" && old.Source != "" && old.Source != source || destination != "" && old.Destination != "" && old.Destination != destination {
		return nil, fmt.Errorf("tablecopy: state file %s is of a copy from %s to %s, not from %s to %s", path, old.Source, old.Destination, source, destination)
	}
	old.path = path
	if old.Source == "" {
		old.Source = source
	}
	if old.Destination == "" {
		old.Destination = destination
	}
	return old, nil
}

// decodeState decodes and checks a state file's contents.
func decodeState(data []byte) (*state, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var st state
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("cannot decode: %w", err)
	}
	if dec.More() {
		return nil, errors.New("cannot decode: data after the state")
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("version %d, want %d", st.Version, stateVersion)
	}
	if st.Tables == nil {
		st.Tables = map[string]*tableState{}
	}
	for name, t := range st.Tables {
		if t == nil || len(t.Segments) == 0 || len(t.Segments) > 1000000 {
			return nil, fmt.Errorf("table %q: want 1 to 1,000,000 segments", name)
		}
		for i, s := range t.Segments {
			if s.Items < 0 || s.Done && s.Cursor != "" {
				return nil, fmt.Errorf("table %q: segment %d: negative items, or done with a cursor", name, i)
			}
		}
	}
	return &st, nil
}

// save writes the state to its file, if it has one, atomically: a
// temporary file in the same folder, synced, renamed over the old one.
// The caller holds the copier's lock.
func (st *state) save() error {
	if st.path == "" {
		return nil
	}
	data, err := json.MarshalIndent(st, "", "\t")
	if err != nil {
		return fmt.Errorf("tablecopy: cannot encode state: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(st.path), filepath.Base(st.path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("tablecopy: cannot write state file: %w", err)
	}
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), st.path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("tablecopy: cannot write state file: %w", err)
	}
	return nil
}

// remove removes the state file, if there is one.
func (st *state) remove() error {
	if st.path == "" {
		return nil
	}
	if err := os.Remove(st.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("tablecopy: cannot remove the state file of the finished copy: %w", err)
	}
	return nil
}

// save saves the copier's state under its lock.
func (c *copier) save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st.save()
}
