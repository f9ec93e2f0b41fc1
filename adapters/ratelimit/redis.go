package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
)

var _ auth.Limiter = (*Redis)(nil)

// RedisConfig configures NewRedis. Set exactly one of Client and Addr.
type RedisConfig struct {
	// Client is a caller-owned client (single node, cluster or sentinel); Close leaves it open.
	Client redis.UniversalClient
	// Addr ("host:port", or a redis:// or rediss:// URL with a user, password and database)
	// makes a client that the limiter owns, with short timeouts and one retry: a limiter must
	// answer quickly or fail, so that the endpoint class's fail mode applies (go-redis's
	// defaults take about 1.7 s to give up on a Redis that is down).
	Addr string
	// Prefix goes before every key, after redis_rate's own "rate:": the TAT of key k lives at
	// "rate:" + Prefix + k. Default "curvekit:". Give each deployment or test its own.
	Prefix string
}

const defaultPrefix = "curvekit:"

// Timeouts of a client made from RedisConfig.Addr.
const (
	redisDialTimeout = 500 * time.Millisecond
	redisIOTimeout   = 250 * time.Millisecond
)

// Redis is a limiter on redis_rate v10: GCRA in a Lua script, with Redis TIME as the clock, so
// every server sharing the Redis shares the limits. It is safe for concurrent use.
type Redis struct {
	limiter *redis_rate.Limiter
	prefix  string
	owned   redis.UniversalClient // closed by Close; nil for a caller's client
}

// NewRedis returns a Redis limiter. It does no I/O: an unreachable Redis shows up as Allow errors.
func NewRedis(cfg RedisConfig) (*Redis, error) {
	switch {
	case cfg.Client != nil && cfg.Addr != "":
		return nil, fmt.Errorf("%w: ratelimit: set RedisConfig.Client or Addr, not both", curvekit.ErrInvalid)
	case cfg.Client == nil && cfg.Addr == "":
		return nil, fmt.Errorf("%w: ratelimit: RedisConfig needs Client or Addr", curvekit.ErrInvalid)
	}
	if cfg.Prefix == "" {
		cfg.Prefix = defaultPrefix
	}
	r := &Redis{prefix: cfg.Prefix}
	client := cfg.Client
	if client == nil {
		opt := &redis.Options{Addr: cfg.Addr}
		if strings.Contains(cfg.Addr, "://") {
			var err error
			if opt, err = redis.ParseURL(cfg.Addr); err != nil {
				// The error would quote the URL, password included.
				return nil, fmt.Errorf("%w: ratelimit: the Redis URL does not parse", curvekit.ErrInvalid)
			}
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = redisDialTimeout, redisIOTimeout, redisIOTimeout
		opt.MaxRetries, opt.DialerRetries = 1, 1
		client = redis.NewClient(opt)
		r.owned = client
	}
	r.limiter = redis_rate.NewLimiter(client)
	return r, nil
}

// Ping checks that Redis answers, so that a server can refuse to start on an address where
// nothing listens rather than fail every throttled request later.
func (r *Redis) Ping(ctx context.Context) error {
	if r.owned == nil {
		return nil // the caller's client is the caller's to check
	}
	if err := r.owned.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("ratelimit: Redis does not answer: %w", err)
	}
	return nil
}

// LogTo sends the Redis client's own log lines (reconnects, pool errors) to l at warn level,
// in the process's log format; the client is process-wide, so this applies to every client.
func LogTo(l *slog.Logger) { redis.SetLogger(slogLogging{l}) }

type slogLogging struct{ l *slog.Logger }

func (s slogLogging) Printf(ctx context.Context, format string, v ...any) {
	s.l.WarnContext(ctx, "redis: "+fmt.Sprintf(format, v...))
}

// Allow implements auth.Limiter.
func (r *Redis) Allow(ctx context.Context, key string, l auth.Limit) (auth.Decision, error) {
	if err := l.Validate(); err != nil {
		return auth.Decision{}, fmt.Errorf("ratelimit: %w", err)
	}
	res, err := r.limiter.Allow(ctx, r.prefix+key, redis_rate.Limit{Rate: l.Rate, Burst: l.Burst, Period: l.Period})
	if err != nil {
		return auth.Decision{}, fmt.Errorf("ratelimit: redis: %w", err)
	}
	return auth.Decision{
		Allowed:    res.Allowed > 0,
		Remaining:  res.Remaining,
		RetryAfter: max(res.RetryAfter, 0), // redis_rate says -1 when allowed
		ResetAfter: res.ResetAfter,
	}, nil
}

// Close closes the client that NewRedis made from Addr; a caller's client stays open.
func (r *Redis) Close() error {
	if r.owned == nil {
		return nil
	}
	return r.owned.Close()
}
