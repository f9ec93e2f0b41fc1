package auth_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
)

func TestLimitConstructors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		got      auth.Limit
		want     auth.Limit
		interval time.Duration
	}{
		{auth.PerSecond(5), auth.Limit{Rate: 5, Burst: 5, Period: time.Second}, 200 * time.Millisecond},
		{auth.PerMinute(30), auth.Limit{Rate: 30, Burst: 30, Period: time.Minute}, 2 * time.Second},
		{auth.PerHour(3), auth.Limit{Rate: 3, Burst: 3, Period: time.Hour}, 20 * time.Minute},
		{auth.Every(10, 15*time.Minute), auth.Limit{Rate: 10, Burst: 10, Period: 15 * time.Minute}, 90 * time.Second},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %+v, want %+v", tt.got, tt.want)
		}
		if err := tt.got.Validate(); err != nil {
			t.Errorf("%v: %v", tt.got, err)
		}
		if iv := tt.got.Interval(); iv != tt.interval {
			t.Errorf("%v: Interval %v, want %v", tt.got, iv, tt.interval)
		}
	}
	if s := auth.PerMinute(30).String(); s != "30 per 1m0s (burst 30)" {
		t.Errorf("String() = %q", s)
	}
}

func TestLimitValidate(t *testing.T) {
	t.Parallel()
	for _, l := range []auth.Limit{
		{},
		{Rate: 0, Burst: 1, Period: time.Second},
		{Rate: 1, Burst: 0, Period: time.Second},
		{Rate: -1, Burst: 1, Period: time.Second},
		{Rate: 1, Burst: 1, Period: 0},
		{Rate: 1, Burst: 1, Period: -time.Second},
		{Rate: 1, Burst: 1, Period: time.Nanosecond},
	} {
		if err := l.Validate(); !errors.Is(err, curvekit.ErrInvalid) {
			t.Errorf("Validate(%+v) = %v, want ErrInvalid", l, err)
		}
	}
	if iv := (auth.Limit{}).Interval(); iv != 0 {
		t.Errorf("zero limit Interval = %v", iv)
	}
}

func TestDefaultPolicy(t *testing.T) {
	t.Parallel()
	global := auth.Every(100, time.Minute)
	p := auth.DefaultPolicy(global)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		class     auth.Class
		want      auth.Rule
		throttled bool
	}{
		{auth.ClassDefault, auth.Rule{Limit: global}, true},
		{auth.ClassSignIn, auth.Rule{Limit: auth.Every(10, 15*time.Minute), FailClosed: true}, true},
		{auth.ClassSigning, auth.Rule{Limit: auth.PerMinute(30), FailClosed: true}, true},
		{auth.ClassOrders, auth.Rule{Limit: auth.Every(100, 10*time.Second), FailClosed: true}, true},
		{auth.ClassKeyExport, auth.Rule{Limit: auth.PerHour(3), FailClosed: true}, true},
		{auth.ClassExempt, auth.Rule{}, false},
		// Unknown classes are throttled as default, never exempt.
		{auth.Class("sign_in"), auth.Rule{Limit: global}, true},
	}
	for _, tt := range tests {
		got, throttled := p.Lookup(tt.class)
		if throttled != tt.throttled {
			t.Errorf("%q: throttled %v, want %v", tt.class, throttled, tt.throttled)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.class, diff)
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	t.Parallel()
	noDefault := auth.DefaultPolicy(auth.PerMinute(60))
	delete(noDefault, auth.ClassDefault)
	withExempt := auth.DefaultPolicy(auth.PerMinute(60))
	withExempt[auth.ClassExempt] = auth.Rule{Limit: auth.PerSecond(1)}
	badLimit := auth.DefaultPolicy(auth.PerMinute(60))
	badLimit[auth.ClassSigning] = auth.Rule{Limit: auth.PerMinute(0)}
	for name, p := range map[string]auth.Policy{
		"no default":      noDefault,
		"exempt has rule": withExempt,
		"bad limit":       badLimit,
		"global invalid":  auth.DefaultPolicy(auth.Limit{}),
	} {
		if err := p.Validate(); !errors.Is(err, curvekit.ErrInvalid) {
			t.Errorf("%s: Validate = %v, want ErrInvalid", name, err)
		}
	}
}

func TestClassKey(t *testing.T) {
	t.Parallel()
	if a, b := auth.ClassSignIn.Key("1.2.3.4"), auth.ClassSigning.Key("1.2.3.4"); a == b {
		t.Fatalf("classes share a key: %q", a)
	}
	if k := auth.ClassKeyExport.Key("w1"); k != "key-export:w1" {
		t.Fatalf("Key = %q", k)
	}
}
