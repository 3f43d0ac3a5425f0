package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// storage is where a command keeps its data: the embedded engine on a
// data folder or in memory, or a remote backend (a DynamoDB-compatible
// endpoint, Amazon DynamoDB) with, for serve, a local folder for what
// the server keeps itself.
type storage struct {
	// dir is the data folder of the embedded engine; on a remote
	// backend, the folder of the series write-ahead log, or "" for none.
	dir      string
	inMemory bool
	// remote is the URL of a remote backend for backend.Open
	// (http://HOST:PORT, https://HOST:PORT, dynamodb://REGION); "" for
	// the embedded engine.
	remote string
}

// where names s for logs and banners: the folder, "memory" or the URL.
func (s storage) where() string {
	switch {
	case s.remote != "":
		return s.remote
	case s.inMemory:
		return "memory"
	}
	return s.dir
}

// parseStorage returns the storage of the flags --data and --backend:
// data is --data's value and dataSet whether it was given; backendURL is
// --backend's value ("" when not given). A --data that looks like a URL
// is refused (it names a backend, not a folder); --backend file:DIR and
// mem: are the embedded engine, the same as --data DIR and memory;
// --data with --backend is refused unless the backend is remote, when
// it is the local folder (the series write-ahead log), if keepLocal
// allows one (serve). The errors name the flags and are meant for the
// user as they are.
func parseStorage(data string, dataSet bool, backendURL string, keepLocal bool) (storage, error) {
	if looksLikeURL(data) {
		return storage{}, fmt.Errorf("--data %q is a URL, not a folder: give a backend's URL with --backend (file:DIR, mem:, http://HOST:PORT, https://HOST:PORT, dynamodb://REGION)", data)
	}
	if backendURL == "" {
		if data == "" {
			return storage{}, errors.New("--data: empty folder name")
		}
		return storage{dir: data}, nil
	}
	scheme, rest, ok := strings.Cut(backendURL, ":")
	switch {
	case !ok:
		return storage{}, fmt.Errorf("--backend %q: want file:DIR, mem:, http://HOST:PORT, https://HOST:PORT or dynamodb://REGION", backendURL)
	case scheme == "file" || scheme == "mem":
		if dataSet {
			return storage{}, fmt.Errorf("--backend %s and --data both name the data: give one", backendURL)
		}
		if scheme == "mem" {
			if rest != "" {
				return storage{}, fmt.Errorf("--backend %q: mem: takes nothing after the colon", backendURL)
			}
			return storage{inMemory: true}, nil
		}
		dir := strings.TrimPrefix(rest, "//")
		if dir == "" {
			return storage{}, fmt.Errorf("--backend %q: empty folder name (file:DIR)", backendURL)
		}
		return storage{dir: dir}, nil
	case scheme == "http" || scheme == "https" || scheme == "dynamodb":
		s := storage{remote: backendURL}
		switch {
		case keepLocal:
			s.dir = data
		case dataSet:
			return storage{}, fmt.Errorf("--data with --backend %s: this command keeps nothing locally on a remote backend (its writes are acknowledged once in the backend); drop --data", backendURL)
		}
		return s, nil
	}
	return storage{}, fmt.Errorf("--backend %q: unknown scheme %q: want file:DIR, mem:, http://HOST:PORT, https://HOST:PORT or dynamodb://REGION", backendURL, scheme)
}

// looksLikeURL reports whether a --data value is a URL rather than a
// folder: it has "://" or begins with a backend's scheme.
func looksLikeURL(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	for _, p := range []string{"http:", "https:", "dynamodb:", "mem:", "file:"} {
		if strings.HasPrefix(strings.ToLower(s), p) {
			return true
		}
	}
	return false
}

// localMarker is the file, in the local folder of a server on a remote
// backend, that names the backend and table its write-ahead log belongs
// to.
const localMarker = "backend"

// claimLocalDir prepares dir as the local folder of a server on the
// remote backend url and series table: it creates it if missing, refuses
// a data folder of the embedded engine (its write-ahead log is that
// folder's) and a folder that another backend or table claimed (its log's
// readings belong there), and records url and table in it.
func claimLocalDir(dir, url, table string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the local folder: %w", err)
	}
	if isEngineFolder(dir) {
		return fmt.Errorf("--data %s is a data folder of the embedded engine; on a remote backend --data is the folder of the server's own write-ahead log: give it a folder of its own", dir)
	}
	want := "backend " + url + "\ntable " + table + "\n"
	marker := filepath.Join(dir, localMarker)
	switch b, err := os.ReadFile(marker); {
	case err == nil && string(b) != want:
		return fmt.Errorf("--data %s holds the write-ahead log of another backend or table (%s): its readings belong there; give this server another folder (or, if both name the same backend, delete %s)",
			dir, strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", ", "), marker)
	case err == nil:
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("cannot read %s: %w", marker, err)
	}
	return writeFileAtomic(marker, []byte(want))
}

// isEngineFolder reports whether dir holds the files of the embedded
// engine (Pebble's manifest, or an older store's CURRENT).
func isEngineFolder(dir string) bool {
	for _, pattern := range []string{"MANIFEST-*", "marker.manifest.*", "CURRENT"} {
		if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) > 0 {
			return true
		}
	}
	return false
}

// flagsGiven returns the names of the flags of fs given on the command
// line (not left at their defaults).
func flagsGiven(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}
