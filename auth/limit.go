package auth

import (
	"fmt"
	"time"

	"github.com/curvekit/curvekit"
)

// Limit is a GCRA limit: Rate calls per Period on average, with bursts of up to Burst calls.
// The constructors set Burst = Rate, so PerMinute(30) admits 30 calls at once and then one every
// two seconds; it is not a fixed window.
type Limit struct {
	Rate   int
	Burst  int
	Period time.Duration
}

// PerSecond returns rate calls per second, burst rate.
func PerSecond(rate int) Limit { return Every(rate, time.Second) }

// PerMinute returns rate calls per minute, burst rate.
func PerMinute(rate int) Limit { return Every(rate, time.Minute) }

// PerHour returns rate calls per hour, burst rate.
func PerHour(rate int) Limit { return Every(rate, time.Hour) }

// Every returns n calls per window, burst n: Every(10, 15*time.Minute) is ten sign-ins per quarter
// hour. GET /config serves the default class this way ("requests per window in seconds").
func Every(n int, window time.Duration) Limit {
	return Limit{Rate: n, Burst: n, Period: window}
}

// Validate reports a limit that no limiter can apply: Rate and Burst must be at least 1 and
// Period at least a microsecond (limiters keep microsecond time, as Redis TIME does).
func (l Limit) Validate() error {
	switch {
	case l.Rate < 1:
		return fmt.Errorf("%w: rate limit rate %d, want at least 1", curvekit.ErrInvalid, l.Rate)
	case l.Burst < 1:
		return fmt.Errorf("%w: rate limit burst %d, want at least 1", curvekit.ErrInvalid, l.Burst)
	case l.Period < time.Microsecond:
		return fmt.Errorf("%w: rate limit period %v, want at least 1µs", curvekit.ErrInvalid, l.Period)
	}
	return nil
}

// Interval is the time one call costs: Period/Rate. After a burst, calls are admitted one per
// Interval.
func (l Limit) Interval() time.Duration {
	if l.Rate < 1 {
		return 0
	}
	return l.Period / time.Duration(l.Rate)
}

// String returns e.g. "30 per 1m0s (burst 30)".
func (l Limit) String() string {
	return fmt.Sprintf("%d per %v (burst %d)", l.Rate, l.Period, l.Burst)
}

// Decision is a Limiter's answer for one call.
type Decision struct {
	// Allowed reports whether the call may proceed. A denied call consumed nothing.
	Allowed bool
	// Remaining is how many more calls would be admitted right now; 0 when denied.
	Remaining int
	// RetryAfter is how long until the next call would be admitted: zero when allowed.
	RetryAfter time.Duration
	// ResetAfter is how long until the key is back to a full burst.
	ResetAfter time.Duration
}

// Class names an endpoint class. Each class is throttled in its own buckets, keyed per caller.
type Class string

// The endpoint classes of SPEC section 8.
const (
	// ClassDefault covers every throttled route without a class of its own; its limit is the
	// global number that GET /config serves.
	ClassDefault Class = "default"
	// ClassSignIn covers GET /auth/login: 10 per 15 minutes.
	ClassSignIn Class = "sign-in"
	// ClassProviderSignIn covers the development identity provider's authorize endpoint, which
	// every sign-in through it also reaches: the same limit as ClassSignIn in a bucket of its
	// own, so that it does not halve SPEC 8's ten sign-ins.
	ClassProviderSignIn Class = "provider-sign-in"
	// ClassSigning covers POST /wallet/sign-and-submit: 30 per minute.
	ClassSigning Class = "signing"
	// ClassOrders covers placing and cancelling standing orders: 100 per 10 seconds (an
	// exchange's order rate), so a ladder of orders is placed at once. Placing is not signing:
	// each fire is signed later, under the wallet's own settings, and spends no request budget.
	ClassOrders Class = "orders"
	// ClassKeyExport covers POST /wallet/export-key: 3 per hour.
	ClassKeyExport Class = "key-export"
	// ClassExempt covers logo reads and public profiles: never throttled.
	ClassExempt Class = "exempt"
	// ClassUpload covers the launch uploads (image and metadata), which take disk space on the
	// pinning node: 60 per hour per caller, on top of nothing else.
	ClassUpload Class = "upload"
	// ClassExport covers the bulk exports of trades and candles (CSV, NDJSON), which stream a
	// token's whole history: 60 per hour per caller, on top of nothing else.
	ClassExport Class = "export"
	// ClassBadCredential counts, per client IP, the requests whose session cookie or API key
	// fails to authenticate, on top of their route's class: guessing keys is throttled.
	ClassBadCredential Class = "bad-credential"
	// ClassRefused counts the requests refused before their handler (a key used from outside its
	// allowedIps, a read-only key on a signing route, a credential of the wrong kind, a guarded
	// route without one), per refused key and per client IP. Refusals never spend the account's
	// own budgets, so a leaked restricted key cannot lock its owner out.
	ClassRefused Class = "refused"
)

