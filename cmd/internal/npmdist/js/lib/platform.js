'use strict'
// Where this platform's native programs are: in the package
// @plangit/<os>-<cpu>, one of plangit's optional dependencies, which npm
// installs only where its os and cpu match the machine's.

const fs = require('fs')
const path = require('path')

const root = path.join(__dirname, '..')
const pkg = require('../package.json')

// nativeDir returns the bin directory of this platform's package, or
// throws an error that says what is missing and how to get it.
function nativeDir() {
  const key = process.platform + '-' + process.arch
  const optional = pkg.optionalDependencies || {}
  // The platform packages are named <scope>/<os>-<cpu>; the scope is
  // package.json's alone.
  const name = Object.keys(optional).find((n) => n.endsWith('/' + key))
  if (!name) {
    const known = Object.keys(optional).map((n) => n.slice(n.indexOf('/') + 1))
    throw new Error(`plangit has no native programs for ${key} (it has them for ${known.join(', ')})`)
  }
  const want = optional[name]
  let manifest
  try {
    manifest = require.resolve(name + '/package.json', { paths: [root] })
  } catch {
    throw new Error(
      `${name}, the package that holds plangit's native programs for ${key}, is not installed ` +
        `(npm leaves optional dependencies out with --omit=optional): install plangit again without it`
    )
  }
  const got = JSON.parse(fs.readFileSync(manifest, 'utf8')).version
  if (got !== want) {
    throw new Error(`${name} is at version ${got} where plangit ${pkg.version} needs ${want}: install plangit again`)
  }
  return path.join(path.dirname(manifest), 'bin')
}

// nativePath returns the path of one of the native programs.
function nativePath(program) {
  return path.join(nativeDir(), program + (process.platform === 'win32' ? '.exe' : ''))
}

module.exports = { root, nativePath }
