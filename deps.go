//go:build tools

package curvekit

import (
	_ "github.com/ethereum/go-ethereum/ethclient/simulated"
	_ "github.com/go-redis/redis_rate/v10"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/holiman/uint256"
	_ "github.com/uptrace/bun"
	_ "github.com/uptrace/bun/dialect/pgdialect"
	_ "github.com/uptrace/bun/dialect/sqlitedialect"
	_ "github.com/uptrace/bun/driver/pgdriver"
	_ "github.com/uptrace/bunrouter"
	_ "modernc.org/sqlite"
)
