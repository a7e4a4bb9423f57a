//go:build !linux

package main

// hideMemory does nothing where the process cannot be marked not dumpable
// (see the Linux version).
func hideMemory() error { return nil }
