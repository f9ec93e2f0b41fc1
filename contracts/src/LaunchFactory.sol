// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

import {BondingCurve} from "./BondingCurve.sol";
import {CurveParams, CurveMath} from "./CurveParams.sol";

/// @title LaunchFactory
/// @notice Launches tokens: each launch deploys a {BondingCurve}, which deploys its {CurveToken}
/// with the whole supply minted to the curve. The owner decides which pairing assets may be used
/// (address(0) is native ETH) and with which {CurveParams}, and sets the launch fee (in wei, paid in
/// ETH on every launch) and its recipient, who also receives the curves' protocol fees.
/// @dev Pairing assets must be plain ERC-20s (no fee on transfer, no rebasing): curves account for
/// exactly the amounts they ask to move.
contract LaunchFactory is Ownable, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    /// @notice The pool factory curves graduate into.
    address public immutable poolFactory;
    /// @notice Wrapped ether: ETH-paired curves graduate into a token/WETH pair.
    address public immutable weth;
    /// @notice Receives launch fees and curves' protocol fees.
    address public feeRecipient;
    /// @notice ETH (wei) charged on every launch.
    uint256 public launchFee;

    mapping(address asset => CurveParams) private _params;
    mapping(address asset => bool) private _enabled;
    /// @notice The curve of a token launched here; address(0) for other tokens.
    mapping(address token => address curve) public curveOf;
    address[] private _tokens;

    event Launched(
        address indexed token,
        address indexed curve,
        address indexed creator,
        address quoteAsset,
        string name,
        string symbol,
        string uri
    );
    event QuoteAssetSet(address indexed asset, CurveParams params);
    event QuoteAssetDisabled(address indexed asset);
    event LaunchFeeSet(uint256 launchFee);
    event FeeRecipientSet(address indexed feeRecipient);

    error ZeroAddress();
    error NotAContract(address asset);
    error QuoteAssetNotEnabled(address asset);
    error WrongValue(uint256 expected, uint256 actual);
    error EthTransferFailed();

    constructor(address poolFactory_, address weth_, address feeRecipient_) Ownable(msg.sender) {
        if (poolFactory_ == address(0) || weth_ == address(0) || feeRecipient_ == address(0)) revert ZeroAddress();
        poolFactory = poolFactory_;
        weth = weth_;
        feeRecipient = feeRecipient_;
        emit FeeRecipientSet(feeRecipient_);
    }

    // ---------------------------------------------------------------- owner

    /// @notice Enables `asset` (address(0) = native ETH) as a pairing asset with `params`, or
    /// replaces its parameters for future launches. Reverts on parameters docs/CURVE.md calls invalid.
    function setQuoteAsset(address asset, CurveParams calldata params) external onlyOwner {
        if (asset != address(0) && asset.code.length == 0) revert NotAContract(asset);
        CurveMath.validate(params);
        _params[asset] = params;
        _enabled[asset] = true;
        emit QuoteAssetSet(asset, params);
    }

    /// @notice Stops new launches against `asset`; existing curves are unaffected.
    function disableQuoteAsset(address asset) external onlyOwner {
        _enabled[asset] = false;
        emit QuoteAssetDisabled(asset);
    }

    /// @notice Sets the ETH fee (wei) charged on every launch.
    function setLaunchFee(uint256 fee) external onlyOwner {
        launchFee = fee;
        emit LaunchFeeSet(fee);
    }

    /// @notice Sets who receives launch fees and protocol fees.
    function setFeeRecipient(address recipient) external onlyOwner {
        if (recipient == address(0)) revert ZeroAddress();
        feeRecipient = recipient;
        emit FeeRecipientSet(recipient);
    }

    // ---------------------------------------------------------------- launch

    /// @notice Launches a token paired with `quoteAsset` (address(0) = ETH); msg.sender is its
    /// creator. ETH pairing: msg.value == launchFee + initialBuy. ERC-20 pairing: msg.value ==
    /// launchFee and `initialBuy` is pulled from msg.sender (approve this factory). A non-zero
    /// initialBuy buys on the new curve for msg.sender, which must get at least minTokensOut.
    function launch(
        string calldata name,
        string calldata symbol,
        string calldata uri,
        address quoteAsset,
        uint256 initialBuy,
        uint256 minTokensOut
    ) external payable nonReentrant returns (address token, address curve) {
        if (!_enabled[quoteAsset]) revert QuoteAssetNotEnabled(quoteAsset);
        uint256 fee = launchFee;
        uint256 expected = quoteAsset == address(0) ? fee + initialBuy : fee;
        if (msg.value != expected) revert WrongValue(expected, msg.value);

        BondingCurve c = new BondingCurve(name, symbol, uri, quoteAsset, msg.sender, _params[quoteAsset], weth, poolFactory);
        curve = address(c);
        token = c.token();
        curveOf[token] = curve;
        _tokens.push(token);
        emit Launched(token, curve, msg.sender, quoteAsset, name, symbol, uri);

        if (fee != 0) {
            (bool ok,) = feeRecipient.call{value: fee}("");
            if (!ok) revert EthTransferFailed();
        }
        if (initialBuy != 0) {
            if (quoteAsset == address(0)) {
                c.initialBuy{value: initialBuy}(msg.sender, initialBuy, minTokensOut);
            } else {
                IERC20(quoteAsset).safeTransferFrom(msg.sender, curve, initialBuy);
                c.initialBuy(msg.sender, initialBuy, minTokensOut);
            }
        }
    }

    // ---------------------------------------------------------------- views

    /// @notice The parameters new launches against `asset` get, and whether launches are enabled.
    function quoteAssetParams(address asset) external view returns (CurveParams memory params, bool enabled) {
        return (_params[asset], _enabled[asset]);
    }

    /// @notice How many tokens were launched here.
    function tokenCount() external view returns (uint256) {
        return _tokens.length;
    }

    /// @notice The `index`-th token launched here (launch order).
    function tokenAt(uint256 index) external view returns (address) {
        return _tokens[index];
    }
}
