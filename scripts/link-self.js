#!/usr/bin/env node
'use strict';
// Makes `playwright-tms-reporter` resolvable by name inside this repository (example-project/, the
// integration tests), the way users load it. Playwright resolves reporters from its own module, so
// Node's package self-reference does not apply; a tiny shim package in node_modules does.
// A shim folder rather than a symlink to the root: a link would make node_modules contain itself.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const shim = path.join(root, 'node_modules', 'playwright-tms-reporter');
const manifest =
  JSON.stringify({ name: 'playwright-tms-reporter', private: true, main: '../../dist/index.js', types: '../../dist/index.d.ts' }, null, 2) +
  '\n';
const file = path.join(shim, 'package.json');
// Never delete and recreate: a Playwright run resolving the package at that moment would fail.
if (fs.lstatSync(shim, { throwIfNoEntry: false })?.isSymbolicLink()) fs.unlinkSync(shim);
fs.mkdirSync(shim, { recursive: true });
if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== manifest) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, manifest);
  fs.renameSync(tmp, file); // atomic: readers see the old or the new file, never a partial one
}
