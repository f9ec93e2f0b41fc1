package app

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/curvekit/curvekit/orders"
)

// Fault injection, for tests only: the hidden --fault flag (CURVEKIT_FAULT) arms one point of the
// process, and the first time the process reaches it, it kills itself (exit: SIGKILL, no clean
// up, as a crash) or stops itself (stop: SIGSTOP, frozen until SIGCONT, as a paused VM or a
// long GC pause). The multi-process tests use it to crash or freeze the indexer's leader at an
// exact step, which no signal from outside could hit. Unset, nothing is armed and the points
// cost a nil check.

// faultPoints are the points a fault may arm.
var faultPoints = []string{orders.FaultBeforeSend, orders.FaultAfterSend}

// fault is a parsed --fault.
type fault struct{ point, action string }

// parseFault reads "<point>:<action>"; empty is no fault.
func parseFault(s string) (fault, error) {
	if s == "" {
		return fault{}, nil
	}
	point, action, _ := strings.Cut(s, ":")
	if !slices.Contains(faultPoints, point) || (action != "exit" && action != "stop") {
		return fault{}, fmt.Errorf("--fault %q: want <point>:exit or <point>:stop, the point one of %s", s, strings.Join(faultPoints, ", "))
	}
	return fault{point: point, action: action}, nil
}

// faultHook is the hook of the armed point, or nil.
func (a *App) faultHook() func(point string) {
	f, err := parseFault(a.Config.Fault)
	if err != nil || f.point == "" {
		return nil
	}
	var once sync.Once
	return func(point string) {
		if point != f.point {
			return
		}
		once.Do(func() {
			a.Log.Warn("fault injected", "point", point, "action", f.action)
			if f.action == "stop" {
				if err := stopSelf(); err != nil {
					a.Log.Error("fault: stop", "err", err)
				}
				return
			}
			p, _ := os.FindProcess(os.Getpid()) // always found on unix and windows
			_ = p.Kill()
			select {} // the kill is under way
		})
	}
}
