package push

import "context"

// Client posts a signed delivery to a receiver and reads the start of its answer. The adapter
// (adapters/webhook) refuses destinations that are not public, follows no redirect, and gives up
// after its timeout; an error is an attempt without an answer.
type Client interface {
	Post(ctx context.Context, url string, m *Message) (Response, error)
	// Check refuses, with an error wrapping curvekit.ErrInvalid, a URL the client would never
	// post to (its scheme, or a destination that is not public as it resolves now).
	Check(ctx context.Context, url string) error
}

// Message is one signed attempt: the Standard Webhooks headers and the body.
type Message struct {
	// ID is webhook-id: the event's id, the same on every attempt and replay.
	ID string
	// Timestamp is webhook-timestamp, Unix seconds of this attempt.
	Timestamp int64
	// Signature is webhook-signature.
	Signature string
	Body      []byte
}

// Response is what the receiver answered.
type Response struct {
	Status int
	// Body is the start of the answer, as much as the client reads.
	Body []byte
}
