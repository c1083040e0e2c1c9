package disk

import "unsafe"

// ReadFileString is ReadFile as a string, without copying what it read:
// the bytes are the string's alone, for the hooks' files read on every
// call, the glance and the turn memory.
func ReadFileString(path string) (string, error) {
	b, err := ReadFile(path)
	return unsafe.String(unsafe.SliceData(b), len(b)), err
}
