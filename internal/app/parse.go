package app

import (
	"github.com/alecthomas/kong"
)

// ParseConfig parses args (without the program name) and the CURVEKIT_* environment into a
// Config, the way the server's main does, and validates it.
func ParseConfig(args []string) (Config, error) {
	var cfg Config
	p, err := kong.New(&cfg, kong.Name("server"))
	if err != nil {
		return cfg, err
	}
	if _, err := p.Parse(args); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}
