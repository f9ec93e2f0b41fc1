package app

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/internal/redact"
)

// Config is every setting of the reference server. Each field is a flag and an environment
// variable of the same meaning (--db is CURVEKIT_DB); a flag on the command line wins, and a value
// that does not parse is an error wherever it comes from. The kong tags are the single source of
// names, defaults and help.
type Config struct {
	Addr           string        `help:"Listen address of the API." default:"127.0.0.1:8080" env:"CURVEKIT_ADDR"`
	DB             string        `help:"A SQLite path (or file: URI) or a postgres:// DSN; other schemes are refused." default:"curvekit.db" env:"CURVEKIT_DB"`
	DBConns        int           `name:"db-conns" help:"Connections to the database, opened at start and kept; on PostgreSQL half as many again for the agent's quick writes. 0: 10 for PostgreSQL, 4 for a SQLite file." env:"CURVEKIT_DB_CONNS"`
	Redis          string        `help:"Redis for rate limits: host:port, or a redis:// (rediss://) URL with a user, password and database; in memory without it." env:"CURVEKIT_REDIS"`
	RedisPrefix    string        `name:"redis-prefix" help:"Prefix of every rate-limit key in Redis: deployments (or test runs) sharing one Redis give each its own." default:"curvekit:" env:"CURVEKIT_REDIS_PREFIX"`
	RPCURL         string        `name:"rpc-url" help:"JSON-RPC URL of a real chain, or several separated by commas (endpoints of one provider or of several): calls go to the healthiest endpoint that has the block they need and fail over; a ws:// or wss:// endpoint also announces new heads, which the indexer syncs on at once; without it, the in-process devnet." env:"CURVEKIT_RPC_URL"`
	Head           string        `help:"The block the indexer follows on a real chain: latest, or safe or finalized where the node has them (--confirmations counts back from it)." enum:"latest,safe,finalized" default:"latest" env:"CURVEKIT_HEAD"`
	Chain          string        `name:"chain" type:"path" help:"A chain profile (curvekit deploy --out chain.json) in place of --rpc-url, --factory, --router and --start-block; checked against the node at start." env:"CURVEKIT_CHAIN"`
	Factory        string        `help:"LaunchFactory address on the real chain." env:"CURVEKIT_FACTORY"`
	Router         string        `help:"Router address on the real chain." env:"CURVEKIT_ROUTER"`
	DevnetDir      string        `help:"Directory of the devnet's chain; default <db>.devnet beside a SQLite file, curvekit-<database name>.devnet in the working directory for a postgres:// DSN, in memory for in-memory SQLite." env:"CURVEKIT_DEVNET_DIR"`
	DevnetRPCAddr  string        `name:"devnet-rpc-addr" help:"Serve the devnet's Ethereum JSON-RPC (eth, net, web3 over HTTP and WebSocket; chain id 1337) on this address, e.g. 127.0.0.1:8545, for wallets, cast and curvekit deploy; what they send is mined as --devnet-blocks says, within a second by default. Off without it." env:"CURVEKIT_DEVNET_RPC_ADDR"`
	DevnetBlocks   string        `name:"devnet-blocks" help:"How the devnet seals blocks: clock keeps block times with the wall clock, as a chain that seals on a period does (a transaction is sealed at once while the wall clock is past the head's time, else with every other pending one when it reaches the next second); instant seals each at once into a block of its own, a second after its parent at least, so that tests need not wait, and lets the chain's clock run ahead." enum:"clock,instant" default:"clock" env:"CURVEKIT_DEVNET_BLOCKS"`
	StartBlock     uint64        `help:"First block to index on an empty store: the factory's deployment block." env:"CURVEKIT_START_BLOCK"`
	Confirmations  uint64        `help:"Blocks the indexer stays behind the head." env:"CURVEKIT_CONFIRMATIONS"`
	Simulate       time.Duration `help:"Interval of simulated devnet trades; 0 turns them off." default:"2s" env:"CURVEKIT_SIMULATE"`
	Poll           time.Duration `help:"Indexer poll interval: the fallback where the chain announces new heads (a ws:// or wss:// endpoint in --rpc-url, the devnet), on each of which the indexer syncs at once." default:"500ms" env:"CURVEKIT_POLL"`
	MaxFeeGwei     float64       `name:"max-fee-gwei" help:"Ceiling of the custodial wallets' fee cap, in gwei per gas: a send that needs more (base fee plus tip) is refused, and no replacement goes above it. 0: no ceiling." env:"CURVEKIT_MAX_FEE_GWEI"`
	ReplaceAfter   uint64        `name:"replace-after" help:"Blocks a custodial wallet's transaction may stay unmined before it is sent again with the same nonce and fees bumped by at least 10%." default:"3" env:"CURVEKIT_REPLACE_AFTER"`
	ReadyLag       uint64        `help:"Blocks the indexer may trail the head before GET /readyz fails." default:"20" env:"CURVEKIT_READY_LAG"`
	SniperWindow   time.Duration `name:"sniper-window" help:"How long after a token's launch block its buyers are labelled snipers in GET /tokens/:address/holders." default:"5s" env:"CURVEKIT_SNIPER_WINDOW"`
	Indexer        bool          `help:"Take part in the election of the one replica that indexes the chain (--no-indexer: an API-only replica, which follows the store)." default:"true" negatable:"" env:"CURVEKIT_INDEXER"`
	Lease          time.Duration `help:"How long the indexer's lease lasts unrenewed: the longest a dead or frozen leader holds up indexing before another replica takes over." default:"10s" env:"CURVEKIT_LEASE"`
	RateLimit      int           `help:"Default rate limit: requests per window, per API key or client IP." default:"600" env:"CURVEKIT_RATE_LIMIT"`
	RateWindow     time.Duration `help:"Default rate limit window, whole seconds." default:"1m" env:"CURVEKIT_RATE_WINDOW"`
	TrustedProxies []string      `help:"Comma-separated addresses or CIDRs whose X-Forwarded-For is believed." env:"CURVEKIT_TRUSTED_PROXIES"`
	Heartbeat      time.Duration `help:"Idle time after which a stream sends a heartbeat comment." default:"15s" env:"CURVEKIT_HEARTBEAT"`
	StreamBuffer   int           `help:"Messages a stream subscriber may fall behind before it is cut off." default:"1000" env:"CURVEKIT_STREAM_BUFFER"`
	MetricsAddr    string        `help:"Address of the Prometheus metrics endpoint (GET /metrics); off without it." env:"CURVEKIT_METRICS_ADDR"`
	LogLevel       string        `help:"Log level: debug, info, warn or error." enum:"debug,info,warn,error" default:"info" env:"CURVEKIT_LOG_LEVEL"`
	LLMBaseURL     string        `name:"llm-base-url" help:"OpenAI-compatible Chat Completions base URL (OpenAI, Ollama, vLLM); the offline planner without it." env:"CURVEKIT_LLM_BASE_URL"`
	LLMModel       string        `name:"llm-model" help:"Model name at --llm-base-url." env:"CURVEKIT_LLM_MODEL"`
	LLMAPIKey      string        `name:"llm-api-key" help:"API key of --llm-base-url (prefer the environment variable)." env:"CURVEKIT_LLM_API_KEY"`
	AgentWorkers   int           `help:"Agent jobs run at once by this server; default what the planner can take: 8 per CPU (at least 16) for the offline planner, 4 for an LLM (stay under its provider's concurrency limit)." env:"CURVEKIT_AGENT_WORKERS"`
	MaxPriceOrders int           `name:"max-price-orders" help:"Open limit, stop-loss, take-profit and trailing-stop orders a wallet may have." default:"50" env:"CURVEKIT_MAX_PRICE_ORDERS"`
	MaxTimeOrders  int           `name:"max-time-orders" help:"Open DCA and TWAP orders a wallet may have." default:"20" env:"CURVEKIT_MAX_TIME_ORDERS"`
	// Fault arms one fault-injection point, for the tests that kill or freeze a process at an
	// exact step (see fault.go); never set in production, hence hidden.
	Fault string `name:"fault" hidden:"" help:"Test only: <point>:<action>, e.g. orders.beforeSend:exit. The first time the process reaches the point it kills itself (exit) or stops itself with SIGSTOP (stop)." env:"CURVEKIT_FAULT"`

	WebhookMax           int             `name:"webhook-max" help:"Webhook subscriptions an account may have." default:"20" env:"CURVEKIT_WEBHOOK_MAX"`
	WebhookRetries       []time.Duration `name:"webhook-retries" help:"Waits before each retry of a failed webhook delivery (the first attempt is immediate); after the last the delivery fails." default:"5s,5m,30m,2h,5h,10h,10h" env:"CURVEKIT_WEBHOOK_RETRIES"`
	WebhookWorkers       int             `name:"webhook-workers" help:"Webhook deliveries this server makes at once (and the most it holds in memory; the rest wait in the database)." default:"32" env:"CURVEKIT_WEBHOOK_WORKERS"`
	WebhookAllowLoopback bool            `name:"webhook-allow-loopback" help:"For local development and tests: webhooks may use http:// and loopback addresses (never private, link-local or metadata ones)." env:"CURVEKIT_WEBHOOK_ALLOW_LOOPBACK"`

	PublicURL     string   `name:"public-url" help:"The URL browsers reach the server at (sign-in redirects, Secure cookies when https); default http://<addr>." env:"CURVEKIT_PUBLIC_URL"`
	MasterKeyFile string   `help:"File of the master key that seals custodial wallet keys; default <db>.master.key beside a SQLite file, curvekit.master.key in the working directory for a postgres:// DSN; created 0600 on first start." env:"CURVEKIT_MASTER_KEY_FILE"`
	MasterKey     string   `help:"The master key itself (hex, or version:hex lines), instead of a file." env:"CURVEKIT_MASTER_KEY"`
	ProWallets    []string `help:"Comma-separated wallets on the pro subscription tier." env:"CURVEKIT_PRO_WALLETS"`

	IPFSAPI     string `name:"ipfs-api" help:"Kubo RPC URL to pin launch uploads on (e.g. http://127.0.0.1:5001); without it, a local store that GET /ipfs/:cid serves." env:"CURVEKIT_IPFS_API"`
	IPFSDir     string `name:"ipfs-dir" help:"Directory of the local IPFS store; default <db>.ipfs beside a SQLite file, curvekit.ipfs in the working directory for a postgres:// DSN." env:"CURVEKIT_IPFS_DIR"`
	IPFSGateway string `name:"ipfs-gateway" help:"Gateway URL prefix of uploads' gatewayUrl (e.g. https://ipfs.io/ipfs/); default <public-url>/ipfs/." env:"CURVEKIT_IPFS_GATEWAY"`

	OAuthIssuer       string   `name:"oauth-issuer" help:"OpenID Connect issuer URL of the identity provider (discovery); without it and --oauth-auth-url, the development provider." env:"CURVEKIT_OAUTH_ISSUER"`
	OAuthAuthURL      string   `name:"oauth-auth-url" help:"Authorization endpoint of a plain OAuth 2.0 provider (with --oauth-token-url and --oauth-userinfo-url)." env:"CURVEKIT_OAUTH_AUTH_URL"`
	OAuthTokenURL     string   `name:"oauth-token-url" help:"Token endpoint of a plain OAuth 2.0 provider." env:"CURVEKIT_OAUTH_TOKEN_URL"`
	OAuthUserinfoURL  string   `name:"oauth-userinfo-url" help:"Userinfo endpoint of a plain OAuth 2.0 provider." env:"CURVEKIT_OAUTH_USERINFO_URL"`
	OAuthFields       []string `name:"oauth-fields" help:"Userinfo field paths of a plain OAuth 2.0 provider, in the order subject,handle,picture; the default is X's userinfo." default:"data.id,data.username,data.profile_image_url" env:"CURVEKIT_OAUTH_FIELDS"`
	OAuthName         string   `name:"oauth-name" help:"Name of a plain OAuth 2.0 provider, kept with each account's identity." default:"oauth2" env:"CURVEKIT_OAUTH_NAME"`
	OAuthClientID     string   `name:"oauth-client-id" help:"OAuth client id." env:"CURVEKIT_OAUTH_CLIENT_ID"`
	OAuthClientSecret string   `name:"oauth-client-secret" help:"OAuth client secret (prefer the environment variable)." env:"CURVEKIT_OAUTH_CLIENT_SECRET"`
	OAuthScopes       []string `name:"oauth-scopes" help:"Scopes to request; default openid,profile for OIDC." env:"CURVEKIT_OAUTH_SCOPES"`
	DevOAuthPublic    bool     `name:"dev-oauth-public" help:"Allow the development identity provider on a non-loopback address (anyone could sign in as anyone)." env:"CURVEKIT_DEV_OAUTH_PUBLIC"`
	DevnetRPCPublic   bool     `name:"devnet-rpc-public" help:"Allow --devnet-rpc-addr on a non-loopback address (the devnet's keys are public: anyone who reaches it can send transactions)." env:"CURVEKIT_DEVNET_RPC_PUBLIC"`
	Web               bool     `help:"Serve the web front-end at / (--no-web turns it off; the API is unchanged)." default:"true" negatable:"" env:"CURVEKIT_WEB"`

	// profile is --chain's profile once read into the fields it stands for.
	profile *evm.Profile
}

