// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

/// @title Pair
/// @notice A constant-product pool of two tokens with Uniswap V2 semantics and a swap fee in basis
/// points (docs/CURVE.md, "Pool"). The pair is its own LP token. Deliberately smaller than V2: no
/// flash swaps (swap reverts on non-empty data), no burn (liquidity is permanent: graduating curves
/// lock theirs at 0x...dEaD), no price accumulators and no protocol fee.
/// @dev The first mint locks MINIMUM_LIQUIDITY at 0x...dEaD (V2 sends it to address(0), which the
/// OpenZeppelin ERC-20 refuses).
contract Pair is ERC20, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    uint256 public constant MINIMUM_LIQUIDITY = 1_000;
    address private constant DEAD = 0x000000000000000000000000000000000000dEaD;
    uint256 private constant BPS = 10_000;

    address public immutable factory;
    address public immutable token0;
    address public immutable token1;
    /// @notice Swap fee in basis points, copied from the factory.
    uint16 public immutable feeBps;

    uint112 private _reserve0;
    uint112 private _reserve1;
    uint32 private _blockTimestampLast;

    event Mint(address indexed sender, uint256 amount0, uint256 amount1);
    event Swap(
        address indexed sender,
        uint256 amount0In,
        uint256 amount1In,
        uint256 amount0Out,
        uint256 amount1Out,
        address indexed to
    );
    event Sync(uint112 reserve0, uint112 reserve1);

    error FlashSwapsDisabled();
    error InsufficientLiquidityMinted();
    error InsufficientOutputAmount();
    error InsufficientInputAmount();
    error InsufficientLiquidity();
    error InvalidTo();
    error KInvariant();
    error ReserveOverflow();

    constructor(address token0_, address token1_, uint16 feeBps_) ERC20("Curvekit LP", "CKLP") {
        factory = msg.sender;
        token0 = token0_;
        token1 = token1_;
        feeBps = feeBps_;
    }

    /// @notice Reserves as of the last mint, swap or sync, and that block's timestamp (mod 2^32).
    function getReserves() public view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast) {
        return (_reserve0, _reserve1, _blockTimestampLast);
    }

    /// @notice Mints LP tokens to `to` for the tokens sent to the pair since the last update.
    function mint(address to) external nonReentrant returns (uint256 liquidity) {
        (uint112 r0, uint112 r1,) = getReserves();
        uint256 b0 = IERC20(token0).balanceOf(address(this));
        uint256 b1 = IERC20(token1).balanceOf(address(this));
        uint256 a0 = b0 - r0;
        uint256 a1 = b1 - r1;
        uint256 supply = totalSupply();
        if (supply == 0) {
            uint256 root = Math.sqrt(a0 * a1);
            if (root <= MINIMUM_LIQUIDITY) revert InsufficientLiquidityMinted();
            liquidity = root - MINIMUM_LIQUIDITY;
            _mint(DEAD, MINIMUM_LIQUIDITY);
        } else {
            liquidity = Math.min(a0 * supply / r0, a1 * supply / r1);
        }
        if (liquidity == 0) revert InsufficientLiquidityMinted();
        _mint(to, liquidity);
        _update(b0, b1);
        emit Mint(msg.sender, a0, a1);
    }

    /// @notice Sends the requested outputs to `to` after the inputs were transferred in; checks
    /// (b0*BPS - in0*fee) * (b1*BPS - in1*fee) >= r0 * r1 * BPS^2. `data` must be empty.
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external nonReentrant {
        if (data.length != 0) revert FlashSwapsDisabled();
        if (amount0Out == 0 && amount1Out == 0) revert InsufficientOutputAmount();
        (uint112 r0, uint112 r1,) = getReserves();
        if (amount0Out >= r0 || amount1Out >= r1) revert InsufficientLiquidity();
        if (to == token0 || to == token1) revert InvalidTo();

        if (amount0Out != 0) IERC20(token0).safeTransfer(to, amount0Out);
        if (amount1Out != 0) IERC20(token1).safeTransfer(to, amount1Out);
        uint256 b0 = IERC20(token0).balanceOf(address(this));
        uint256 b1 = IERC20(token1).balanceOf(address(this));
        uint256 in0 = b0 > r0 - amount0Out ? b0 - (r0 - amount0Out) : 0;
        uint256 in1 = b1 > r1 - amount1Out ? b1 - (r1 - amount1Out) : 0;
        if (in0 == 0 && in1 == 0) revert InsufficientInputAmount();
        uint256 fee = feeBps;
        if ((b0 * BPS - in0 * fee) * (b1 * BPS - in1 * fee) < uint256(r0) * uint256(r1) * (BPS * BPS)) {
            revert KInvariant();
        }
        _update(b0, b1);
        emit Swap(msg.sender, in0, in1, amount0Out, amount1Out, to);
    }

    /// @notice Sends balances above the reserves to `to`.
    function skim(address to) external nonReentrant {
        IERC20(token0).safeTransfer(to, IERC20(token0).balanceOf(address(this)) - _reserve0);
        IERC20(token1).safeTransfer(to, IERC20(token1).balanceOf(address(this)) - _reserve1);
    }

    /// @notice Sets the reserves to the balances.
    function sync() external nonReentrant {
        _update(IERC20(token0).balanceOf(address(this)), IERC20(token1).balanceOf(address(this)));
    }

    function _update(uint256 b0, uint256 b1) private {
        if (b0 > type(uint112).max || b1 > type(uint112).max) revert ReserveOverflow();
        _reserve0 = uint112(b0);
        _reserve1 = uint112(b1);
        _blockTimestampLast = uint32(block.timestamp);
        emit Sync(uint112(b0), uint112(b1));
    }
}
