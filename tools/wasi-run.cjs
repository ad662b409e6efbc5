// SPDX-License-Identifier: MIT
'use strict';
// wasi-run.cjs - run a wasm32-wasi program (the qphys tool, the probe) in node, the way a
// Linux program runs under qemu-user: its arguments, stdout and exit status pass through,
// and it sees the current folder as its file system (paths relative to it: wasi-libc starts in
// "/", which the "." preopen maps to the current folder).
//   tools/wasi-run PROGRAM.wasm [ARGS...]   (node --no-warnings tools/wasi-run.cjs ...)
const { WASI } = require('node:wasi');
const fs = require('node:fs');

const program = process.argv[2];
const wasi = new WASI({
  version: 'preview1',
  args: [program, ...process.argv.slice(3)],
  env: {},
  preopens: { '.': '.' },
  returnOnExit: true,
});
const wasm = new WebAssembly.Module(fs.readFileSync(program));
const instance = new WebAssembly.Instance(wasm, wasi.getImportObject());
process.exitCode = wasi.start(instance);
