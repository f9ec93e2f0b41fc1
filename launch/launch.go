// Package launch prepares token launches: the metadata and image rules, the CIDs that IPFS gives
// the uploads (Kubo's default profile, computed here so the local store and a Kubo node agree),
// daily launch limits by tier, the fee estimate, creator fees and earnings, and the unsigned launch
// and fee-claim transactions. It never signs; its ports are Pinner, Store, Tiers and Estimator.
package launch

import "github.com/curvekit/curvekit"

var errInvalid = curvekit.ErrInvalid
