#!/usr/bin/env node
// Compiles contracts/src with the pinned solc (package.json) through the standard-JSON interface and
// writes build/<Name>.json ({contractName, sourceName, compiler, abi, bin}) for every deployable
// contract. Output is deterministic: same sources and node_modules give the same bytes. Exits
// non-zero on any compiler error, on a missing artifact and on contracts over the EIP-170 size limit.
'use strict';

const fs = require('fs');
const path = require('path');
const solc = require('solc');

const ROOT = __dirname;
const SRC = path.join(ROOT, 'src');
const BUILD = path.join(ROOT, 'build');
const NODE_MODULES = path.join(ROOT, 'node_modules');

// The contracts that get an artifact and a Go binding (interfaces and libraries do not).
const DEPLOYABLE = [
  'BondingCurve',
  'CurveToken',
  'LaunchFactory',
  'MockERC20',
  'Pair',
  'PoolFactory',
  'Router',
  'WETH9',
];

const MAX_RUNTIME_SIZE = 24576; // EIP-170
const MAX_INITCODE_SIZE = 49152; // EIP-3860

function listSources(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listSources(full));
    else if (entry.isFile() && entry.name.endsWith('.sol')) out.push(full);
  }
  return out;
}

function sourceName(file) {
  return path.relative(ROOT, file).split(path.sep).join('/');
}

// Imports that are not in src/ (e.g. @openzeppelin/...) resolve inside node_modules, nowhere else.
function findImports(importPath) {
  const resolved = path.resolve(NODE_MODULES, importPath);
  if (!resolved.startsWith(NODE_MODULES + path.sep)) {
    return { error: `import outside node_modules: ${importPath}` };
  }
  try {
    return { contents: fs.readFileSync(resolved, 'utf8') };
  } catch (err) {
    return { error: `cannot read ${importPath}: ${err.message}` };
  }
}

function main() {
  const files = listSources(SRC).map(sourceName).sort();
  const sources = {};
  for (const name of files) {
    sources[name] = { content: fs.readFileSync(path.join(ROOT, name), 'utf8') };
  }
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion: 'cancun',
      viaIR: true,
      optimizer: { enabled: true, runs: 200 },
      outputSelection: {
        '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
      },
    },
  };

  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
  let failed = false;
  for (const diag of output.errors || []) {
    const text = diag.formattedMessage || diag.message;
    if (diag.severity === 'error') {
      failed = true;
      process.stderr.write(text + '\n');
    } else if (!diag.sourceLocation || diag.sourceLocation.file.startsWith('src/')) {
      // Warnings about library code (e.g. OpenZeppelin's transient-storage notice) are not ours to fix.
      process.stderr.write(text + '\n');
    }
  }
  if (failed) {
    process.stderr.write('compile.js: compilation failed\n');
    process.exit(1);
  }

  const found = {};
  for (const [src, contracts] of Object.entries(output.contracts || {})) {
    if (!src.startsWith('src/')) continue;
    for (const [name, c] of Object.entries(contracts)) {
      if (DEPLOYABLE.includes(name)) {
        if (found[name]) throw new Error(`contract ${name} defined twice (${found[name].src}, ${src})`);
        found[name] = { src, c };
      }
    }
  }

  fs.mkdirSync(BUILD, { recursive: true });
  for (const name of DEPLOYABLE) {
    const entry = found[name];
    if (!entry || !entry.c.evm.bytecode.object) {
      process.stderr.write(`compile.js: no bytecode for ${name}\n`);
      process.exit(1);
    }
    const runtime = entry.c.evm.deployedBytecode.object.length / 2;
    const initcode = entry.c.evm.bytecode.object.length / 2;
    if (runtime > MAX_RUNTIME_SIZE || initcode > MAX_INITCODE_SIZE) {
      process.stderr.write(`compile.js: ${name} too large (runtime ${runtime} B, initcode ${initcode} B)\n`);
      process.exit(1);
    }
    const artifact = {
      contractName: name,
      sourceName: entry.src,
      compiler: solc.version(),
      abi: entry.c.abi,
      bin: '0x' + entry.c.evm.bytecode.object,
    };
    fs.writeFileSync(path.join(BUILD, name + '.json'), JSON.stringify(artifact, null, 2) + '\n');
    if (process.env.CURVEKIT_SIZES) {
      process.stderr.write(`${name}: runtime ${runtime} B, initcode ${initcode} B\n`);
    }
  }
  // Drop artifacts of contracts that are no longer deployable.
  for (const file of fs.readdirSync(BUILD).sort()) {
    if (file.endsWith('.json') && !DEPLOYABLE.includes(file.slice(0, -5))) {
      fs.unlinkSync(path.join(BUILD, file));
    }
  }
}

main();
