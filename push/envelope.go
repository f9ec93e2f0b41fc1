package push

import (
	"encoding/json"
	"time"
)

// envelope is the body of every delivery and the data of every account stream event: the
// Standard Webhooks' recommended shape, with the event's id.
type envelope struct {
	ID        string          `json:"id"`
	Type      Type            `json:"type"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// Body encodes e as deliveries and the account stream carry it:
// {"id", "type", "timestamp" (RFC 3339, UTC), "data"}.
func Body(e *Event) []byte {
	data := e.Data
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	b, err := json.Marshal(envelope{ID: e.ID, Type: e.Type, Timestamp: e.Time.UTC().Format(time.RFC3339Nano), Data: data})
	if err != nil {
		// Data is JSON the sources encoded; only a source's bug gets here.
		b, _ = json.Marshal(envelope{ID: e.ID, Type: e.Type, Timestamp: e.Time.UTC().Format(time.RFC3339Nano), Data: json.RawMessage("{}")})
	}
	return b
}
