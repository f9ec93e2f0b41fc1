// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Pair} from "./Pair.sol";

/// @title PoolFactory
/// @notice Creates {Pair}s (Uniswap V2 semantics, one pair per token pair) that all charge the same
/// swap fee, `feeBps`, fixed at deployment. Graduating curves create their pool here.
contract PoolFactory {
    /// @notice Swap fee of every pair, in basis points; at most 1,000. The fee stays in the pool.
    uint16 public immutable feeBps;
    /// @notice The pair of two tokens, in either order; address(0) if none.
    mapping(address => mapping(address => address)) public getPair;
    /// @notice Every pair, in creation order.
    address[] public allPairs;

    event PairCreated(address indexed token0, address indexed token1, address pair, uint256);

    error FeeTooHigh(uint16 feeBps);
    error IdenticalAddresses();
    error ZeroAddress();
    error PairExists(address pair);

    constructor(uint16 feeBps_) {
        if (feeBps_ > 1_000) revert FeeTooHigh(feeBps_);
        feeBps = feeBps_;
    }

    /// @notice Number of pairs created.
    function allPairsLength() external view returns (uint256) {
        return allPairs.length;
    }

    /// @notice Creates the pair of tokenA and tokenB (CREATE2, salt = keccak256(token0, token1)).
    function createPair(address tokenA, address tokenB) external returns (address pair) {
        if (tokenA == tokenB) revert IdenticalAddresses();
        (address token0, address token1) = tokenA < tokenB ? (tokenA, tokenB) : (tokenB, tokenA);
        if (token0 == address(0)) revert ZeroAddress();
        address existing = getPair[token0][token1];
        if (existing != address(0)) revert PairExists(existing);
        pair = address(new Pair{salt: keccak256(abi.encodePacked(token0, token1))}(token0, token1, feeBps));
        getPair[token0][token1] = pair;
        getPair[token1][token0] = pair;
        allPairs.push(pair);
        emit PairCreated(token0, token1, pair, allPairs.length);
    }
}
