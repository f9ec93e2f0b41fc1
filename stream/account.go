package stream

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/curvekit/curvekit"
)

// AccountEvents is what an account stream replays: the account's events by their numbers. The
// push service implements it (internal/app adapts it).
type AccountEvents interface {
	// Position is the number up to which every account event has been published on the hub's
	// account topics in this process (the tail's position).
	Position(ctx context.Context) (int64, error)
	// LastSeq is the number of the newest event recorded, by any process (0 when none).
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

// DefaultMaxAccountStreams is how many account streams one account may have open in one process
// at once unless Config.MaxAccountStreams says otherwise: enough for every tab and bot of a
// person, few enough that one leaked credential cannot hold a server's connections.
const DefaultMaxAccountStreams = 16

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
// An account has at most Config.MaxAccountStreams open in this process: one more is refused
// with curvekit.ErrLimited (coded CodeRateLimited) before anything is sent.
// An id the server did not give, or further back than MaxAccountResume events, is answered with
// a reset event instead of a replay; the stream goes on from the present. Live events the replay
// included are skipped, so the boundary has neither a gap nor a duplicate.
func (s *Service) Account(ctx context.Context, accountID, lastEventID string) (*Conn, error) {
	src := s.cfg.Accounts
	if src == nil {
		return nil, errors.New("stream: no account events")
	}
	sub, _, ok := s.cfg.Hub.SubscribeAtMost(AccountTopic(accountID), s.cfg.MaxAccountStreams)
	if !ok {
		return nil, curvekit.WithCode(curvekit.CodeRateLimited, fmt.Errorf("%w: this account has %d streams open on this server, the most it may; close one first",
			curvekit.ErrLimited, s.cfg.MaxAccountStreams))
	}
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
	// Read after subscribing: every event above pos is published on the topic from now on, so
	// the live side sends it; every event up to pos is in the store to replay.
	pos, err := src.Position(ctx)
	if err != nil {
		return nil, fmt.Errorf("stream: account events: %w", err)
	}
	open := func(name, reason string, at int64) ([]Event, error) {
		c.since = at
		return []Event{{Name: name, ID: strconv.FormatInt(at, 10), Data: []byte(`{"reason":"` + reason + `"}`)}}, nil
	}
	if lastEventID == "" {
		return open(EventReady, ReasonConnect, pos)
	}
	after, err := strconv.ParseInt(lastEventID, 10, 64)
	if err != nil || after < 0 || !digits(lastEventID) {
		return open(EventReset, ReasonUnknownID, pos)
	}
	if after > pos {
		// Another process gave the id and this one's tail has not reached it yet: it will, and
		// the live side sends what follows the id.
		newest, err := src.LastSeq(ctx)
		if err != nil {
			return nil, fmt.Errorf("stream: account events: %w", err)
		}
		if after > newest {
			return open(EventReset, ReasonUnknownID, pos)
		}
		return open(EventReady, ReasonResume, after)
	}
	evs, err := src.Events(ctx, accountID, after, MaxAccountResume+1)
	if err != nil {
		return nil, fmt.Errorf("stream: account events: %w", err)
	}
	if len(evs) > MaxAccountResume {
		return open(EventReset, ReasonTooOld, pos)
	}
	out := make([]Event, 0, len(evs)+1)
	out = append(out, Event{Name: EventReady, Data: []byte(`{"reason":"` + ReasonResume + `"}`)})
	for _, e := range evs {
		if e.Seq > pos {
			break // the live side sends it
		}
		out = append(out, Event{Name: e.Name, ID: strconv.FormatInt(e.Seq, 10), Data: e.Data})
	}
	// The client holds everything of its account up to pos now.
	out[len(out)-1].ID = strconv.FormatInt(pos, 10)
	c.since = pos
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
