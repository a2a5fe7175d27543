#!/usr/bin/env node
// Launcher for the `brickpost` command; the code lives in ../dist (npx tsc -b).
import { main } from '../dist/src/main.js';

await main(process.argv.slice(2));
