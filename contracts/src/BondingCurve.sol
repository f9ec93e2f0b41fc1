// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

import {CurveParams, CurveMath} from "./CurveParams.sol";
import {CurveToken} from "./CurveToken.sol";
import {ILaunchFactory} from "./interfaces/ILaunchFactory.sol";
import {IPoolFactory, IPair} from "./interfaces/IPool.sol";
import {IWETH} from "./interfaces/IWETH.sol";

/// @title BondingCurve
/// @notice One constant-product virtual-reserve curve per token, deployed by {LaunchFactory}. It sells
/// the token against a pairing asset (native ETH when `quoteAsset() == address(0)`, else an ERC-20)
/// until its real quote reserve reaches `graduationQuote`; the buy that gets there also moves the
/// liquidity into a pool pair and the curve closes. The math, rounding and events follow
/// docs/CURVE.md to the wei.
/// @dev State is kept as the two virtual reserves only: docs/CURVE.md moves the real reserves in
/// lockstep with the virtual ones, so rQ = vQ - virtualQuote0 and rT = vT - (virtualToken0 - realToken0)
/// at all times before graduation.
contract BondingCurve is ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    /// @notice Receives the LP tokens minted at graduation (liquidity locked for good).
    address public constant DEAD = 0x000000000000000000000000000000000000dEaD;
    uint256 private constant BPS = CurveMath.BPS;

    /// @notice The {LaunchFactory} that deployed this curve.
    address public immutable factory;
    /// @notice The {CurveToken} this curve sells (created by this curve's constructor).
    address public immutable token;
    /// @notice The pairing asset; address(0) for native ETH.
    address public immutable quoteAsset;
    /// @notice The launcher, who may claim the creator fees.
    address public immutable creator;
    address private immutable _weth;
    address private immutable _poolFactory;

    uint256 private immutable _virtualQuote0;
    uint256 private immutable _virtualToken0;
    uint256 private immutable _tokenSupply;
    uint256 private immutable _realToken0;
    uint256 private immutable _graduationQuote;
    uint16 private immutable _feeBps;
    uint16 private immutable _creatorShareBps;
    /// @dev virtualToken0 - realToken0: the part of vT that is not for sale.
    uint256 private immutable _tokenOffset;

    uint256 private _vQ;
    uint256 private _vT;
    /// @notice Creator fees accrued and not yet claimed (pairing-asset base units).
    uint256 public creatorFeesAccrued;
    /// @notice Protocol fees accrued and not yet claimed (pairing-asset base units).
    uint256 public protocolFeesAccrued;
    /// @notice The pool pair the liquidity moved to; address(0) until graduation.
    address public pool;

    event Trade(
        address indexed trader,
        address indexed recipient,
        bool isBuy,
        uint256 quoteAmount,
        uint256 tokenAmount,
        uint256 fee,
        uint256 creatorFee,
        uint256 refund,
        uint256 virtualQuote,
        uint256 virtualToken,
        uint256 realQuote,
        uint256 realToken
    );
    event Graduated(address indexed pool, uint256 quoteLiquidity, uint256 tokenLiquidity, uint256 tokensBurned);
    event CreatorFeesClaimed(address indexed creator, uint256 amount);
    event ProtocolFeesClaimed(address indexed recipient, uint256 amount);

    error CurveGraduated();
    error ZeroAmount();
    error AmountTooSmall();
    error InsufficientReserve();
    error DeadlineExpired(uint256 deadline, uint256 timestamp);
    error InsufficientOutput(uint256 amountOut, uint256 minAmountOut);
    error WrongValue(uint256 expected, uint256 actual);
    error NotFactory();
    error NotCreator();
    error EthTransferFailed();

    /// @param params validated by the factory (docs/CURVE.md, "Parameters").
    constructor(
        string memory name_,
        string memory symbol_,
        string memory uri_,
        address quoteAsset_,
        address creator_,
        CurveParams memory params,
        address weth_,
        address poolFactory_
    ) {
        CurveMath.validate(params);
        factory = msg.sender;
        quoteAsset = quoteAsset_;
        creator = creator_;
        _weth = weth_;
        _poolFactory = poolFactory_;
        _virtualQuote0 = params.virtualQuote0;
        _virtualToken0 = params.virtualToken0;
        _tokenSupply = params.tokenSupply;
        _realToken0 = params.realToken0;
        _graduationQuote = params.graduationQuote;
        _feeBps = params.feeBps;
        _creatorShareBps = params.creatorShareBps;
        _tokenOffset = params.virtualToken0 - params.realToken0;
        _vQ = params.virtualQuote0;
        _vT = params.virtualToken0;
        token = address(new CurveToken(name_, symbol_, uri_, params.tokenSupply, address(this)));
    }

    // ---------------------------------------------------------------- trading

    /// @notice Buys tokens with exactly `amountIn` of the pairing asset (fee included). ETH curves
    /// need msg.value == amountIn; ERC-20 curves need msg.value == 0 and an allowance of amountIn.
    /// The crossing buy is capped at the graduation reserve and refunds the rest. Tokens and any
    /// refund go to msg.sender.
    function buy(uint256 amountIn, uint256 minTokensOut, uint256 deadline)
        external
        payable
        nonReentrant
        returns (uint256 tokensOut)
    {
        _checkDeadline(deadline);
        if (quoteAsset == address(0)) {
            if (msg.value != amountIn) revert WrongValue(amountIn, msg.value);
        } else {
            if (msg.value != 0) revert WrongValue(0, msg.value);
            IERC20(quoteAsset).safeTransferFrom(msg.sender, address(this), amountIn);
        }
        return _buy(msg.sender, amountIn, minTokensOut);
    }

    /// @notice The launch buy, made by the factory for the creator. For ERC-20 curves the factory
    /// has already moved `amountIn` to this curve; for ETH curves it arrives as msg.value.
    function initialBuy(address recipient, uint256 amountIn, uint256 minTokensOut)
        external
        payable
        nonReentrant
        returns (uint256 tokensOut)
    {
        if (msg.sender != factory) revert NotFactory();
        uint256 expected = quoteAsset == address(0) ? amountIn : 0;
        if (msg.value != expected) revert WrongValue(expected, msg.value);
        return _buy(recipient, amountIn, minTokensOut);
    }

    /// @notice Sells exactly `tokenAmount` tokens (pulled with transferFrom, so approve this curve
    /// first) for at least `minQuoteOut` of the pairing asset, paid to msg.sender.
    function sell(uint256 tokenAmount, uint256 minQuoteOut, uint256 deadline)
        external
        nonReentrant
        returns (uint256 quoteOut)
    {
        _checkDeadline(deadline);
        uint256 vQ = _vQ;
        uint256 vT = _vT;
        uint256 gross;
        uint256 fee;
        (gross, quoteOut, fee) = _quoteSell(tokenAmount, vQ, vT);
        if (quoteOut < minQuoteOut) revert InsufficientOutput(quoteOut, minQuoteOut);
        uint256 creatorFee = fee * _creatorShareBps / BPS;

        vQ -= gross;
        vT += tokenAmount;
        _vQ = vQ;
        _vT = vT;
        creatorFeesAccrued += creatorFee;
        protocolFeesAccrued += fee - creatorFee;
        emit Trade(
            msg.sender,
            msg.sender,
            false,
            gross,
            tokenAmount,
            fee,
            creatorFee,
            0,
            vQ,
            vT,
            vQ - _virtualQuote0,
            vT - _tokenOffset
        );

        IERC20(token).safeTransferFrom(msg.sender, address(this), tokenAmount);
        _pay(msg.sender, quoteOut);
    }

    // ---------------------------------------------------------------- fees

    /// @notice Pays the creator every creator fee accrued so far. Creator only.
    function claimCreatorFees() external nonReentrant returns (uint256 amount) {
        if (msg.sender != creator) revert NotCreator();
        amount = creatorFeesAccrued;
        creatorFeesAccrued = 0;
        emit CreatorFeesClaimed(msg.sender, amount);
        _pay(msg.sender, amount);
    }

    /// @notice Pays every protocol fee accrued so far to the factory's current fee recipient.
    /// Anyone may call it.
    function claimProtocolFees() external nonReentrant returns (uint256 amount) {
        address recipient = ILaunchFactory(factory).feeRecipient();
        amount = protocolFeesAccrued;
        protocolFeesAccrued = 0;
        emit ProtocolFeesClaimed(recipient, amount);
        _pay(recipient, amount);
    }

    // ---------------------------------------------------------------- views

    /// @notice Exactly what `buy(amountIn, ...)` would do now; reverts where it would (deadline,
    /// payment and minimum aside).
    function previewBuy(uint256 amountIn)
        external
        view
        returns (uint256 tokensOut, uint256 fee, uint256 creatorFee, uint256 refund)
    {
        (, tokensOut, fee, refund) = _quoteBuy(amountIn, _vQ, _vT);
        creatorFee = fee * _creatorShareBps / BPS;
    }

    /// @notice Exactly what `sell(tokenAmount, ...)` would do now; reverts where it would (deadline,
    /// balance, allowance and minimum aside).
    function previewSell(uint256 tokenAmount)
        external
        view
        returns (uint256 quoteOut, uint256 fee, uint256 creatorFee)
    {
        (, quoteOut, fee) = _quoteSell(tokenAmount, _vQ, _vT);
        creatorFee = fee * _creatorShareBps / BPS;
    }

    /// @notice Current reserves; the real ones read 0 once graduated.
    function reserves()
        external
        view
        returns (uint256 virtualQuote, uint256 virtualToken, uint256 realQuote, uint256 realToken, bool graduated)
    {
        virtualQuote = _vQ;
        virtualToken = _vT;
        graduated = pool != address(0);
        if (!graduated) {
            realQuote = virtualQuote - _virtualQuote0;
            realToken = virtualToken - _tokenOffset;
        }
    }

    /// @notice The parameters this curve was launched with.
    function curveParams() external view returns (CurveParams memory) {
        return CurveParams({
            virtualQuote0: _virtualQuote0,
            virtualToken0: _virtualToken0,
            tokenSupply: _tokenSupply,
            realToken0: _realToken0,
            graduationQuote: _graduationQuote,
            feeBps: _feeBps,
            creatorShareBps: _creatorShareBps
        });
    }

    // ---------------------------------------------------------------- internals

    function _checkDeadline(uint256 deadline) private view {
        if (block.timestamp > deadline) revert DeadlineExpired(deadline, block.timestamp);
    }

    /// @dev docs/CURVE.md "Buy": returns the curve-side amount `net`, tokens out, fee and refund.
    function _quoteBuy(uint256 amountIn, uint256 vQ, uint256 vT)
        private
        view
        returns (uint256 net, uint256 tokensOut, uint256 fee, uint256 refund)
    {
        if (pool != address(0)) revert CurveGraduated();
        if (amountIn == 0) revert ZeroAmount();
        uint256 feeBps = _feeBps;
        uint256 rQ = vQ - _virtualQuote0;
        net = amountIn * BPS / (BPS + feeBps);
        fee = amountIn - net;
        if (rQ + net >= _graduationQuote) {
            net = _graduationQuote - rQ;
            fee = CurveMath.ceilDiv(net * feeBps, BPS);
            refund = amountIn - net - fee;
        }
        tokensOut = net * vT / (vQ + net);
        if (tokensOut == 0) revert AmountTooSmall();
        if (tokensOut > vT - _tokenOffset) revert InsufficientReserve();
    }

    /// @dev docs/CURVE.md "Sell": returns gross (curve side), out (to the seller) and fee.
    function _quoteSell(uint256 amount, uint256 vQ, uint256 vT)
        private
        view
        returns (uint256 gross, uint256 out, uint256 fee)
    {
        if (pool != address(0)) revert CurveGraduated();
        if (amount == 0) revert ZeroAmount();
        gross = amount * vQ / (vT + amount);
        fee = CurveMath.ceilDiv(gross * _feeBps, BPS);
        out = gross - fee;
        if (out == 0) revert AmountTooSmall();
        if (gross > vQ - _virtualQuote0) revert InsufficientReserve();
    }

    /// @dev Buy with the payment already in hand; tokens and refund go to `recipient`, who is also
    /// the trader in the event.
    function _buy(address recipient, uint256 amountIn, uint256 minTokensOut) private returns (uint256 tokensOut) {
        uint256 vQ = _vQ;
        uint256 vT = _vT;
        uint256 net;
        uint256 fee;
        uint256 refund;
        (net, tokensOut, fee, refund) = _quoteBuy(amountIn, vQ, vT);
        if (tokensOut < minTokensOut) revert InsufficientOutput(tokensOut, minTokensOut);
        uint256 creatorFee = fee * _creatorShareBps / BPS;

        vQ += net;
        vT -= tokensOut;
        _vQ = vQ;
        _vT = vT;
        creatorFeesAccrued += creatorFee;
        protocolFeesAccrued += fee - creatorFee;
        uint256 rQ = vQ - _virtualQuote0;
        emit Trade(
            recipient, recipient, true, net, tokensOut, fee, creatorFee, refund, vQ, vT, rQ, vT - _tokenOffset
        );

        IERC20(token).safeTransfer(recipient, tokensOut);
        if (rQ == _graduationQuote) _graduate(rQ, vQ, vT);
        _pay(recipient, refund);
    }

    /// @dev docs/CURVE.md "Graduation". Anyone can create the pair before graduation: the curve then
    /// reuses it (creating it again would revert and lock the curve forever) and first skims
    /// balances sent to it but not synced to 0x...dEaD, so that donations cannot push its reserves
    /// past uint112 and make every graduation revert. Reserves someone already put into such a
    /// pair stay in it, so the pool then holds theirs plus the curve's.
    function _graduate(uint256 rQ, uint256 vQ, uint256 vT) private {
        uint256 balance = IERC20(token).balanceOf(address(this));
        uint256 poolToken = rQ * vT / vQ;
        if (poolToken > balance) poolToken = balance;
        uint256 burned = balance - poolToken;

        address quote = quoteAsset == address(0) ? _weth : quoteAsset;
        address pair = IPoolFactory(_poolFactory).getPair(token, quote);
        if (pair == address(0)) pair = IPoolFactory(_poolFactory).createPair(token, quote);
        else IPair(pair).skim(DEAD);
        pool = pair;

        if (quoteAsset == address(0)) IWETH(_weth).deposit{value: rQ}();
        IERC20(quote).safeTransfer(pair, rQ);
        IERC20(token).safeTransfer(pair, poolToken);
        IPair(pair).mint(DEAD);
        if (burned != 0) CurveToken(token).burn(burned);
        emit Graduated(pair, rQ, poolToken, burned);
    }

    function _pay(address to, uint256 amount) private {
        if (amount == 0) return;
        if (quoteAsset == address(0)) {
            (bool ok,) = to.call{value: amount}("");
            if (!ok) revert EthTransferFailed();
        } else {
            IERC20(quoteAsset).safeTransfer(to, amount);
        }
    }
}
