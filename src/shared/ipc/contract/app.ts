// The app namespace: the shell, its version and active profile, and the window's own
// actions (links, waking, showing the main window, opening an export or the logs).
import { z } from 'zod'
import { ExportFileName } from './orders'
import { ch, HttpUrl, none, ok, OrderRef } from './primitives'
import { Profile } from './profiles'

/** Which shell serves the contract. */
export const ShellKind = z.enum(['electron', 'web', 'hub'])
export type ShellKind = z.infer<typeof ShellKind>

export const appChannels = {
  'app:info': ch(
    none,
    z.object({
      version: z.string(),
      platform: z.string(),
      shell: ShellKind,
      profile: Profile,
      clockSkewMs: z.number().nullable(),
      /** The OS locale numbers, money and dates are written in (Electron); null where the window's own language is the one (the browser harness). */
      locale: z.string().nullable()
    }),
    'Version, shell and the active profile'
  ),
  'app:openExternal': ch(z.object({ url: HttpUrl }).strict(), ok, 'Open an http(s) explorer link in the system browser'),
  'app:wake': ch(
    none,
    z.object({ refetched: z.boolean() }),
    'The machine woke, the screen was unlocked or the network came back: refetch now (false when a wake was just handled)'
  ),
  'app:showMain': ch(
    z.object({ order: OrderRef.strict().optional() }).strict(),
    ok,
    'Show the main window (from the tray), optionally at an order'
  ),
  'app:openExport': ch(
    z.object({ file: ExportFileName, action: z.enum(['open', 'show']) }).strict(),
    z.object({ opened: z.boolean() }),
    'Open a CSV export of the export folder, or show it in the file manager (false where the shell cannot: the browser harness downloads it)'
  ),
  'app:openLogs': ch(
    none,
    z.object({ dir: z.string(), opened: z.boolean() }),
    "Open the support logs' folder in the file manager (the browser harness cannot, and answers the folder)"
  )
} as const
