package main

import "syscall"

// pipeCapacity is what a pipe holds before a write waits (Linux: 16 pages).
const pipeCapacity = 64 << 10

// dup2 makes newfd a copy of oldfd.
func dup2(oldfd, newfd int) error { return syscall.Dup3(oldfd, newfd, 0) }
