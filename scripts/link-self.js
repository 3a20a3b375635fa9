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
fs.rmSync(shim, { recursive: true, force: true });
fs.mkdirSync(shim, { recursive: true });
fs.writeFileSync(
  path.join(shim, 'package.json'),
  JSON.stringify({ name: 'playwright-tms-reporter', private: true, main: '../../dist/index.js', types: '../../dist/index.d.ts' }, null, 2) + '\n',
);
