'use strict'
// The Node launcher: what bin/plangit, bin/plangit-hook and bin/plangit-mcp
// are until install.js puts the native programs in their place — where
// npm ran no install scripts (--ignore-scripts), and on Windows, where npm
// starts every bin entry through Node. It runs the native program with the
// same arguments, standard input, output and error, and exit status.

const { spawn } = require('child_process')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { root, nativePath } = require('./platform.js')

module.exports = function launch(program) {
  let exe
  try {
    exe = nativePath(program)
  } catch (err) {
    process.stderr.write(`${program}: ${err.message}\n`)
    process.exit(1)
  }
  if (process.platform !== 'win32') {
    noteOnce(program)
  }
  const child = spawn(exe, process.argv.slice(2), { stdio: 'inherit', windowsHide: true })
  const signals = process.platform === 'win32' ? ['SIGINT', 'SIGTERM'] : ['SIGINT', 'SIGTERM', 'SIGHUP']
  const forward = (signal) => {
    try {
      child.kill(signal)
    } catch {
      // The program has ended already.
    }
  }
  for (const s of signals) {
    process.on(s, forward)
  }
  child.on('error', (err) => {
    process.stderr.write(`${program}: cannot run ${exe}: ${err.message}\n`)
    process.exit(1)
  })
  child.on('exit', (code, signal) => {
    if (signal) {
      // End as the program ended, by its signal.
      for (const s of signals) {
        process.removeListener(s, forward)
      }
      process.kill(process.pid, signal)
      return
    }
    process.exit(code)
  })
}

// noteOnce says, the first time a launcher runs in this installation, that
// the programs start through Node and how to have the native ones instead.
// A marker file in the package (or, where that cannot be written, in the
// user's cache) keeps it from saying so twice.
function noteOnce(program) {
  const markers = [path.join(root, '.launcher-noted')]
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache')
  markers.push(path.join(cache, 'plangit', 'launcher-noted-' + root.replace(/[^A-Za-z0-9]+/g, '_')))
  for (const marker of markers) {
    try {
      fs.mkdirSync(path.dirname(marker), { recursive: true })
      fs.closeSync(fs.openSync(marker, 'wx'))
    } catch (err) {
      if (err.code === 'EEXIST') {
        return
      }
      continue
    }
    break
  }
  process.stderr.write(
    `plangit: ${program} runs through Node here: npm ran no install scripts when it installed plangit ` +
      `(--ignore-scripts, or scripts not allowed), so each call starts Node first. ` +
      `npm rebuild -g plangit --ignore-scripts=false puts the native programs in place ` +
      `(without -g for a project's own install; add --allow-scripts=plangit where npm asks). This note is shown once.\n`
  )
}
