package disk

// FilesKey names the working files in the clean directory dir as they
// stand: each one's name and FileKey.
func FilesKey(dir string, files []string) string {
	return string(AppendFilesKey(make([]byte, 0, 64*len(files)), dir, files))
}

// AppendFilesKey appends FilesKey(dir, files) to b.
func AppendFilesKey(b []byte, dir string, files []string) []byte {
	for _, name := range files {
		b = AppendFileKey(append(append(b, name...), ':'), under(dir, name))
		b = append(b, ';')
	}
	return b
}

// FileKey identifies a file's version without reading it: its size,
// modification time and (where the system has them) inode, device and
// change time; "-" when it does not exist. Every change plangit makes
// writes a file anew, so its times move, as an editor's change moves
// them.
func FileKey(path string) string { return string(AppendFileKey(nil, path)) }
