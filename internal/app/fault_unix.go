//go:build unix

package app

import "syscall"

// stopSelf freezes the process with SIGSTOP until someone sends it SIGCONT.
func stopSelf() error { return syscall.Kill(syscall.Getpid(), syscall.SIGSTOP) }
