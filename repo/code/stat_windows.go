package code

import "os"

func inode(os.FileInfo) uint64 { return 0 }

// execBits says whether the file system keeps the executable bit: on
// Windows a file's mode is its index entry's.
const execBits = false
