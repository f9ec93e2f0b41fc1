package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
)

// wireDevnetRPC opens the listener of the devnet's JSON-RPC (--devnet-rpc-addr) here rather
// than in Serve, so that a taken or refused address stops the server at start and its port is
// known before serving (DevnetRPCURL). Serve serves it.
func (a *App) wireDevnetRPC(context.Context) error {
	addr := a.Config.DevnetRPCAddr
	if addr == "" {
		return nil
	}
	if a.Devnet == nil {
		return errors.New("--devnet-rpc-addr serves the in-process devnet; it has no meaning with --rpc-url")
	}
	if err := checkLoopback(addr, a.Config.DevnetRPCPublic); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--devnet-rpc-addr: %w", err)
	}
	a.devnetRPC = ln
	// ServeRPC closes the listener when it ends; this closes it when Serve never ran.
	a.onClose(func() error {
		if err := ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			return err
		}
		return nil
	})
	return nil
}

// DevnetRPCURL is the URL of the devnet's JSON-RPC, or "" when it is not served.
func (a *App) DevnetRPCURL() string {
	if a.devnetRPC == nil {
		return ""
	}
	return "http://" + a.devnetRPC.Addr().String()
}

// serveDevnetRPC serves the devnet's JSON-RPC, when asked for, until ctx ends; the devnet
// mines what wallets send there at once.
func (a *App) serveDevnetRPC(ctx context.Context, work *sync.WaitGroup, errc chan<- error) {
	if a.devnetRPC == nil {
		return
	}
	work.Go(func() { errc <- a.Devnet.ServeRPC(ctx, a.devnetRPC) })
	a.Log.Info("devnet JSON-RPC", "url", a.DevnetRPCURL(), "chainId", a.Devnet.ChainID)
}

// checkLoopback refuses a listen address that other machines can reach unless allowed: anyone
// who reaches the devnet's JSON-RPC can send transactions signed with its public keys.
func checkLoopback(addr string, allowPublic bool) error {
	if allowPublic {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--devnet-rpc-addr %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.Unmap().IsLoopback() {
		return nil
	}
	return fmt.Errorf("--devnet-rpc-addr %q is not a loopback address: the devnet's keys are public, so anyone who reaches it can send transactions; listen on 127.0.0.1 or allow it with --devnet-rpc-public", addr)
}
