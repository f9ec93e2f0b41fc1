package stream

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// AccountEvents is what an account stream replays: the account's events in the order their
// commits numbered them. The push service implements it (internal/app adapts it).
type AccountEvents interface {
	// LastSeq is the number of the newest event of any account (0 when none).
	LastSeq(ctx context.Context) (int64, error)
	// Events returns the account's events numbered above after, oldest first, at most limit.
	Events(ctx context.Context, accountID string, after int64, limit int) ([]AccountEvent, error)
}

// AccountEvent is one event of an account.
type AccountEvent struct {
	Seq  int64
	Name string
	Data []byte
}

// MaxAccountResume is the most events a resumed account stream replays; an id further back gets
// a reset (reason too-old) and the stream goes on from the present.
const MaxAccountResume = 1000

// EventReady opens an account stream that replays nothing: its id is where the stream starts.
const EventReady = "ready"

// accountStream marks a Conn as an account's (Conn.ri).
const accountStream = -2

// Ready is the payload of the ready and reset events of an account stream.
type Ready struct {
	// Reason: connect (no Last-Event-ID), resume, unknown-id or too-old (the events since the
	// id are not replayed: read what changed from the API, then go on).
	Reason string `json:"reason"`
}

// Account opens the stream of an account's events: subscribes, then replays from the store what
// followed lastEventID (a resume), or nothing (a connect: a ready event whose id is the present).
// An id the server did not give, or further back than MaxAccountResume events, is answered with
// a reset event instead of a replay; the stream goes on from the present. Live events the replay
// included are skipped, so the boundary has neither a gap nor a duplicate.
func (s *Service) Account(ctx context.Context, accountID, lastEventID string) (*Conn, error) {
	src := s.cfg.Accounts
	if src == nil {
		return nil, errors.New("stream: no account events")
	}
	sub, _ := s.cfg.Hub.Subscribe(AccountTopic(accountID))
	c := &Conn{s: s, sub: sub, ri: accountStream}
	first, err := c.openAccount(ctx, src, accountID, lastEventID)
	if err != nil {
		sub.Close()
		return nil, err
	}
	c.first = first
	return c, nil
}

func (c *Conn) openAccount(ctx context.Context, src AccountEvents, accountID, lastEventID string) ([]Event, error) {
	// Read after subscribing: whatever the tail publishes from now on is either in this read
	// (skipped live) or after it.
	last, err := src.LastSeq(ctx)
	if err != nil {
		return nil, fmt.Errorf("stream: account events: %w", err)
	}
	ready := func(name, reason string) ([]Event, error) {
		c.since = last
		data := []byte(`{"reason":"` + reason + `"}`)
		return []Event{{Name: name, ID: strconv.FormatInt(last, 10), Data: data}}, nil
	}
	if lastEventID == "" {
		return ready(EventReady, ReasonConnect)
	}
	after, err := strconv.ParseInt(lastEventID, 10, 64)
	if err != nil || after < 0 || after > last || !digits(lastEventID) && lastEventID != "0" {
		return ready(EventReset, ReasonUnknownID)
	}
	evs, err := src.Events(ctx, accountID, after, MaxAccountResume+1)
	if err != nil {
		return nil, fmt.Errorf("stream: account events: %w", err)
	}
	if len(evs) > MaxAccountResume {
		return ready(EventReset, ReasonTooOld)
	}
	out := make([]Event, 0, len(evs)+1)
	out = append(out, Event{Name: EventReady, Data: []byte(`{"reason":"` + ReasonResume + `"}`)})
	c.since = after
	for _, e := range evs {
		if e.Seq > last {
			break // committed after the read of last: the live side sends it
		}
		out = append(out, Event{Name: e.Name, ID: strconv.FormatInt(e.Seq, 10), Data: e.Data})
		c.since = e.Seq
	}
	// The client holds everything up to last now (the account had nothing more by then).
	out[len(out)-1].ID = strconv.FormatInt(last, 10)
	c.since = last
	return out, nil
}

// accountEvent appends what m means for an account stream: an event newer than what it sent.
func (c *Conn) accountEvent(evs []Event, m *Message) []Event {
	if m.Kind != KindEvent || m.Seq <= c.since {
		return evs
	}
	c.since = m.Seq
	return append(evs, Event{Name: m.Name, ID: m.IDText, Data: m.Data})
}
