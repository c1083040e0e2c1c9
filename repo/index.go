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
func (s *Session) readIndex() (map[string]plumbing.Hash, error) {
	b, err := os.ReadFile(filepath.Join(s.gitDir, indexName))
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

// writeIndex records files in the index with the working files' stat data,
// so that git sees the session directory as clean without rehashing it.
func (s *Session) writeIndex(files map[string][]byte) error {
	idx := &index.Index{Version: 2}
	for name, b := range files {
		e := &index.Entry{
			Name: name,
			Hash: plumbing.ComputeHash(plumbing.BlobObject, b),
			Mode: filemode.Regular,
			Size: uint32(len(b)),
		}
		if fi, err := os.Lstat(filepath.Join(s.Dir, name)); err == nil {
			e.ModifiedAt = fi.ModTime()
			fillStat(e, fi)
		}
		idx.Entries = append(idx.Entries, e)
	}
	var buf bytes.Buffer
	if err := index.NewEncoder(&buf).Encode(idx); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot encode the index")
	}
	return WriteFileAtomic(filepath.Join(s.gitDir, indexName), buf.Bytes(), 0o644, false)
}
