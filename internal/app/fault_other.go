//go:build !unix

package app

import "errors"

// stopSelf needs SIGSTOP, which this system lacks.
func stopSelf() error { return errors.New("fault: stop needs a unix system") }
