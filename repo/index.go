package repo

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/plangit/plangit/plan"
)

// readIndex returns the blob hash of each file the index records.
func (w *workTree) readIndex() (map[string]plumbing.Hash, error) {
	b, err := os.ReadFile(filepath.Join(w.gitDir, indexName))
	if err != nil {
		return nil, err
	}
	var idx index.Index
	if err := index.NewDecoder(bytes.NewReader(b)).Decode(&idx); err != nil {
		return nil, err
	}
	out := make(map[string]plumbing.Hash, len(idx.Entries))
	for _, e := range idx.Entries {
		out[e.Name] = e.Hash
	}
	return out, nil
}

// writeIndex records in's new blobs in the index. Files known to hold
// their blob (verified) get their stat data, so that git sees the session
// directory as clean without rehashing it; any other file gets none, so
// git rehashes it and sees what a person changed.
func (w *workTree) writeIndex(in *intent, verified map[string]bool) error {
	idx := &index.Index{Version: 2}
	for _, f := range in.Files {
		if plumbing.Hash(f.New).IsZero() {
			continue
		}
		e := &index.Entry{Name: f.Name, Hash: f.New, Mode: filemode.Regular}
		if fi, err := os.Lstat(filepath.Join(w.dir, f.Name)); err == nil && verified[f.Name] {
			e.Size = uint32(fi.Size())
			e.ModifiedAt = fi.ModTime()
			fillStat(e, fi)
		}
		idx.Entries = append(idx.Entries, e)
	}
	var buf bytes.Buffer
	if err := index.NewEncoder(&buf).Encode(idx); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot encode the index")
	}
	return w.writeFile(filepath.Join(w.gitDir, indexName), buf.Bytes(), 0o644)
}
