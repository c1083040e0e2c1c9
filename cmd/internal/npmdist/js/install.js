'use strict'
// plangit's postinstall: puts this platform's native programs (from the
// optional dependency @plangit/<os>-<cpu>, already installed by npm) where
// package.json's bin entries point, in place of the Node launchers, so that
// the plangit, plangit-hook and plangit-mcp npm links on PATH are the
// native executables. Each is a hard link (a copy where linking fails)
// renamed over its launcher, so a bin file is always whole. It downloads
// nothing. On Windows npm starts every bin entry through a .cmd shim that
// runs it with Node, so there the launchers stay.

const fs = require('fs')
const path = require('path')
const { nativePath } = require('./lib/platform.js')

function place(src, dest) {
  const tmp = `${dest}.${process.pid}.tmp`
  try {
    fs.rmSync(tmp, { force: true })
    try {
      fs.linkSync(src, tmp)
    } catch {
      fs.copyFileSync(src, tmp)
    }
    fs.chmodSync(tmp, 0o755)
    fs.renameSync(tmp, dest)
  } catch (err) {
    fs.rmSync(tmp, { force: true })
    throw err
  }
}

function main() {
  if (process.platform === 'win32') {
    return
  }
  const programs = Object.keys(require('./package.json').bin)
  let sources
  try {
    sources = programs.map((p) => [p, nativePath(p)])
  } catch (err) {
    console.error(`plangit postinstall: ${err.message}`)
    console.error('  Until then plangit runs through its Node launcher, which says the same.')
    return
  }
  for (const [program, src] of sources) {
    try {
      place(src, path.join(__dirname, 'bin', program))
    } catch (err) {
      console.error(`plangit postinstall: ${program} stays the Node launcher: ${err.message}`)
    }
  }
}

main()
