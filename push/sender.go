package push

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/curvekit/curvekit"
)

// Run sends due deliveries until ctx ends: it claims at most as many as it has free workers
// (so memory does not grow with a slow or dead receiver; the rest waits in the store), sends
// each, records the outcome, and sleeps until woken (Publish, Replay, Test) or Config.Poll.
// Every replica may run it: a claim makes each attempt one replica's.
func (s *Service) Run(ctx context.Context) error {
	if s.cfg.Holder == "" {
		return errors.New("push: a sender needs a Holder")
	}
	free := make(chan struct{}, s.cfg.Workers)
	for range s.cfg.Workers {
		free <- struct{}{}
	}
	freed := make(chan struct{}, 1) // a worker came free
	var running sync.WaitGroup
	defer running.Wait()
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	for ctx.Err() == nil {
		n := len(free)
		var got []Claimed
		if n > 0 {
			now := s.cfg.Now().UTC()
			var err error
			got, err = s.cfg.Store.ClaimDeliveries(ctx, ClaimParams{Holder: s.cfg.Holder, Now: now, Until: now.Add(s.cfg.Claim), Limit: n})
			if err != nil && ctx.Err() == nil {
				s.cfg.Logger.Warn("push: claim deliveries", "err", err)
			}
		}
		for i := range got {
			<-free
			c := got[i]
			running.Go(func() {
				defer func() {
					free <- struct{}{}
					select {
					case freed <- struct{}{}:
					default:
					}
				}()
				s.deliver(ctx, &c)
			})
		}
		if n > 0 && len(got) == n {
			continue // more may be due
		}
		select {
		case <-ctx.Done():
		case <-s.wake:
			if n == 0 {
				s.Wake() // keep the news until a worker is free to act on it
				select {
				case <-ctx.Done():
				case <-freed:
				}
			}
		case <-t.C:
		case <-freed:
		}
	}
	return nil
}

// SendOnce claims and sends, one after another, what is due now; tests call it.
func (s *Service) SendOnce(ctx context.Context) (int, error) {
	now := s.cfg.Now().UTC()
	got, err := s.cfg.Store.ClaimDeliveries(ctx, ClaimParams{Holder: s.cfg.Holder, Now: now, Until: now.Add(s.cfg.Claim), Limit: s.cfg.Workers})
	if err != nil {
		return 0, err
	}
	for i := range got {
		s.deliver(ctx, &got[i])
	}
	return len(got), nil
}

// deliver makes one attempt of c and records it.
func (s *Service) deliver(ctx context.Context, c *Claimed) {
	sub := &c.Subscription
	log := s.cfg.Logger.With("webhook", sub.ID, "delivery", c.Delivery.ID, "event", c.Event.ID)
	start := s.cfg.Now()
	at := Attempt{N: c.Delivery.Count + 1, At: start.UTC()}
	resp, err := s.post(ctx, c, start)
	at.Latency = s.cfg.Now().Sub(start)
	if ctx.Err() != nil {
		return // shutting down: the claim lapses and the attempt is made again
	}
	p := FinishParams{DeliveryID: c.Delivery.ID, Holder: s.cfg.Holder}
	switch {
	case err != nil:
		at.Error = err.Error()
	default:
		at.Status = resp.Status
		at.Response = printable(resp.Body, MaxResponseLog)
	}
	now := s.cfg.Now().UTC()
	switch {
	case err == nil && resp.Status >= 200 && resp.Status < 300:
		p.State = DeliverySucceeded
	case err == nil && resp.Status == 410:
		p.State, p.Failed, p.Disable = DeliveryFailed, true, "the receiver answered 410 Gone"
	default:
		p.Failed = true
		if err == nil {
			at.Error = fmt.Sprintf("the receiver answered %d", resp.Status)
		}
		if tries := c.Delivery.Tries; tries < len(s.cfg.Retries) {
			p.State, p.NextAt = DeliveryPending, now.Add(s.cfg.Retries[tries])
		} else {
			p.State = DeliveryFailed
		}
		if !sub.FailingSince.IsZero() && now.Sub(sub.FailingSince) >= s.cfg.FailingLimit {
			p.State, p.Disable = DeliveryFailed, fmt.Sprintf("deliveries failed for %s without a success", s.cfg.FailingLimit)
		}
	}
	p.Attempt = at
	if p.Disable != "" {
		p.Events = []Event{disabledEvent(sub, p.Disable, now)}
	}
	// The attempt was made: record it even if the sender is stopping meanwhile.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.cfg.Store.FinishAttempt(rctx, p); err != nil {
		if !errors.Is(err, curvekit.ErrConflict) {
			log.Warn("push: record attempt", "err", err)
		}
		return
	}
	if p.Disable != "" {
		log.Info("push: webhook disabled", "why", p.Disable)
		// The activity log first: a client that hears the event and reads the log finds it there.
		s.noteDisabled(ctx, sub, p.Disable)
		s.Committed()
	}
}

// post signs and sends one attempt.
func (s *Service) post(ctx context.Context, c *Claimed, now time.Time) (Response, error) {
	sub := &c.Subscription
	secrets := make([]string, 0, 2)
	cur, err := open(ctx, s.cfg.Keys, sub.ID, &sub.Secret)
	if err != nil {
		return Response{}, errors.New("the signing secret could not be opened")
	}
	secrets = append(secrets, cur)
	if !sub.Previous.IsZero() && now.Before(sub.PreviousUntil) {
		if prev, err := open(ctx, s.cfg.Keys, sub.ID, &sub.Previous); err == nil {
			secrets = append(secrets, prev)
		}
	}
	body := Body(&c.Event)
	m := &Message{ID: c.Event.ID, Timestamp: now.Unix(), Body: body}
	if m.Signature, err = Sign(m.ID, m.Timestamp, body, secrets...); err != nil {
		return Response{}, err
	}
	return s.cfg.Client.Post(ctx, sub.URL, m)
}

// disabledEvent is WebhookDisabled for the subscription's account: FinishAttempt records it with
// the disabling, in one transaction, and the account's stream and its other webhooks that ask
// for it hear it.
func disabledEvent(sub *Subscription, why string, now time.Time) Event {
	data, _ := json.Marshal(map[string]string{"webhook": sub.ID, "url": sub.URL, "reason": why})
	return Event{ID: fmt.Sprintf("evt_webhook.disabled_%s_%d", sub.ID, now.UnixNano()), Type: WebhookDisabled, Time: now, Account: sub.AccountID, Data: data}
}

// noteDisabled records in the account's activity log that the subscription was disabled.
func (s *Service) noteDisabled(ctx context.Context, sub *Subscription, why string) {
	if s.cfg.Activity == nil {
		return
	}
	msg := fmt.Sprintf("webhook %s (%s) disabled: %s", sub.ID, sub.URL, why)
	if err := s.cfg.Activity.WebhookDisabled(ctx, sub.AccountID, msg); err != nil {
		s.cfg.Logger.Warn("push: record a disabled webhook in the activity log", "webhook", sub.ID, "err", err)
	}
}

// printable returns the first max bytes of b as valid UTF-8 text.
func printable(b []byte, max int) string {
	if len(b) > max {
		b = b[:max]
	}
	return string([]rune(string(b)))
}