// Validate checks what the flag library cannot: shapes of addresses and URLs, combinations and
// ranges. It runs before anything is created, so a bad value leaves no file, key or connection
// behind.
func (c *Config) Validate() error {
	if err := c.useProfile(); err != nil {
		return err
	}
	var errs []error
	if _, err := parseFault(c.Fault); err != nil {
		errs = append(errs, err)
	}
	for _, a := range []struct{ flag, v string }{{"--addr", c.Addr}, {"--metrics-addr", c.MetricsAddr}, {"--devnet-rpc-addr", c.DevnetRPCAddr}, {"--redis", c.Redis}} {
		if a.v == "" && a.flag != "--addr" {
			continue
		}
		if a.flag == "--redis" && strings.Contains(a.v, "://") {
			if u, err := url.Parse(a.v); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
				errs = append(errs, fmt.Errorf("--redis %q is neither host:port nor a redis:// or rediss:// URL", redact.Text(a.v)))
			}
			continue
		}
		if _, port, err := net.SplitHostPort(a.v); err != nil || port == "" {
			errs = append(errs, fmt.Errorf("%s %q is not a host:port address (e.g. 127.0.0.1:8080)", a.flag, redact.Text(a.v)))
		} else if n, err := strconv.ParseUint(port, 10, 16); err != nil || (n == 0 && a.flag == "--redis") {
			errs = append(errs, fmt.Errorf("%s %q has no valid port", a.flag, redact.Text(a.v)))
		}
	}
	urls := []struct{ flag, v string }{{"--public-url", c.PublicURL}, {"--ipfs-api", c.IPFSAPI}, {"--ipfs-gateway", c.IPFSGateway},
		{"--llm-base-url", c.LLMBaseURL}, {"--oauth-issuer", c.OAuthIssuer}, {"--oauth-auth-url", c.OAuthAuthURL}, {"--oauth-token-url", c.OAuthTokenURL}, {"--oauth-userinfo-url", c.OAuthUserinfoURL}}
	for _, u := range c.rpcURLs() {
		urls = append(urls, struct{ flag, v string }{"--rpc-url", u})
	}
	for _, u := range urls {
		if u.v == "" {
			continue
		}
		parsed, err := url.Parse(u.v)
		schemes := []string{"http", "https"}
		if u.flag == "--rpc-url" {
			schemes = append(schemes, "ws", "wss")
		}
		if err != nil || !slices.Contains(schemes, parsed.Scheme) || parsed.Host == "" {
			errs = append(errs, fmt.Errorf("%s %q is not an %s URL", u.flag, redact.Text(u.v), strings.Join(schemes, "/")))
		}
	}
	if scheme, _, ok := strings.Cut(c.DB, "://"); ok && scheme != "postgres" && scheme != "postgresql" {
		errs = append(errs, fmt.Errorf("--db %q: unknown scheme %s://; give a SQLite file path or a postgres:// DSN", redact.Text(c.DB), scheme))
	}
	if c.RPCURL != "" && (c.Factory == "" || c.Router == "") {
		errs = append(errs, errors.New("--rpc-url needs --factory and --router"))
	}
	if c.RateLimit <= 0 || c.RateWindow < time.Second || c.RateWindow%time.Second != 0 {
		errs = append(errs, errors.New("--rate-limit must be positive and --rate-window whole seconds, at least 1s"))
	}
	if c.Heartbeat <= 0 || c.StreamBuffer <= 0 {
		errs = append(errs, errors.New("--heartbeat and --stream-buffer must be positive"))
	}
	if c.WebhookMax <= 0 || c.WebhookWorkers <= 0 || slices.ContainsFunc(c.WebhookRetries, func(d time.Duration) bool { return d < 0 }) {
		errs = append(errs, errors.New("--webhook-max and --webhook-workers must be positive and --webhook-retries must not be negative"))
	}
	if c.Lease < 300*time.Millisecond {
		errs = append(errs, errors.New("--lease must be at least 300ms"))
	}
	if c.MaxFeeGwei < 0 || c.ReplaceAfter == 0 {
		errs = append(errs, errors.New("--max-fee-gwei must not be negative and --replace-after must be at least 1"))
	}
	if c.SniperWindow <= 0 {
		errs = append(errs, errors.New("--sniper-window must be positive"))
	}
	if c.Poll <= 0 || c.Simulate < 0 {
		errs = append(errs, errors.New("--poll must be positive and --simulate not negative"))
	}
	if c.LLMBaseURL != "" && c.LLMModel == "" {
		errs = append(errs, errors.New("--llm-base-url needs --llm-model"))
	}
	if c.AgentWorkers < 0 {
		errs = append(errs, errors.New("--agent-workers must not be negative (0: what the planner can take)"))
	}
	if c.OAuthIssuer != "" && c.OAuthAuthURL != "" {
		errs = append(errs, errors.New("--oauth-issuer (OpenID Connect) and --oauth-auth-url (plain OAuth 2.0) exclude each other"))
	}
	if (c.OAuthIssuer != "" || c.OAuthAuthURL != "") && c.OAuthClientID == "" {
		errs = append(errs, errors.New("an identity provider needs --oauth-client-id"))
	}
	if _, err := c.proxies(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// proxies parses TrustedProxies: addresses (a host prefix) or CIDRs.
func (c *Config) proxies() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range c.TrustedProxies {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			addr, err := netip.ParseAddr(part)
			if err != nil {
				return nil, fmt.Errorf("--trusted-proxies: %w", err)
			}
			out = append(out, netip.PrefixFrom(addr, addr.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("--trusted-proxies: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// NewLogger returns the text logger on stderr at level ("debug", "info", "warn" or "error").
func NewLogger(level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	return slog.New(redact.Handler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))), nil
}
