// The support log as the services open it: the files under <dataDir>/logs at the level
// RAMPDESK_LOG_LEVEL names (info by default), or nothing when a caller turns it off
// (benchmarks measuring the services alone). Its first line says what started.
import { join } from 'node:path'
import { LOG_DIR, logLevelFrom, openLogFile, silentLog, type Log, type LogLevel } from './logger'

export type ServicesLogOption = { level?: LogLevel } | false | undefined

export interface ServicesLog {
  log: Log
  /** Where the files are (also when logging is off: the folder the shells offer to open). */
  dir: string
  close(): Promise<void>
}

export async function openServicesLog(o: {
  dataDir: string
  logging?: ServicesLogOption
  version: string
  shellKind: string
}): Promise<ServicesLog> {
  const dir = join(o.dataDir, LOG_DIR)
  if (o.logging === false) return { log: silentLog, dir, close: async () => undefined }
  const file = await openLogFile({ dir, level: o.logging?.level ?? logLevelFrom(process.env.RAMPDESK_LOG_LEVEL) })
  file.info('started', { version: o.version, shell: o.shellKind, platform: process.platform })
  return {
    log: file,
    dir,
    close: async () => {
      file.info('closed')
      await file.close()
    }
  }
}
