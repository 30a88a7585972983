#!/usr/bin/env node
// The `s2sp-sql-consumer` command. A checked-in launcher rather than dist/main.js itself, so that pnpm can
// link the bin into its dependents' node_modules/.bin on a fresh clone, before the build.
import '../dist/main.js';
