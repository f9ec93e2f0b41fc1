package apiclient

import (
	"context"

	"github.com/curvekit/curvekit/account"
)

// AccountSettings reads the account's settings: the wallet's guard and the agent profile (API key).
func (c *Client) AccountSettings(ctx context.Context) (account.Settings, error) {
	var out account.Settings
	if err := c.needKey(); err != nil {
		return out, err
	}
	return out, c.get(ctx, "/account/settings", nil, &out)
}

// ActivityEntry is a change of the settings or a refusal of the wallet's guard.
type ActivityEntry struct {
	ID      string   `json:"id"`
	At      int64    `json:"at"`
	Kind    string   `json:"kind"`
	Code    *string  `json:"code"`
	Message string   `json:"message"`
	Actor   string   `json:"actor"`
	Changes []string `json:"changes"`
}

// ActivityPage is a page of the account's activity, newest first.
type ActivityPage struct {
	Activity   []ActivityEntry `json:"activity"`
	NextCursor *string         `json:"nextCursor"`
}

// Activity reads a page of the account's activity log (API key); limit 0 is the server's default.
func (c *Client) Activity(ctx context.Context, cursor string, limit int) (ActivityPage, error) {
	var out ActivityPage
	if err := c.needKey(); err != nil {
		return out, err
	}
	q := pageQuery(cursor, limit)
	return out, c.get(ctx, "/account/activity", q, &out)
}
