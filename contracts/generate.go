package contracts

// Regenerate build/*.json and the Go bindings (run `npm ci` in this directory first):
//
//	go generate ./contracts
//
//go:generate node compile.js
//go:generate go run ./internal/bindgen