// Arms reports whether c's routes sign with the account's wallet or arm it to sign (placing and
// cancelling orders): a read-only key is refused them, they are counted per account whichever
// credential asks, and their refusals go to the account's activity log.
func (c Class) Arms() bool { return c == ClassSigning || c == ClassOrders }

// Key returns the limiter key for subject (a wallet, an API key id, a client IP) in class c, so that
// classes never share a bucket.
func (c Class) Key(subject string) string { return string(c) + ":" + subject }

// Rule is how one class is throttled.
type Rule struct {
	Limit Limit
	// FailClosed denies calls when the limiter cannot decide (Redis down); otherwise they proceed
	// unthrottled. Closed suits the classes that guard credentials and money.
	FailClosed bool
}

// Policy maps endpoint classes to rules. ClassExempt is never throttled; a class without a rule
// falls back to ClassDefault, so a route with a misspelt class is throttled rather than exempt.
type Policy map[Class]Rule

// DefaultPolicy returns the limits of SPEC section 8 with global as the default class's limit.
// Sign-in, signing, orders and key export fail closed; the default class fails open.
func DefaultPolicy(global Limit) Policy {
	return Policy{
		ClassDefault:        {Limit: global},
		ClassSignIn:         {Limit: Every(10, 15*time.Minute), FailClosed: true},
		ClassProviderSignIn: {Limit: Every(10, 15*time.Minute), FailClosed: true},
		ClassSigning:        {Limit: PerMinute(30), FailClosed: true},
		ClassOrders:         {Limit: Every(100, 10*time.Second), FailClosed: true},
		ClassKeyExport:      {Limit: PerHour(3), FailClosed: true},
		ClassBadCredential:  {Limit: Every(30, 10*time.Minute), FailClosed: true},
		ClassRefused:        {Limit: Every(30, 10*time.Minute), FailClosed: true},
		ClassUpload:         {Limit: PerHour(60)},
		ClassExport:         {Limit: PerHour(60)},
	}
}

// Lookup returns the rule for class c, and false when c is exempt from throttling.
func (p Policy) Lookup(c Class) (Rule, bool) {
	if c == ClassExempt {
		return Rule{}, false
	}
	if r, ok := p[c]; ok {
		return r, true
	}
	return p[ClassDefault], true
}

// Validate checks that the policy has a default rule, that every limit is valid and that
// ClassExempt carries no rule (it would be ignored).
func (p Policy) Validate() error {
	if _, ok := p[ClassDefault]; !ok {
		return fmt.Errorf("%w: rate-limit policy has no %q class", curvekit.ErrInvalid, ClassDefault)
	}
	if _, ok := p[ClassExempt]; ok {
		return fmt.Errorf("%w: rate-limit policy has a rule for %q, which is never throttled", curvekit.ErrInvalid, ClassExempt)
	}
	for c, r := range p {
		if err := r.Limit.Validate(); err != nil {
			return fmt.Errorf("class %q: %w", c, err)
		}
	}
	return nil
}
