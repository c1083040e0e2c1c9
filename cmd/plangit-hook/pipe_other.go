//go:build unix && !linux

package main

import "syscall"

// pipeCapacity is what a pipe holds before a write waits, at the least
// (the BSDs and macOS start a pipe at 16 KB).
const pipeCapacity = 16 << 10

// dup2 makes newfd a copy of oldfd.
func dup2(oldfd, newfd int) error { return syscall.Dup2(oldfd, newfd) }
