// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The parts of {PoolFactory} that the curve and the router use.
interface IPoolFactory {
    function feeBps() external view returns (uint16);
    function getPair(address tokenA, address tokenB) external view returns (address);
    function createPair(address tokenA, address tokenB) external returns (address);
}

/// @notice The parts of {Pair} that the curve and the router use.
interface IPair {
    function token0() external view returns (address);
    function token1() external view returns (address);
    function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);
    function mint(address to) external returns (uint256 liquidity);
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
    function skim(address to) external;
}
