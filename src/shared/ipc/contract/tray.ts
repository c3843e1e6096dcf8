// The tray namespace: what the tray icon, its title or tooltip and the popover tell.
import { z } from 'zod'
import { ch, none } from './primitives'

/** What the tray tells at a glance, by precedence: offline or sync failing, orders needing attention, orders in progress, nothing. */
export const TrayLevel = z.enum(['offline', 'failing', 'attention', 'progress', 'idle'])
export type TrayLevel = z.infer<typeof TrayLevel>

/** The tray icon's variants (each rendered in light and dark at build time). */
export const TrayIcon = z.enum(['idle', 'progress', 'attention', 'error'])
export type TrayIcon = z.infer<typeof TrayIcon>

export const TrayState = z.object({
  level: TrayLevel,
  icon: TrayIcon,
  /** One line in the operator's words ("3 orders need attention"). */
  headline: z.string(),
  /** What fails and what to do, while offline or failing. */
  detail: z.string().nullable(),
  attention: z.number().int().nonnegative(),
  inProgress: z.number().int().nonnegative(),
  /** The short text beside the icon in the macOS menu bar. */
  title: z.string(),
  /** The tooltip on Windows and Linux. */
  tooltip: z.string(),
  /** What the app knows it may be missing (scopes not probed, audit differences, stale statuses). */
  gaps: z.array(z.string()).optional()
})
export type TrayState = z.infer<typeof TrayState>

export const trayChannels = {
  'tray:state': ch(
    none,
    TrayState,
    'What the tray icon, its title or tooltip and the popover tell: sync trouble, orders needing attention, in progress'
  )
} as const
