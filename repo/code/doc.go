// Package code records the project's work tree beside a session's plan:
// a snapshot is a git tree of the files the project's git would see —
// tracked files and untracked files its ignore rules do not exclude —
// taken the way `git stash create` takes one, reading the project's index
// and never writing it: the project's index, HEAD, refs, stash, work tree
// and objects are left as they are.
//
// A session's snapshots live in a bare repository of their own inside the
// session's .git (the code store, .git/code), so that the plan's history
// stays small and fast, and so that nothing of them shows in the
// project's `git log --all`. Where the snapshot's objects come from:
//
//  1. A tracked file whose stat data matches its index entry (and is not
//     racily clean) is the index's blob; no byte of it is read.
//  2. Any other file (modified, untracked, added with intent) is read and
//     hashed, unless the code store's stat cache already holds its hash for
//     the same size, modification time and inode.
//  3. A blob the code store lacks is written there when plangit read it
//     (2), and otherwise borrowed from the project's object database by a
//     hard link: the loose object's file, or the whole pack holding it,
//     with its index. A link costs no space until the project's git
//     removes its own name for the file (a repack, a gc): the code store
//     then keeps the only copy, so `git gc --prune=now` in the project
//     never loses a snapshot's object. Where a link cannot be made (another
//     file system, a file system without links) the file is copied.
//  4. A file over the size limit that plangit would have to read (2) is
//     not captured: the snapshot names it and its size (Large), and its
//     path is left out of the tree.
//  5. Trees are computed in memory from the flat listing and written only
//     when the code store lacks them.
//
// Each snapshot is a commit in the code store whose first parent is the
// store's previous head, so that every snapshot the store ever took is
// reachable from refs/heads/snapshots and the store never needs a gc; a
// snapshot whose tree and large files equal the head's is the head again.
// Fetched heads are joined into it (Join). The plan's revision names its
// snapshot by the commit's hash (repo's Plangit-Code trailer).
package code
