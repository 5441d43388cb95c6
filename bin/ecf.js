#!/usr/bin/env node
import { main } from '../dist/bundle/ecf.js';

await main();
