// Builds the page into ../dist: one ES module entry with its chart chunk split off (only the token
// and creator pages load it), one stylesheet, index.html naming them by content hash. The output
// depends only on the sources and the pinned esbuild, so CI can rebuild and compare byte for byte.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

const out = new URL('../dist/', import.meta.url).pathname;
rmSync(out, { recursive: true, force: true });
mkdirSync(out + 'assets', { recursive: true });

const result = await esbuild.build({
  entryPoints: { app: 'src/main.tsx', style: 'src/app.css' },
  bundle: true,
  splitting: true,
  format: 'esm',
  target: ['es2022'],
  minify: true,
  legalComments: 'linked',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: out + 'assets',
  entryNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
});

const outputs = Object.entries(result.metafile.outputs);
const entry = (name) => basename(outputs.find(([, o]) => o.entryPoint === name)[0]);
const html = readFileSync('src/index.html', 'utf8').replace('{{js}}', entry('src/main.tsx')).replace('{{css}}', entry('src/app.css'));
writeFileSync(out + 'index.html', html);
copyFileSync('src/favicon.svg', out + 'assets/favicon.svg');
// The stylesheet entry also emits an empty script; nothing loads it.
for (const [file, o] of outputs) if (o.entryPoint === 'src/app.css' && file.endsWith('.js')) rmSync(file);
for (const [file, o] of outputs) if (!file.endsWith('.map')) console.log(`${basename(file)} ${o.bytes} bytes`);
