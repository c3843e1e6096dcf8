// Where the hub's credentials come from: the merchant's API secret (a file, a file
// descriptor, or the less safe environment variable), and any other credential kept in a
// file (the metrics token, an API key or a --forward-to URL named by a *_FILE variable).
// A file's first line is the value; a file other users can read is warned about.
import { readFileSync, statSync } from 'node:fs'
import { InputError } from './cli-errors'

/** Where the API secret came from: a file and a file descriptor leave no trace in any process's environment. */
export type SecretSource = 'file' | 'fd' | 'env'

/** The first line of a secret's text, or an error naming where it came from. */
export function firstLine(text: string, from: string): string {
  const secret = text.split(/\r?\n/)[0]!.trim()
  if (!secret) throw new InputError(`${from} is empty: its first line must be the value`)
  return secret
}

/** The first line of a file holding a credential; warns when other users can read it. */
export function readFirstLine(file: string, warn: (m: string) => void): string {
  let text: string
  try {
    const st = statSync(file)
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0)
      warn(`${file} can be read by other users (mode ${(st.mode & 0o777).toString(8)}): chmod 600 it`)
    text = readFileSync(file, 'utf8')
  } catch (e) {
    throw new InputError(`could not read ${file}: ${(e as Error).message}`)
  }
  return firstLine(text, file)
}

/**
 * The merchant's API secret, from (first found): a file descriptor, a file (the flags or
 * their variables, resolved by the caller), or RAMPDESK_API_SECRET. The variable is the
 * less safe way: it is deleted from this process's environment once read (nothing the hub
 * starts inherits it), but the environment a process was started with stays readable in
 * /proc/<pid>/environ, in this process and in every process that started it (npm, the
 * shell), for as long as they run. A file or a file descriptor (stdin: --api-secret-fd 0)
 * leaves it in none of them.
 */
export function readSecret(
  o: { file?: string; fd?: string },
  warn: (m: string) => void,
  env: NodeJS.ProcessEnv = process.env
): { secret: string; source: SecretSource } {
  const viaEnv = env.RAMPDESK_API_SECRET
  // Not inherited by anything this process starts, whichever way the secret comes.
  delete env.RAMPDESK_API_SECRET
  if (o.fd !== undefined) {
    const fd = Number(o.fd)
    if (!Number.isInteger(fd) || fd < 0 || fd > 1023) throw new InputError(`--api-secret-fd must be a file descriptor number, not ${o.fd}`)
    let text: string
    try {
      text = readFileSync(fd, 'utf8')
    } catch (e) {
      throw new InputError(`could not read the API secret from file descriptor ${fd}: ${(e as Error).message}`)
    }
    return { secret: firstLine(text, `file descriptor ${fd}`), source: 'fd' }
  }
  if (o.file) return { secret: readFirstLine(o.file, warn), source: 'file' }
  if (!viaEnv)
    throw new InputError(
      'no API secret: pass --api-secret-file F or --api-secret-fd 0 (the secret on stdin), set RAMPDESK_HUB_API_SECRET_FILE, or set RAMPDESK_API_SECRET (less safe), or use --sandbox'
    )
  warn(
    'the API secret came from RAMPDESK_API_SECRET: it stays readable in the starting environment of this process and of the processes that started it (npm, the shell); prefer --api-secret-file or --api-secret-fd'
  )
  return { secret: viaEnv, source: 'env' }
}
