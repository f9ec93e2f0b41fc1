package account

import "github.com/curvekit/curvekit/push"

// Notifier turns a change of an account's settings into the events it causes (settings.changed):
// st is the settings as the change leaves them (what GET /account/settings shows after it), a
// the activity entry that records it. The store records what SettingsEvents returns in the
// transaction that saves the change (SaveParams.Events), so no change is committed without its
// events; ids must be stable (the account and the version). Committed is told after such a
// commit; it must not block. The push service's source implements it.
type Notifier interface {
	SettingsEvents(st *Settings, a *Activity) []push.Event
	Committed()
}
