// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

import {IPoolFactory, IPair} from "../interfaces/IPool.sol";
import {IWETH} from "../interfaces/IWETH.sol";

/// @title Router
/// @notice Exact-input swaps along a path of {Pair}s of one {PoolFactory}, Uniswap V2 style, with
/// the factory's fee in basis points (docs/CURVE.md, "Pool"). Outputs go to an explicit `to`;
/// calls revert once block.timestamp > deadline.
contract Router {
    using SafeERC20 for IERC20;

    uint256 private constant BPS = 10_000;

    address public immutable factory;
    // solhint-disable-next-line var-name-mixedcase
    address public immutable WETH;

    error Expired(uint256 deadline, uint256 timestamp);
    error InvalidPath();
    error PairNotFound(address tokenA, address tokenB);
    error InsufficientInputAmount();
    error InsufficientOutputAmount(uint256 amountOut, uint256 amountOutMin);
    error InsufficientLiquidity();
    error NotWETH();
    error EthTransferFailed();

    modifier ensure(uint256 deadline) {
        if (deadline < block.timestamp) revert Expired(deadline, block.timestamp);
        _;
    }

    // solhint-disable-next-line var-name-mixedcase
    constructor(address factory_, address WETH_) {
        factory = factory_;
        WETH = WETH_;
    }

    /// @dev Only WETH unwrapping sends ETH here.
    receive() external payable {
        if (msg.sender != WETH) revert NotWETH();
    }

    // ---------------------------------------------------------------- quotes

    /// @notice amounts[0] = amountIn, amounts[i+1] = out of the i-th hop:
    /// in*(BPS-p)*rOut / (rIn*BPS + in*(BPS-p)).
    function getAmountsOut(uint256 amountIn, address[] memory path) public view returns (uint256[] memory amounts) {
        if (path.length < 2) revert InvalidPath();
        uint256 fee = IPoolFactory(factory).feeBps();
        amounts = new uint256[](path.length);
        amounts[0] = amountIn;
        for (uint256 i; i < path.length - 1; i++) {
            (uint256 rIn, uint256 rOut) = _reserves(path[i], path[i + 1]);
            amounts[i + 1] = _amountOut(amounts[i], rIn, rOut, fee);
        }
    }

    /// @notice amounts[last] = amountOut, amounts[i] = input the i-th hop needs:
    /// rIn*out*BPS / ((rOut-out)*(BPS-p)) + 1.
    function getAmountsIn(uint256 amountOut, address[] memory path) public view returns (uint256[] memory amounts) {
        if (path.length < 2) revert InvalidPath();
        uint256 fee = IPoolFactory(factory).feeBps();
        amounts = new uint256[](path.length);
        amounts[path.length - 1] = amountOut;
        for (uint256 i = path.length - 1; i > 0; i--) {
            (uint256 rIn, uint256 rOut) = _reserves(path[i - 1], path[i]);
            amounts[i - 1] = _amountIn(amounts[i], rIn, rOut, fee);
        }
    }

    // ---------------------------------------------------------------- swaps

    /// @notice Swaps all of msg.value (wrapped) along `path` (path[0] must be WETH).
    function swapExactETHForTokens(uint256 amountOutMin, address[] calldata path, address to, uint256 deadline)
        external
        payable
        ensure(deadline)
        returns (uint256[] memory amounts)
    {
        if (path[0] != WETH) revert InvalidPath();
        amounts = getAmountsOut(msg.value, path);
        _checkMin(amounts, amountOutMin);
        IWETH(WETH).deposit{value: amounts[0]}();
        IERC20(WETH).safeTransfer(_pair(path[0], path[1]), amounts[0]);
        _swap(amounts, path, to);
    }

    /// @notice Swaps exactly amountIn of path[0] (pulled from msg.sender) to ETH (path must end in WETH).
    function swapExactTokensForETH(
        uint256 amountIn,
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external ensure(deadline) returns (uint256[] memory amounts) {
        if (path[path.length - 1] != WETH) revert InvalidPath();
        amounts = getAmountsOut(amountIn, path);
        uint256 out = _checkMin(amounts, amountOutMin);
        IERC20(path[0]).safeTransferFrom(msg.sender, _pair(path[0], path[1]), amounts[0]);
        _swap(amounts, path, address(this));
        IWETH(WETH).withdraw(out);
        (bool ok,) = to.call{value: out}("");
        if (!ok) revert EthTransferFailed();
    }

    /// @notice Swaps exactly amountIn of path[0] (pulled from msg.sender) to path[last], sent to `to`.
    function swapExactTokensForTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external ensure(deadline) returns (uint256[] memory amounts) {
        amounts = getAmountsOut(amountIn, path);
        _checkMin(amounts, amountOutMin);
        IERC20(path[0]).safeTransferFrom(msg.sender, _pair(path[0], path[1]), amounts[0]);
        _swap(amounts, path, to);
    }

    // ---------------------------------------------------------------- internals

    function _checkMin(uint256[] memory amounts, uint256 amountOutMin) private pure returns (uint256 out) {
        out = amounts[amounts.length - 1];
        if (out < amountOutMin) revert InsufficientOutputAmount(out, amountOutMin);
    }

    function _swap(uint256[] memory amounts, address[] memory path, address to) private {
        for (uint256 i; i < path.length - 1; i++) {
            (address input, address output) = (path[i], path[i + 1]);
            uint256 out = amounts[i + 1];
            (uint256 out0, uint256 out1) = input < output ? (uint256(0), out) : (out, uint256(0));
            address dest = i < path.length - 2 ? _pair(output, path[i + 2]) : to;
            IPair(_pair(input, output)).swap(out0, out1, dest, new bytes(0));
        }
    }

    function _pair(address a, address b) private view returns (address pair) {
        pair = IPoolFactory(factory).getPair(a, b);
        if (pair == address(0)) revert PairNotFound(a, b);
    }

    function _reserves(address tokenIn, address tokenOut) private view returns (uint256 rIn, uint256 rOut) {
        (uint112 r0, uint112 r1,) = IPair(_pair(tokenIn, tokenOut)).getReserves();
        (rIn, rOut) = tokenIn < tokenOut ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
    }

    function _amountOut(uint256 amountIn, uint256 rIn, uint256 rOut, uint256 fee) private pure returns (uint256) {
        if (amountIn == 0) revert InsufficientInputAmount();
        if (rIn == 0 || rOut == 0) revert InsufficientLiquidity();
        uint256 inWithFee = amountIn * (BPS - fee);
        return inWithFee * rOut / (rIn * BPS + inWithFee);
    }

    function _amountIn(uint256 amountOut, uint256 rIn, uint256 rOut, uint256 fee) private pure returns (uint256) {
        if (amountOut == 0) revert InsufficientOutputAmount(0, 1);
        if (rIn == 0 || rOut <= amountOut) revert InsufficientLiquidity();
        return rIn * amountOut * BPS / ((rOut - amountOut) * (BPS - fee)) + 1;
    }
}
