package stream

import (
	"testing"

	"github.com/curvekit/curvekit/market"
)

// A follower that lost track of a reorganization (Sync.Rewound) resets every token stream and
// tells the global stream to refresh.
func TestFeedRewoundResetsEveryToken(t *testing.T) {
	e := newEnv(t, 100)
	a, b := newToken(1), newToken(2)
	subA, _ := e.hub.Subscribe(TokenTopic(a.Address))
	subB, _ := e.hub.Subscribe(TokenTopic(b.Address))
	global, _ := e.hub.Subscribe(GlobalTopic)
	defer subA.Close()
	defer subB.Close()
	defer global.Close()
	e.feed.Apply(market.Sync{Rewound: true, Cursor: market.Cursor{Block: 7}})
	for name, sub := range map[string]*Subscription{"a": subA, "b": subB} {
		msgs, _ := sub.Take(nil)
		if len(msgs) != 1 || msgs[0].Kind != KindReset || msgs[0].Reason != ReasonReorg {
			t.Errorf("token %s got %+v, want one reorg reset", name, msgs)
		}
	}
	if msgs, _ := global.Take(nil); len(msgs) != 1 || msgs[0].Kind != KindRefresh || msgs[0].Reason != ReasonReorg {
		t.Errorf("global got %+v, want one reorg refresh", msgs)
	}
}
