// Package ratelimit implements auth.Limiter twice with one algorithm: Memory, an in-process GCRA
// for single-server deployments and tests, and Redis, on github.com/go-redis/redis_rate v10, for
// limits shared by several servers.
//
// Memory evaluates the same double-precision expressions as redis_rate's Lua script, in the same
// order, on a clock rounded down to microseconds as Redis TIME is, and converts durations the way
// redis_rate reads them back. Given the same clock it returns the same decisions, field for field:
// limitertest runs one suite on both, and TestMemoryMatchesRedis drives Memory from Redis's own
// clock over a randomized sequence of calls and compares every decision.
//
// Sharing the script's arithmetic means sharing its resolution: times are seconds since 2017 in a
// double, a grid of 2^-24 s (60 ns) until 2034. Intervals (Period/Rate) that are whole seconds are
// exact. Others round by up to 30 ns per call, so a burst taken at one frozen instant (a test
// clock) can come up one call short; a real clock moves on between calls and hides the error
// unless calls on one key share a microsecond. Redis and Memory round alike either way.
package ratelimit
