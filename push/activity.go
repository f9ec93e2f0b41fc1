package push

import "context"

// Activity records in an account's activity log what the server did to its webhooks on its own
// (the account settings service implements it through internal/app).
type Activity interface {
	WebhookDisabled(ctx context.Context, accountID, message string) error
}
