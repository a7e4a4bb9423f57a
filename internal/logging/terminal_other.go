//go:build !linux

package logging

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TIOCGETA
