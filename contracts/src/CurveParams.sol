// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Curve parameters for one pairing asset, fixed into each curve at launch.
/// @dev Meaning and validity rules: docs/CURVE.md, "Parameters". Declared at file level so that
/// every ABI names it `CurveParams` (and the Go bindings share one `CurveParams` type).
struct CurveParams {
    uint256 virtualQuote0;
    uint256 virtualToken0;
    uint256 tokenSupply;
    uint256 realToken0;
    uint256 graduationQuote;
    uint16 feeBps;
    uint16 creatorShareBps;
}

/// @notice Validation and rounding helpers shared by the factory and the curve.
library CurveMath {
    uint256 internal constant BPS = 10_000;
    uint256 internal constant MAX_FEE_BPS = 1_000;

    /// @notice Thrown by {validate} for parameters docs/CURVE.md calls invalid.
    error InvalidCurveParams();

    /// @notice ceil(a / b), written so that it cannot overflow for any a.
    function ceilDiv(uint256 a, uint256 b) internal pure returns (uint256) {
        return a == 0 ? 0 : (a - 1) / b + 1;
    }

    /// @notice Reverts with {InvalidCurveParams} unless `p` is valid per docs/CURVE.md:
    /// every value non-zero except creatorShareBps, feeBps <= 1000, creatorShareBps <= 10000,
    /// realToken0 <= tokenSupply, realToken0 < virtualToken0 and
    /// virtualToken0 - ceilDiv(virtualQuote0 * virtualToken0, virtualQuote0 + graduationQuote) <= realToken0
    /// (an overflow in that expression makes the parameters invalid).
    function validate(CurveParams memory p) internal pure {
        if (
            p.virtualQuote0 == 0 || p.virtualToken0 == 0 || p.tokenSupply == 0 || p.realToken0 == 0
                || p.graduationQuote == 0 || p.feeBps == 0
        ) revert InvalidCurveParams();
        if (p.feeBps > MAX_FEE_BPS || p.creatorShareBps > BPS) revert InvalidCurveParams();
        if (p.realToken0 > p.tokenSupply || p.realToken0 >= p.virtualToken0) revert InvalidCurveParams();
        unchecked {
            uint256 k = p.virtualQuote0 * p.virtualToken0;
            if (k / p.virtualQuote0 != p.virtualToken0) revert InvalidCurveParams();
            uint256 vQEnd = p.virtualQuote0 + p.graduationQuote;
            if (vQEnd < p.virtualQuote0) revert InvalidCurveParams();
            // ceilDiv(k, vQEnd) <= k / virtualQuote0 rounded up == virtualToken0, so no underflow.
            if (p.virtualToken0 - ceilDiv(k, vQEnd) > p.realToken0) revert InvalidCurveParams();
        }
    }
}
