#!/usr/bin/env node
// The `dealstream` command, kept at dist/bin.js (package.json "bin", npm start, the docs, the tests).
import module from "node:module"

// V8's compiled code of our modules and Effect's, kept on disk (Node's compile cache, in the
// system's temporary directory) so that the next start compiles none of it: about a sixth less CPU
// for each start of the CLI or the host. Node before 22.8 has no such cache; a cache that cannot
// be written only costs the compiling it would have saved.
module.enableCompileCache?.()
await import("./cli/main.js")
