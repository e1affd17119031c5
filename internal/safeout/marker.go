package safeout

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// MarkerFile is the ownership marker Publish writes into every directory it
// publishes: JSON naming the tool, the command, the kind of output and every
// file the command wrote. A directory is replaced only when its marker names
// the same command and kind and it holds no file the marker does not list.
const MarkerFile = ".tracereplay-owned"

// markerTool is the tool name every marker carries.
const markerTool = "tracereplay"

// Owner says which command writes a directory and what kind of output it is,
// e.g. {Command: "replay", Kind: "results"}.
type Owner struct {
	Command string
	Kind    string
}

func (o Owner) String() string { return o.Command + " " + o.Kind }

// marker is the content of MarkerFile.
type marker struct {
	Tool    string   `json:"tool"`
	Command string   `json:"command"`
	Kind    string   `json:"kind"`
	Files   []string `json:"files"`
}

// ErrNotOwned is wrapped by the error of Open and Publish when the target
// exists and is not a directory this command wrote; nothing was changed.
var ErrNotOwned = errors.New("not written by this command")

// notOwned is an ErrNotOwned with its reason.
type notOwned struct{ reason string }

func (e notOwned) Error() string        { return e.reason }
func (e notOwned) Is(target error) bool { return target == ErrNotOwned }

func refuse(format string, a ...any) error { return notOwned{fmt.Sprintf(format, a...)} }

// writeMarker lists every file under dir (slash-separated, sorted) into
// dir/MarkerFile.
func writeMarker(dir string, o Owner) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return err
	}
	m := marker{Tool: markerTool, Command: o.Command, Kind: o.Kind, Files: files}
	if m.Files == nil {
		m.Files = []string{}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(filepath.Join(dir, MarkerFile), append(b, '\n'))
}

// checkOwned returns nil when dir may be replaced by o: it does not exist, is
// an empty directory, or carries o's marker and holds only files the marker
// lists. Otherwise the error wraps ErrNotOwned and says why.
func checkOwned(dir string, o Owner) error {
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return refuse("it is not a directory")
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(ents) == 0 {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, MarkerFile))
	if errors.Is(err, fs.ErrNotExist) {
		return refuse("no %s marker; it holds %s", MarkerFile, listNames(ents))
	}
	if err != nil {
		return err
	}
	var m marker
	if err := json.Unmarshal(b, &m); err != nil || m.Tool != markerTool {
		return refuse("its %s is not a tracereplay marker", MarkerFile)
	}
	if m.Command != o.Command || m.Kind != o.Kind {
		return refuse("it holds a %s %s wrote", m.Kind, m.Command)
	}
	listed, dirs := map[string]bool{MarkerFile: true}, map[string]bool{}
	for _, f := range m.Files {
		listed[f] = true
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			if !dirs[rel] {
				return refuse("it holds %s, which %s did not write", rel, o.Command)
			}
			return nil
		case !d.Type().IsRegular() || !listed[rel]:
			return refuse("it holds %s, which %s did not write", rel, o.Command)
		}
		return nil
	})
}

// listNames names up to three entries, for messages.
func listNames(ents []os.DirEntry) string {
	var names []string
	for i, e := range ents {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(ents)-3))
			break
		}
		names = append(names, e.Name())
	}
	return strings.Join(names, ", ")
}
