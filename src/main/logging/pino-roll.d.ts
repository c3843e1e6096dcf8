// Types for pino-roll (the package ships none): the options Rampdesk passes and the
// SonicBoom stream it resolves to.
declare module 'pino-roll' {
  import type SonicBoom from 'sonic-boom'
  import type { SonicBoomOpts } from 'sonic-boom'

  interface PinoRollOptions extends Omit<SonicBoomOpts, 'dest' | 'fd'> {
    file: string | (() => string)
    size?: string | number
    frequency?: 'daily' | 'hourly' | number
    extension?: string
    symlink?: boolean
    limit?: { count?: number; removeOtherLogFiles?: boolean }
    dateFormat?: string
  }

  export default function pinoRoll(options: PinoRollOptions): Promise<SonicBoom>
}
