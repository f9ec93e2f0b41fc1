// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The parts of {LaunchFactory} that a curve reads.
interface ILaunchFactory {
    function feeRecipient() external view returns (address);
}
