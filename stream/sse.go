package stream

import "bytes"

// Event is one server-sent event.
type Event struct {
	// Name is the event type: bar, trade, reset, tick or refresh.
	Name string
	// ID is the event id; empty writes no id field, and the client keeps the id it had.
	ID string
	// ClearID writes an empty id field instead: the client forgets its id, and reconnects without
	// Last-Event-ID. Full resets set it, so that a client cut off during the rebuild does not
	// resume from an id that no longer describes what it holds.
	ClearID bool
	// Data is the payload, a single line of JSON.
	Data []byte
}

// Event names.
const (
	EventBar     = "bar"
	EventTrade   = "trade"
	EventReset   = "reset"
	EventTick    = "tick"
	EventRefresh = "refresh"
	EventKing    = "king"
)

// AppendEvent appends e in the text/event-stream format: an id field when e has one, the event
// name, the data and the blank line that dispatches the event. A newline inside Data (the codec
// writes none) is split over several data fields, as the format requires.
func AppendEvent(dst []byte, e *Event) []byte {
	switch {
	case e.ID != "":
		dst = append(dst, "id: "...)
		dst = append(dst, e.ID...)
		dst = append(dst, '\n')
	case e.ClearID:
		dst = append(dst, "id:\n"...)
	}
	dst = append(dst, "event: "...)
	dst = append(dst, e.Name...)
	dst = append(dst, '\n')
	data := e.Data
	for {
		line := data
		i := bytes.IndexByte(data, '\n')
		if i >= 0 {
			line = data[:i]
		}
		dst = append(dst, "data: "...)
		dst = append(dst, line...)
		dst = append(dst, '\n')
		if i < 0 {
			break
		}
		data = data[i+1:]
	}
	return append(dst, '\n')
}

// Heartbeat is the comment line a stream sends when idle, so that proxies and clients see the
// connection alive; clients ignore it.
const Heartbeat = ": ping\n\n"
