#!/usr/bin/env node
// The `dealstream` command, kept at dist/bin.js (package.json "bin", npm start, the docs, the tests).
import "./cli/main.js"
