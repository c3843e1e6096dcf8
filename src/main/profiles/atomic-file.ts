// Whole-file replacement that a crash cannot tear: write a temp file beside the target,
// fsync it, rename it over the target (atomic on one filesystem), then fsync the directory
// so the rename itself survives a power loss. Readers see the old file or the new one.
import { randomBytes } from 'node:crypto'
import { promises as fs } from 'node:fs'
import { dirname } from 'node:path'

export async function writeFileAtomic(target: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const dir = dirname(target)
  await fs.mkdir(dir, { recursive: true, mode: 0o700 })
  const temp = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  try {
    const handle = await fs.open(temp, 'wx', mode)
    try {
      await handle.writeFile(data)
      // open()'s mode is filtered by the umask; make it exact.
      await handle.chmod(mode)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await fs.rename(temp, target)
  } catch (e) {
    await fs.rm(temp, { force: true }).catch(() => undefined)
    throw e
  }
  try {
    const d = await fs.open(dir, 'r')
    try {
      await d.sync()
    } finally {
      await d.close()
    }
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic.
  }
}
