// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title CurveToken
/// @notice The ERC-20 (18 decimals) launched on a bonding curve. The whole supply is minted once, at
/// deployment, to `mintTo` (the curve); nobody can mint later. Holders can burn their own tokens.
contract CurveToken is ERC20 {
    string private _uri;

    constructor(string memory name_, string memory symbol_, string memory uri_, uint256 supply, address mintTo)
        ERC20(name_, symbol_)
    {
        _uri = uri_;
        _mint(mintTo, supply);
    }

    /// @notice Metadata URI given at launch (image, description, links).
    function uri() external view returns (string memory) {
        return _uri;
    }

    /// @notice Burns `amount` of the caller's tokens; the total supply falls.
    function burn(uint256 amount) external {
        _burn(msg.sender, amount);
    }
}
