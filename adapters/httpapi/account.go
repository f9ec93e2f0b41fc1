package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/auth"
)

// accountRoutes are the account's settings and activity, routed when the server has an Account
// service. A key reads its account's settings; only a session changes them.
func (s *Server) accountRoutes() []group {
	if s.cfg.Account == nil {
		return nil
	}
	return []group{{prefix: "/account", routes: []route{
		{method: http.MethodGet, path: "/settings", access: SessionOrKey, class: auth.ClassDefault, handle: s.getSettings},
		{method: http.MethodPatch, path: "/settings", access: Session, class: auth.ClassDefault, handle: s.patchSettings},
		{method: http.MethodGet, path: "/activity", access: SessionOrKey, class: auth.ClassDefault, handle: s.listActivity},
	}}}
}

// settingsPatchBody is a JSON Merge Patch (RFC 7396) of the settings: any part of them, where
// null removes a value (back to its default). The account service validates it whole.
type settingsPatchBody struct{}

// GET /account/settings
func (s *Server) getSettings(w http.ResponseWriter, req bunrouter.Request) error {
	st, err := s.cfg.Account.Settings(req.Context(), principalOf(req).AccountID)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, st)
}

// PATCH /account/settings: a merge patch, answered with the settings after it.
func (s *Server) patchSettings(w http.ResponseWriter, req bunrouter.Request) error {
	p := principalOf(req)
	raw, err := readBody(w, req.Request, defaultMaxBody)
	if err != nil {
		return err
	}
	st, err := s.cfg.Account.Update(req.Context(), account.UpdateParams{AccountID: p.AccountID, Patch: raw, Actor: actorOf(p)})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, st)
}

// actorOf is the principal as the account service names who acted.
func actorOf(p *auth.Principal) account.Actor {
	if p.Kind == auth.KindKey {
		return account.Actor{KeyID: p.KeyID}
	}
	return account.Actor{SignedInAt: p.SignedInAt}
}

// activityJSON is one entry of the account's activity log.
type activityJSON struct {
	ID string `json:"id"`
	// At is Unix seconds.
	At   int64  `json:"at"`
	Kind string `json:"kind" enum:"settings,refusal,webhook"`
	// Code is the refusal's code; null for a change.
	Code    *string  `json:"code"`
	Message string   `json:"message"`
	Actor   string   `json:"actor"`
	Changes []string `json:"changes"`
}

// activityOf is an entry as GET /account/activity lists it.
func activityOf(e *account.Activity) activityJSON {
	a := activityJSON{ID: e.ID, At: e.At.Unix(), Kind: string(e.Kind), Message: e.Message, Actor: e.Actor, Changes: e.Changes}
	if e.Code != "" {
		code := e.Code
		a.Code = &code
	}
	if a.Changes == nil {
		a.Changes = []string{}
	}
	return a
}

// settingsChangedJSON is settings.changed's payload: the settings as GET /account/settings
// shows them after the change, and the change's entry as GET /account/activity lists it.
type settingsChangedJSON struct {
	Settings account.Settings `json:"settings"`
	Activity activityJSON     `json:"activity"`
}

type activityListJSON struct {
	Activity   []activityJSON `json:"activity"`
	NextCursor *string        `json:"nextCursor"`
}

// GET /account/activity
func (s *Server) listActivity(w http.ResponseWriter, req bunrouter.Request) error {
	q := newQuery(req.URL)
	cursor := q.str("cursor", "")
	limit := int(q.intIn("limit", 50, 1, account.MaxActivity))
	if err := q.err(); err != nil {
		return err
	}
	page, err := s.cfg.Account.Activity(req.Context(), principalOf(req).AccountID, cursor, limit)
	if err != nil {
		return err
	}
	out := activityListJSON{Activity: make([]activityJSON, len(page.Entries)), NextCursor: cursorOrNull(page.Next)}
	for i := range page.Entries {
		out.Activity[i] = activityOf(&page.Entries[i])
	}
	return writeJSON(w, http.StatusOK, out)
}

// logRefusal appends a refusal of the signing path that the pipeline made (a read-only key, an
// address outside allowedIps, the key's recipients) to the account's activity log, as the wallet
// appends its own.
func (s *Server) logRefusal(r *http.Request, rt *route, p *auth.Principal, err error) {
	code := curvekit.CodeOf(err)
	if s.cfg.Account == nil || p == nil || !rt.class.Arms() || code == "" {
		return
	}
	if rerr := s.cfg.Account.RecordRefusal(context.WithoutCancel(r.Context()), p.AccountID, actorOf(p), code, clientMessage(err)); rerr != nil {
		s.log.ErrorContext(r.Context(), "httpapi: record a refusal", slog.String("code", string(code)), slog.Any("error", rerr))
	}
}
